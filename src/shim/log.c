/* hrelay's messages on stderr: one line each, prefixed "hrelay: ". */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "shim/log.h"
#include "shim/state.h"

/* Prints "hrelay: " + kind + the formatted message + newline on stderr, in one line. */
static void say(const char *kind, const char *fmt, va_list ap)
{
    char line[1024];
    vsnprintf(line, sizeof line, fmt, ap);
    fprintf(stderr, "hrelay: %s%s\n", kind, line);
}

void shim_log(int level, const char *fmt, ...)
{
    if (shim_g.cfg.verbose < level || shim_g.world_rank != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    say("", fmt, ap);
    va_end(ap);
}

void shim_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say("warning: ", fmt, ap);
    va_end(ap);
}

void shim_warn_lines(const char *text)
{
    while (*text) {
        const char *nl = strchr(text, '\n');
        int n = nl ? (int)(nl - text) : (int)strlen(text);
        shim_warn("%.*s", n, text);
        text += n + (nl != NULL);
    }
}
