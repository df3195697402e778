/* The JSON string writer (see json_out.h). */
#include <stdio.h>
#include <string.h>

#include "plan/json_out.h"

void plan_json_put_string(plan_json_sink *put, void *ctx, const char *s)
{
    put(ctx, "\"", 1);
    while (*s) {
        size_t plain = 0; /* a run of bytes that need no escape goes out in one piece */
        while (s[plain] && s[plain] != '"' && s[plain] != '\\' &&
               (unsigned char)s[plain] >= 0x20)
            plain++;
        if (plain) {
            put(ctx, s, plain);
            s += plain;
            continue;
        }
        char esc[8];
        unsigned char c = (unsigned char)*s++;
        if (c == '"' || c == '\\')
            snprintf(esc, sizeof esc, "\\%c", c);
        else
            snprintf(esc, sizeof esc, "\\u%04x", c);
        put(ctx, esc, strlen(esc));
    }
    put(ctx, "\"", 1);
}

/* A sink writing to a FILE. */
static void file_sink(void *ctx, const char *s, size_t n)
{
    fwrite(s, 1, n, (FILE *)ctx);
}

void plan_json_write_string(FILE *f, const char *s)
{
    plan_json_put_string(file_sink, f, s);
}
