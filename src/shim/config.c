/* The HRELAY_* environment: parsed into shim_config with defaults and warnings. No MPI here;
 * init.c reads it on rank 0 and broadcasts it. getenv strings are only read, never modified. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "plan/hash.h"
#include "shim/settings.h"

enum { WINDOW_MAX = 1024 };

/* Every variable hrelay reads (the divergence hash covers exactly these). */
static const char *const env_names[] = {
    "HRELAY_ALGO",       "HRELAY_REPORT",      "HRELAY_DUMP",       "HRELAY_VERBOSE",
    "HRELAY_DISABLE",    "HRELAY_MIN_STEP",    "HRELAY_WINDOW",     "HRELAY_GRAIN",
    "HRELAY_PACKET",     "HRELAY_MAX_STAGING", "HRELAY_MAX_PLAN",   "HRELAY_CACHE_SIZE",
    "HRELAY_TUNE",       "HRELAY_TUNE_MARGIN", "HRELAY_RECHECK",    "HRELAY_SITE_DEPTH",
    "HRELAY_CONFIG",     "HRELAY_ALPHA",       "HRELAY_BETA",
    "HRELAY_DUPLEX",     "HRELAY_TUNE_SLACK"};

int shim_request_parse(const char *name, int *request)
{
    plan_algo a;
    if (!strcmp(name, "auto")) {
        *request = SHIM_AUTO;
        return 0;
    }
    if (plan_algo_parse(name, &a) != 0)
        return -1;
    *request = (int)a;
    return 0;
}

const char *shim_request_name(int request)
{
    return request == SHIM_AUTO ? "auto" : plan_algo_name((plan_algo)request);
}

/* Appends one printf-style line to warn without overflowing it. */
static void add_warning(char *warn, size_t cap, const char *fmt, ...)
{
    size_t used = strlen(warn);
    if (used + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(warn + used, cap - used, fmt, ap);
    va_end(ap);
    used = strlen(warn);
    if (used + 1 < cap) {
        warn[used] = '\n';
        warn[used + 1] = '\0';
    }
}

/* The value of name, or NULL when unset or empty. */
static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* Parses a decimal integer in [lo, hi] (the whole string). Returns 0 and sets *out, or -1. */
static int parse_int(const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi || !isdigit((unsigned char)*s))
        return -1;
    *out = (int)v;
    return 0;
}

/* Parses a byte count with an optional binary suffix (see settings.h). */
int shim_parse_bytes(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    const char *c = s;
    if (!isdigit((unsigned char)*c))
        return -1;
    for (; isdigit((unsigned char)*c); c++) {
        if (v > (UINT64_MAX - (uint64_t)(*c - '0')) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*c - '0');
    }
    unsigned shift = 0;
    switch (toupper((unsigned char)*c)) {
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    case 'T': shift = 40; break;
    case '\0': break;
    default: return -1;
    }
    if (shift) {
        c++;
        if (strcmp(c, "") && strcmp(c, "B") && strcmp(c, "b") && strcmp(c, "iB") &&
            strcmp(c, "ib"))
            return -1;
        if (v > (UINT64_MAX >> shift))
            return -1;
        v <<= shift;
    } else if (*c) {
        return -1;
    }
    *out = v;
    return 0;
}

/* Copies a path setting, or warns and leaves it empty if it does not fit. */
static void read_path(const char *name, char *dst, char *warn, size_t cap)
{
    const char *v = env(name);
    dst[0] = '\0';
    if (!v)
        return;
    if (strlen(v) >= SHIM_PATH_MAX) {
        add_warning(warn, cap, "%s is longer than %d bytes; ignored", name, SHIM_PATH_MAX - 1);
        return;
    }
    strcpy(dst, v);
}

/* "native, direct, stepwise, ...": every family plan_algo_name knows, for warnings. */
static const char *family_list(void)
{
    static char list[256];
    size_t n = 0;
    list[0] = '\0';
    for (int a = 0; a < PLAN_ALGO_COUNT && n < sizeof list; a++)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", a ? ", " : "",
                              plan_algo_name((plan_algo)a));
    return list;
}

/* Reads a byte-count setting: *out = its value if it parses and is at least `min`, else the
 * default `def` (described as def_text in the warning). */
static void read_bytes(const char *name, uint64_t min, uint64_t def, const char *def_text,
                       uint64_t *out, char *warn, size_t cap)
{
    const char *v = env(name);
    *out = def;
    if (!v)
        return;
    if (shim_parse_bytes(v, out) || *out < min) {
        *out = def;
        add_warning(warn, cap,
                    "%s=%s is not a byte count of at least %llu (digits, optional K/M/G/T); "
                    "using %s",
                    name, v, (unsigned long long)min, def_text);
    }
}

/* Reads an integer setting in [lo, hi]: *out = its value, else (with a warning) def. */
static void read_int(const char *name, long lo, long hi, int def, int *out, char *warn,
                     size_t cap)
{
    const char *v = env(name);
    *out = def;
    if (v && parse_int(v, lo, hi, out)) {
        *out = def;
        add_warning(warn, cap, "%s=%s is not an integer in %ld..%ld; using %d", name, v, lo, hi,
                    def);
    }
}

/* Reads a time or per-byte cost in seconds (a positive finite number, at most hi) into
 * *out = value * scale; else leaves *out and warns. */
static void read_seconds(const char *name, double scale, double hi, uint64_t *out, char *warn,
                         size_t cap)
{
    const char *v = env(name);
    if (!v)
        return;
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (errno || end == v || *end || !(d > 0) || d > hi) {
        add_warning(warn, cap, "%s=%s is not a number of seconds in (0, %g]; ignored", name, v,
                    hi);
        return;
    }
    *out = (uint64_t)(d * scale + 0.5);
}

/* Reads the calibration file HRELAY_CONFIG into cfg->cost (warning and built-in values if it
 * cannot be read). */
static void read_calibration(shim_config *cfg, char *warn, size_t cap)
{
    read_path("HRELAY_CONFIG", cfg->config, warn, cap);
    if (!cfg->config[0])
        return;
    FILE *f = fopen(cfg->config, "r");
    plan_error err = {0};
    if (!f) {
        add_warning(warn, cap, "HRELAY_CONFIG=%s cannot be opened (%s); using built-in costs",
                    cfg->config, strerror(errno));
        return;
    }
    if (plan_cost_parse(f, &cfg->cost, &err) != 0)
        add_warning(warn, cap, "HRELAY_CONFIG=%s:%d: %s; using built-in costs", cfg->config,
                    err.line, err.text);
    else
        cfg->calibrated = 1;
    fclose(f);
}

/* Fills cfg from the environment (see settings.h). */
void shim_config_from_env(shim_config *cfg, char *warn, size_t cap)
{
    const char *v;
    memset(cfg, 0, sizeof *cfg);
    cfg->algo = SHIM_AUTO;
    cfg->min_step = PLAN_MIN_STEP_AUTO;
    cfg->duplex = PLAN_DUPLEX_FULL;
    cfg->window = EXEC_DEFAULT_WINDOW;
    cfg->cost = plan_cost_defaults();
    cfg->packet = SHIM_DEFAULT_PACKET;
    cfg->max_staging = SHIM_DEFAULT_MAX_STAGING;
    if (cap)
        warn[0] = '\0';

    if ((v = env("HRELAY_DISABLE")) && parse_int(v, 0, 1, &cfg->disable))
        add_warning(warn, cap, "HRELAY_DISABLE=%s is not 0 or 1; using 0", v);

    if ((v = env("HRELAY_ALGO")) && shim_request_parse(v, &cfg->algo) != 0)
        add_warning(warn, cap, "HRELAY_ALGO=%s is not one of auto, %s; using auto", v,
                    family_list());

    if ((v = env("HRELAY_DUPLEX"))) {
        if (!strcmp(v, "half"))
            cfg->duplex = PLAN_DUPLEX_HALF;
        else if (strcmp(v, "full"))
            add_warning(warn, cap, "HRELAY_DUPLEX=%s is not full or half; using full", v);
    }

    if ((v = env("HRELAY_VERBOSE")) && parse_int(v, 0, 2, &cfg->verbose)) {
        cfg->verbose = 0;
        add_warning(warn, cap, "HRELAY_VERBOSE=%s is not 0, 1 or 2; using 0", v);
    }

    if ((v = env("HRELAY_MIN_STEP")) && strcmp(v, "auto") &&
        shim_parse_bytes(v, &cfg->min_step)) {
        cfg->min_step = PLAN_MIN_STEP_AUTO;
        add_warning(warn, cap,
                    "HRELAY_MIN_STEP=%s is not auto or a byte count (digits, optional K/M/G/T); "
                    "using auto",
                    v);
    }

    if ((v = env("HRELAY_WINDOW")) && parse_int(v, 1, WINDOW_MAX, &cfg->window)) {
        cfg->window = EXEC_DEFAULT_WINDOW;
        add_warning(warn, cap, "HRELAY_WINDOW=%s is not an integer in 1..%d; using %d", v,
                    WINDOW_MAX, EXEC_DEFAULT_WINDOW);
    }

    read_bytes("HRELAY_GRAIN", 1, 0, "the per-call default", &cfg->grain, warn, cap);
    read_bytes("HRELAY_PACKET", 1, SHIM_DEFAULT_PACKET, "64K", &cfg->packet, warn, cap);
    read_bytes("HRELAY_MAX_STAGING", 0, SHIM_DEFAULT_MAX_STAGING, "256M", &cfg->max_staging, warn,
               cap);

    read_bytes("HRELAY_MAX_PLAN", 1, SHIM_DEFAULT_MAX_PLAN, "8M", &cfg->max_plan, warn, cap);
    read_int("HRELAY_CACHE_SIZE", 1, SHIM_CACHE_MAX, SHIM_DEFAULT_CACHE, &cfg->cache_size, warn,
             cap);
    read_int("HRELAY_TUNE", 0, 100, SHIM_DEFAULT_TUNE, &cfg->tune, warn, cap);
    read_int("HRELAY_TUNE_MARGIN", 0, 10000, SHIM_DEFAULT_MARGIN, &cfg->margin, warn, cap);
    read_int("HRELAY_TUNE_SLACK", 0, 1000000, SHIM_DEFAULT_SLACK, &cfg->slack_us, warn, cap);
    read_int("HRELAY_RECHECK", 0, 1 << 20, SHIM_DEFAULT_RECHECK, &cfg->recheck, warn, cap);
    read_int("HRELAY_SITE_DEPTH", 1, SHIM_SITE_FRAMES, 1, &cfg->site_depth, warn, cap);
    read_calibration(cfg, warn, cap);
    read_seconds("HRELAY_ALPHA", 1e12, 1, &cfg->cost.alpha_ps, warn, cap);
    read_seconds("HRELAY_BETA", 1e15, 1e-3, &cfg->cost.beta_fs, warn, cap);

    read_path("HRELAY_REPORT", cfg->report, warn, cap);
    read_path("HRELAY_DUMP", cfg->dump, warn, cap);
    cfg->env_hash = shim_env_hash();
}

/* Hash of names and values of the HRELAY_* variables (see settings.h). */
uint64_t shim_env_hash(void)
{
    uint64_t h = PLAN_HASH_START;
    for (size_t i = 0; i < sizeof env_names / sizeof env_names[0]; i++) {
        const char *v = getenv(env_names[i]);
        h = plan_hash_bytes(h, env_names[i], strlen(env_names[i]) + 1);
        h = v ? plan_hash_bytes(h, v, strlen(v) + 1) : plan_hash_bytes(h, "\1unset", 7);
    }
    return h;
}
