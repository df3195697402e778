/* The plan_error record. */
#include <stdarg.h>
#include <stdio.h>

#include "plan/error.h"

int plan_error_set(plan_error *err, int line, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->line = line;
        vsnprintf(err->text, sizeof err->text, fmt, ap);
        va_end(ap);
    }
    return -1;
}
