/* The table of every HRELAY_* setting the library reads (settings.h): name, type, range,
 * default, hrelay-run's option and a line of help. Adding a setting is adding a row here and a
 * field to shim_config (and a row to the README's Environment table: tests/tools/settings.sh
 * fails until it is there). */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "exec/exec.h"
#include "shim/settings.h"

/* The words of HRELAY_ALGO: "auto", then every family plan_algo_name knows. */
static const char *request_word(int i, int *value)
{
    if (i == 0) {
        *value = SHIM_AUTO;
        return "auto";
    }
    if (i > PLAN_ALGO_COUNT)
        return NULL;
    *value = i - 1;
    return plan_algo_name((plan_algo)(i - 1));
}

/* The words of HRELAY_DUPLEX. */
static const char *duplex_word(int i, int *value)
{
    static const char *const names[] = {"full", "half"};
    static const int values[] = {PLAN_DUPLEX_FULL, PLAN_DUPLEX_HALF};
    if (i < 0 || i > 1)
        return NULL;
    *value = values[i];
    return names[i];
}

/* The words of HRELAY_NODE_SHM. */
static const char *node_shm_word(int i, int *value)
{
    static const char *const names[] = {"0", "1", "auto"};
    static const int values[] = {0, 1, SHIM_NODE_SHM_AUTO};
    if (i < 0 || i > 2)
        return NULL;
    *value = values[i];
    return names[i];
}

#define FIELD(f) offsetof(shim_config, f)

const shim_setting shim_settings[] = {
    {.name = "HRELAY_DISABLE",
     .type = SHIM_SETTING_INT,
     .offset = FIELD(disable),
     .min = 0,
     .max = 1,
     .def = 0,
     .option = "--disable",
     .option_value = "1",
     .help = "1: pure pass-through; nothing is intercepted, planned or reported"},
    {.name = "HRELAY_ALGO",
     .type = SHIM_SETTING_WORD,
     .offset = FIELD(algo),
     .def = SHIM_AUTO,
     .word = request_word,
     .option = "--algo NAME",
     .help = "how calls run: auto chooses per call site and pattern, native is the MPI "
             "library's own algorithm, a family name runs that family"},
    {.name = "HRELAY_DUPLEX",
     .type = SHIM_SETTING_WORD,
     .offset = FIELD(duplex),
     .def = PLAN_DUPLEX_FULL,
     .word = duplex_word,
     .option = "--duplex MODE",
     .help = "the links' model plans obey: full, a rank sends one and receives one message at "
             "a time; half, it sends or receives one"},
    {.name = "HRELAY_NODE_SIZE",
     .type = SHIM_SETTING_INT,
     .offset = FIELD(node_size),
     .min = 1,
     .max = SHIM_NODE_SIZE_MAX,
     .def = SHIM_NODE_AUTO,
     .automatic = 1,
     .option = "--node-size K",
     .help = "the nodes node-level plans schedule: auto, the shared-memory nodes MPI finds; K, "
             "consecutive groups of K ranks of MPI_COMM_WORLD (1: one rank per node)"},
    {.name = "HRELAY_NODE_STEPS",
     .type = SHIM_SETTING_INT,
     .offset = FIELD(node_steps),
     .min = 0,
     .max = 1024,
     .def = SHIM_NODE_STEPS_AUTO,
     .automatic = 1,
     .help = "node-level plans not run in synchronised steps (HRELAY_NODE_SYNC): the steps of "
             "the node plan each rank keeps in flight; auto: "
             "(N - 1) / 4 with N nodes, at least 1 and at most 4; 0: HRELAY_WINDOW operations, "
             "as rank-level plans"},
    {.name = "HRELAY_NODE_SYNC",
     .type = SHIM_SETTING_INT,
     .offset = FIELD(node_sync),
     .min = 0,
     .max = 1,
     .def = SHIM_NODE_SYNC_AUTO,
     .automatic = 1,
     .help = "node-level plans: 1 runs the node steps one at a time, every rank finishing a "
             "step before any starts the next (a barrier between them); 0 keeps "
             "HRELAY_NODE_STEPS in flight; auto: 1 where the barriers are modeled at most 1/8 "
             "of the plan's time"},
    {.name = "HRELAY_RANK_SYNC",
     .type = SHIM_SETTING_INT,
     .offset = FIELD(rank_sync),
     .min = 0,
     .max = 1,
     .def = 0,
     .help = "rank-level plans: 1 runs the plan's steps one at a time, every rank finishing a "
             "step before any starts the next (a barrier between them); 0 keeps HRELAY_WINDOW "
             "operations in flight"},
    {.name = "HRELAY_NODE_JOIN",
     .type = SHIM_SETTING_BYTES,
     .offset = FIELD(node_join),
     .min = 0,
     .def = SHIM_NODE_JOIN_AUTO,
     .automatic = 1,
     .unit = "bytes",
     .help = "node-direct in synchronised steps: consecutive steps whose largest node loads add "
             "up to at most this many bytes run as one, without barriers between them; auto: "
             "16 node step prices; 0: a barrier between every two steps"},
    {.name = "HRELAY_NODE_SHM",
     .type = SHIM_SETTING_WORD,
     .offset = FIELD(node_shm),
     .def = 0,
     .word = node_shm_word,
     .help = "node-aggregate: 1 moves the transfers within a node (the gathers and scatters) "
             "through a shared-memory window of the node (MPI_Win_allocate_shared) instead "
             "of messages, where the node's ranks share memory; 0: messages; auto: both are "
             "measured (under auto, and under the named node-aggregate) and the faster kept"},
    {.name = "HRELAY_VERBOSE",
     .type = SHIM_SETTING_INT,
     .offset = FIELD(verbose),
     .min = 0,
     .max = 2,
     .def = 0,
     .option = "--verbose[=N]",
     .option_value = "1",
     .help = "on stderr of rank 0: 1 the settings, each decision and a summary; 2 also one "
             "line per call"},
    {.name = "HRELAY_MIN_STEP",
     .type = SHIM_SETTING_BYTES,
     .offset = FIELD(min_step),
     .min = 0,
     .def = PLAN_MIN_STEP_AUTO,
     .automatic = 1,
     .unit = "bytes",
     .option = "--min-step BYTES",
     .help = "direct: merge plan steps that move fewer bytes per transfer (auto: "
             "max(32 KiB, bound / 4P); 0: exact plans)"},
    {.name = "HRELAY_WINDOW",
     .type = SHIM_SETTING_INT,
     .offset = FIELD(window),
     .min = 1,
     .max = 1024,
     .def = EXEC_DEFAULT_WINDOW,
     .option = "--window N",
     .help = "point-to-point operations each rank keeps in flight while executing a plan"},
    {.name = "HRELAY_GRAIN",
     .type = SHIM_SETTING_BYTES,
     .offset = FIELD(grain),
     .min = 1,
     .def = 0,
     .def_text = "per call",
     .unit = "bytes",
     .help = "transpose: the unit messages are dealt in (by default one element, or 4 KiB of "
             "whole elements for contiguous types)"},
    {.name = "HRELAY_PACKET",
     .type = SHIM_SETTING_BYTES,
     .offset = FIELD(packet),
     .min = 1,
     .def = SHIM_DEFAULT_PACKET,
     .unit = "bytes",
     .help = "forward: the packet size of the Sanders-Solis-Oba schedule"},
    {.name = "HRELAY_MAX_STAGING",
     .type = SHIM_SETTING_BYTES,
     .offset = FIELD(max_staging),
     .min = 0,
     .def = SHIM_DEFAULT_MAX_STAGING,
     .unit = "bytes",
     .help = "a plan that needs more staging (forwarded data held between steps) on some rank "
             "is not used"},
    {.name = "HRELAY_MAX_PLAN",
     .type = SHIM_SETTING_BYTES,
     .offset = FIELD(max_plan),
     .min = 1,
     .def = SHIM_DEFAULT_MAX_PLAN,
     .unit = "segments",
     .help = "planning fails rather than build a plan of more segments (24 bytes each)"},
    {.name = "HRELAY_CACHE_SIZE",
     .type = SHIM_SETTING_INT,
     .offset = FIELD(cache_size),
     .min = 1,
     .max = SHIM_CACHE_MAX,
     .def = SHIM_DEFAULT_CACHE,
     .help = "patterns (with their decisions and plans) cached per communicator"},
    {.name = "HRELAY_TUNE",
     .type = SHIM_SETTING_INT,
     .offset = FIELD(tune),
     .min = 0,
     .max = 100,
     .def = SHIM_DEFAULT_TUNE,
     .help = "auto: measured calls per candidate in the first round of measurements (the "
             "second measures 2 HRELAY_TUNE + 1; the first measures MPI's algorithm that often "
             "where its fastest call beats the plan about to be chosen); 0 decides by the "
             "model alone, without learning from measured calls"},
    {.name = "HRELAY_TUNE_MARGIN",
     .type = SHIM_SETTING_INT,
     .offset = FIELD(margin),
     .min = 0,
     .max = 10000,
     .def = SHIM_DEFAULT_MARGIN,
     .unit = "percent",
     .help = "auto: candidates modeled at most this much slower than the best are measured"},
    {.name = "HRELAY_EXPLORE_BUDGET",
     .type = SHIM_SETTING_INT,
     .offset = FIELD(budget),
     .min = 0,
     .max = 100,
     .def = SHIM_DEFAULT_BUDGET,
     .unit = "percent",
     .help = "auto: what trying candidates that may lose may cost, in percent of a call "
             "site's time so far; 0 never explores"},
    {.name = "HRELAY_RECHECK",
     .type = SHIM_SETTING_INT,
     .offset = FIELD(recheck),
     .min = 0,
     .max = 1 << 20,
     .def = SHIM_DEFAULT_RECHECK,
     .help = "the longest run of calls left to MPI without checking the pattern; 0 checks "
             "every call"},
    {.name = "HRELAY_INHERIT",
     .type = SHIM_SETTING_INT,
     .offset = FIELD(inherit),
     .min = 0,
     .max = 1 << 20,
     .def = SHIM_DEFAULT_INHERIT,
     .help = "auto: communicators of one group (MPI_COMM_WORLD's duplicates, a repeated "
             "split's halves) that start with the run of calls left to MPI that the last one's "
             "record creation decided (too small to explore, or the same call settled before), "
             "before one agrees again; 0 never"},
    {.name = "HRELAY_SITE_DEPTH",
     .type = SHIM_SETTING_INT,
     .offset = FIELD(site_depth),
     .min = 1,
     .max = SHIM_SITE_FRAMES,
     .def = 1,
     .help = "frames that name a call site in the report (more than 1 costs an unwinding per "
             "call)"},
    {.name = "HRELAY_CONFIG",
     .type = SHIM_SETTING_PATH,
     .offset = FIELD(config),
     .unit = "a file path",
     .option = "--config FILE",
     .help = "the calibration file hrelay-calibrate writes; without it, built-in costs"},
    {.name = "HRELAY_ALPHA",
     .type = SHIM_SETTING_SECONDS,
     .offset = FIELD(cost.alpha_ps),
     .unit = "seconds",
     .scale = 1e12,
     .max_s = 1,
     .help = "the cost model's latency per message (overrides the calibration)"},
    {.name = "HRELAY_BETA",
     .type = SHIM_SETTING_SECONDS,
     .offset = FIELD(cost.beta_fs),
     .unit = "seconds per byte",
     .scale = 1e15,
     .max_s = 1e-3,
     .help = "the cost model's time per byte (overrides the calibration)"},
    {.name = "HRELAY_REPORT",
     .type = SHIM_SETTING_PATH,
     .offset = FIELD(report),
     .unit = "a file path",
     .option = "--report FILE",
     .help = "rank 0 writes the JSON report there at MPI_Finalize"},
    {.name = "HRELAY_DUMP",
     .type = SHIM_SETTING_PATH,
     .offset = FIELD(dump),
     .unit = "a directory",
     .option = "--dump DIR",
     .help = "rank 0 of each communicator writes every distinct plan there once, as "
             "plan-<hash>.json (the directory is created if missing)"},
};

const int shim_nsettings = (int)(sizeof shim_settings / sizeof shim_settings[0]);

/* Appends the printf-style text to buf (cap bytes, NUL included) at *len, truncating. */
__attribute__((format(printf, 4, 5))) static void put(char *buf, size_t cap, size_t *len,
                                                      const char *fmt, ...)
{
    if (*len + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    if (n > 0)
        *len += (size_t)n < cap - *len ? (size_t)n : cap - *len - 1;
}

/* Appends the n items of a list as "a or b", "a, b or c", or "one of a, b, c, d". */
static void put_list(char *buf, size_t cap, size_t *len, const char *const *item, int n)
{
    if (n > 3)
        put(buf, cap, len, "one of ");
    for (int i = 0; i < n; i++)
        put(buf, cap, len, "%s%s", i == 0 ? "" : n <= 3 && i == n - 1 ? " or " : ", ", item[i]);
}

char *shim_setting_expect(const shim_setting *s, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    switch (s->type) {
    case SHIM_SETTING_INT:
        if (s->automatic)
            put(buf, cap, &len, "auto or ");
        if (s->max - s->min <= 2) {
            char num[3][24];
            const char *item[3];
            int n = 0;
            for (int64_t v = s->min; v <= s->max; v++, n++) {
                snprintf(num[n], sizeof num[n], "%lld", (long long)v);
                item[n] = num[n];
            }
            put_list(buf, cap, &len, item, n);
        } else {
            put(buf, cap, &len, "an integer in %lld..%lld", (long long)s->min,
                (long long)s->max);
        }
        break;
    case SHIM_SETTING_BYTES:
        if (s->automatic)
            put(buf, cap, &len, "auto or a byte count");
        else
            put(buf, cap, &len, "a byte count of at least %lld", (long long)s->min);
        put(buf, cap, &len, " (digits, optional K/M/G/T)");
        break;
    case SHIM_SETTING_WORD: {
        const char *item[PLAN_ALGO_COUNT + 2];
        int n = 0, value;
        while (n < (int)(sizeof item / sizeof item[0]) && (item[n] = s->word(n, &value)))
            n++;
        put_list(buf, cap, &len, item, n);
        break;
    }
    case SHIM_SETTING_PATH:
        put(buf, cap, &len, "a path shorter than %d bytes", SHIM_PATH_MAX);
        break;
    case SHIM_SETTING_SECONDS:
        put(buf, cap, &len, "a number of seconds in (0, %g]", s->max_s);
        break;
    }
    return buf;
}

/* The text of a byte count with the largest K/M/G/T suffix that keeps it exact ("64K"). */
static void bytes_text(uint64_t v, char *buf, size_t cap)
{
    static const char suffix[] = "KMGT";
    int k = 0;
    while (k < 4 && v >= (uint64_t)1 << (10 * (k + 1)) &&
           v % ((uint64_t)1 << (10 * (k + 1))) == 0)
        k++;
    if (k)
        snprintf(buf, cap, "%llu%c", (unsigned long long)(v >> (10 * k)), suffix[k - 1]);
    else
        snprintf(buf, cap, "%llu", (unsigned long long)v);
}

char *shim_setting_value(const shim_setting *s, const shim_config *cfg, char *buf, size_t cap)
{
    const char *field = (const char *)cfg + s->offset;
    int value;
    buf[0] = '\0';
    switch (s->type) {
    case SHIM_SETTING_INT:
        if (s->automatic && *(const int *)field == (int)s->def)
            snprintf(buf, cap, "auto");
        else
            snprintf(buf, cap, "%d", *(const int *)field);
        break;
    case SHIM_SETTING_BYTES: {
        uint64_t v = *(const uint64_t *)field;
        if (s->automatic && v == s->def)
            snprintf(buf, cap, "auto");
        else if (s->def_text && v == s->def)
            snprintf(buf, cap, "%s", s->def_text);
        else
            bytes_text(v, buf, cap);
        break;
    }
    case SHIM_SETTING_WORD:
        for (int i = 0; s->word(i, &value); i++)
            if (value == *(const int *)field)
                snprintf(buf, cap, "%s", s->word(i, &value));
        break;
    case SHIM_SETTING_PATH:
        snprintf(buf, cap, "%s", field);
        break;
    case SHIM_SETTING_SECONDS:
        snprintf(buf, cap, "%g", (double)*(const uint64_t *)field / s->scale);
        break;
    }
    return buf;
}

int shim_request_parse(const char *name, int *request)
{
    int value;
    const char *w;
    for (int i = 0; (w = request_word(i, &value)); i++)
        if (!strcmp(w, name)) {
            *request = value;
            return 0;
        }
    return -1;
}

const char *shim_request_name(int request)
{
    return request == SHIM_AUTO ? "auto" : plan_algo_name((plan_algo)request);
}
