/* Writing JSON text: the one string writer of the library (plan files, the report). Pure C,
 * no MPI. */
#ifndef HRELAY_PLAN_JSON_OUT_H
#define HRELAY_PLAN_JSON_OUT_H

#include <stddef.h>
#include <stdio.h>

/* Where JSON text goes: appends the n bytes at s to the output ctx names. */
typedef void plan_json_sink(void *ctx, const char *s, size_t n);

/* Writes s as a JSON string through put: in double quotes, with '"' and '\' escaped by a
 * backslash and every control character below 0x20 as \u00XX; other bytes (UTF-8 included)
 * unchanged. */
void plan_json_put_string(plan_json_sink *put, void *ctx, const char *s);

/* The same into f (errors show in ferror(f)). */
void plan_json_write_string(FILE *f, const char *s);

#endif
