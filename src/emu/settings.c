/* HRELAY_EMU_* settings of libhrelay-emu.so, read once from the environment. */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu/emu.h"

static emu_settings settings;
static pthread_once_t settings_once = PTHREAD_ONCE_INIT;

/* Prints a message prefixed with the library name and the process id (see emu.h). */
void emu_say(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "hrelay-emu[%ld]: %s\n", (long)getpid(), line);
}

/* Reads variable name as a decimal integer in [lo, hi]; unset or empty gives def, anything else
 * gives def with a warning. */
static long read_int(const char *name, long lo, long hi, long def)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return def;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || !isdigit((unsigned char)*s) || v < lo || v > hi) {
        emu_say("warning: ignoring %s='%s' (expected %ld..%ld); using %ld", name, s, lo, hi, def);
        return def;
    }
    return v;
}

/* Fills settings (run once). */
static void load(void)
{
    settings.wakeup = read_int("HRELAY_EMU_WAKEUP", 0, 1, 1) != 0;
    settings.finalize = read_int("HRELAY_EMU_FINALIZE", 0, 1, 1) != 0;
    settings.spin = (unsigned)read_int("HRELAY_EMU_SPIN", 1, 1000000, EMU_DEFAULT_SPIN);
    settings.wait_ms = (int)read_int("HRELAY_EMU_WAIT_MS", 1, 1000, EMU_DEFAULT_WAIT_MS);
    settings.pause_us = (int)read_int("HRELAY_EMU_PAUSE_US", 0, 100000, EMU_DEFAULT_PAUSE_US);
    settings.verbose = (int)read_int("HRELAY_EMU_VERBOSE", 0, 1, 0);
}

/* The settings (see emu.h). */
const emu_settings *emu_settings_get(void)
{
    pthread_once(&settings_once, load);
    return &settings;
}
