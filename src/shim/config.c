/* The HRELAY_* environment parsed into shim_config by walking the table of settings
 * (settings.c): every value checked, an invalid one replaced by its default with a warning.
 * No MPI here; init.c reads it on rank 0 and broadcasts it. getenv strings are only read,
 * never modified. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/hash.h"
#include "shim/settings.h"

/* Appends one printf-style line to warn without overflowing it. */
__attribute__((format(printf, 3, 4))) static void add_warning(char *warn, size_t cap,
                                                              const char *fmt, ...)
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

/* Parses v as a value of the word setting s into *out. Returns 0, or -1. */
static int parse_word(const shim_setting *s, const char *v, int *out)
{
    int value;
    const char *w;
    for (int i = 0; (w = s->word(i, &value)); i++)
        if (!strcmp(w, v)) {
            *out = value;
            return 0;
        }
    return -1;
}

/* Parses v as a number of seconds of s into *out (seconds * scale). Returns 0, or -1. */
static int parse_seconds(const shim_setting *s, const char *v, uint64_t *out)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (errno || end == v || *end || !(d > 0) || d > s->max_s)
        return -1;
    *out = (uint64_t)(d * s->scale + 0.5);
    return 0;
}

/* Puts the default of s into its field of cfg (seconds: the cost model's value stays). */
static void set_default(const shim_setting *s, shim_config *cfg)
{
    char *field = (char *)cfg + s->offset;
    switch (s->type) {
    case SHIM_SETTING_INT:
    case SHIM_SETTING_WORD: *(int *)field = (int)s->def; break;
    case SHIM_SETTING_BYTES: *(uint64_t *)field = s->def; break;
    case SHIM_SETTING_PATH: field[0] = '\0'; break;
    case SHIM_SETTING_SECONDS: break;
    }
}

/* Parses v into the field of s in cfg. Returns 0, or -1 (the field is then unchanged or
 * must be reset). */
static int parse_value(const shim_setting *s, const char *v, shim_config *cfg)
{
    char *field = (char *)cfg + s->offset;
    uint64_t bytes;
    switch (s->type) {
    case SHIM_SETTING_INT:
        if (s->automatic && !strcmp(v, "auto"))
            return 0; /* the default */
        return parse_int(v, (long)s->min, (long)s->max, (int *)field);
    case SHIM_SETTING_WORD: return parse_word(s, v, (int *)field);
    case SHIM_SETTING_BYTES:
        if (s->automatic && !strcmp(v, "auto"))
            return 0; /* the default */
        if (shim_parse_bytes(v, &bytes) || bytes < (uint64_t)s->min)
            return -1;
        *(uint64_t *)field = bytes;
        return 0;
    case SHIM_SETTING_PATH:
        if (strlen(v) >= SHIM_PATH_MAX)
            return -1;
        strcpy(field, v);
        return 0;
    case SHIM_SETTING_SECONDS: return parse_seconds(s, v, (uint64_t *)field);
    }
    return -1;
}

/* Reads setting s into cfg: its default, then its value if set and valid, else a warning. */
static void read_setting(const shim_setting *s, shim_config *cfg, char *warn, size_t cap)
{
    const char *v = env(s->name);
    char expect[256], def[64];
    set_default(s, cfg);
    if (!v || parse_value(s, v, cfg) == 0)
        return;
    set_default(s, cfg);
    if (s->type == SHIM_SETTING_PATH) {
        add_warning(warn, cap, "%s is longer than %d bytes; ignored", s->name, SHIM_PATH_MAX - 1);
    } else if (s->type == SHIM_SETTING_SECONDS) {
        add_warning(warn, cap, "%s=%s is not %s; ignored", s->name, v,
                    shim_setting_expect(s, expect, sizeof expect));
    } else {
        shim_setting_value(s, cfg, def, sizeof def);
        add_warning(warn, cap, s->def_text ? "%s=%s is not %s; using the default (%s)"
                                           : "%s=%s is not %s; using %s",
                    s->name, v, shim_setting_expect(s, expect, sizeof expect), def);
    }
}

/* Reads the calibration file cfg->config names (HRELAY_CONFIG) into cfg->cost (warning and
 * built-in values if it cannot be read). */
static void read_calibration(shim_config *cfg, char *warn, size_t cap)
{
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

void shim_config_from_env(shim_config *cfg, char *warn, size_t cap)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->cost = plan_cost_defaults();
    if (cap)
        warn[0] = '\0';
    for (int i = 0; i < shim_nsettings; i++) {
        const shim_setting *s = &shim_settings[i];
        read_setting(s, cfg, warn, cap);
        if (s->offset == offsetof(shim_config, config))
            read_calibration(cfg, warn, cap);
    }
    cfg->env_hash = shim_env_hash();
}

uint64_t shim_env_hash(void)
{
    uint64_t h = PLAN_HASH_START;
    for (int i = 0; i < shim_nsettings; i++) {
        const char *name = shim_settings[i].name, *v = getenv(name);
        h = plan_hash_bytes(h, name, strlen(name) + 1);
        h = v ? plan_hash_bytes(h, v, strlen(v) + 1) : plan_hash_bytes(h, "\1unset", 7);
    }
    return h;
}
