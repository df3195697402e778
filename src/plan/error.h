/* The error record plan/ functions fill instead of printing. Pure C, no MPI. */
#ifndef HRELAY_PLAN_ERROR_H
#define HRELAY_PLAN_ERROR_H

/* Filled by a failing function: a one-line message and, for parsers, the 1-based input line
 * (0 when no line applies). The caller owns it; functions accept NULL and then only return. */
typedef struct plan_error {
    int line;
    char text[256];
} plan_error;

/* Sets err (if not NULL) to line and a printf-style message; always returns -1. */
int plan_error_set(plan_error *err, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
