/* The configuration: every HRELAY_* setting the library reads, in one table (settings.c), and
 * the configuration parsed from them (config.c) on rank 0 at MPI_Init and agreed by every rank.
 * The table is the one source of the parser, the divergence hash, hrelay-run's options and
 * help, the README's tables (checked by tests/tools/settings.sh) and the list of variables the
 * tests clear (all through src/shim/hrelay-settings, settings_doc.c). No MPI. */
#ifndef HRELAY_SHIM_SETTINGS_H
#define HRELAY_SHIM_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

#include "plan/cost.h"
#include "plan/plan.h"

/* Longest path setting (HRELAY_REPORT, HRELAY_DUMP, HRELAY_CONFIG), NUL included. */
enum { SHIM_PATH_MAX = 1024 };

/* A request for how to run calls: a plan_algo value (native or a family), or SHIM_AUTO (the
 * cost model chooses). SHIM_REQUEST_ENV in a communicator record: what HRELAY_ALGO says. */
enum { SHIM_AUTO = PLAN_ALGO_COUNT, SHIM_REQUEST_ENV = -1 };

/* Parses an HRELAY_ALGO value ("auto" or a family name) into a request. Returns 0, or -1. */
int shim_request_parse(const char *name, int *request);

/* The name of a request: "auto" or the family's name. */
const char *shim_request_name(int request);

/* Packet size of the forwarding family when HRELAY_PACKET is not set. */
#define SHIM_DEFAULT_PACKET ((uint64_t)64 << 10)

/* Staging limit per rank when HRELAY_MAX_STAGING is not set. */
#define SHIM_DEFAULT_MAX_STAGING ((uint64_t)256 << 20)

/* Largest plan (in segments, over all ranks) hrelay builds when HRELAY_MAX_PLAN is not set: a
 * segment is 24 bytes, so planning memory stays below about 200 MiB. */
#define SHIM_DEFAULT_MAX_PLAN ((uint64_t)8 << 20)

/* Defaults and limits of the integer settings. */
enum {
    SHIM_DEFAULT_CACHE = 16,      /* HRELAY_CACHE_SIZE: patterns cached per communicator */
    SHIM_CACHE_MAX = 61,          /* one bit each in the agreement (agree.h) */
    SHIM_DEFAULT_TUNE = 3,        /* HRELAY_TUNE: measured calls per explored candidate */
    SHIM_DEFAULT_MARGIN = 50,     /* HRELAY_TUNE_MARGIN: percent above the best model explored */
    SHIM_DEFAULT_BUDGET = 2,      /* HRELAY_EXPLORE_BUDGET: percent of a site's time */
    SHIM_DEFAULT_RECHECK = 256,   /* HRELAY_RECHECK: longest run of unchecked native calls */
    SHIM_DEFAULT_INHERIT = 3,     /* HRELAY_INHERIT: communicators of a group that start with
                                     the run an earlier one's first agreement started
                                     (lineage.h) */
    SHIM_SITE_FRAMES = 8,         /* HRELAY_SITE_DEPTH: at most this many frames per call site */
    SHIM_NODE_AUTO = 0,           /* HRELAY_NODE_SIZE=auto: the nodes MPI_Comm_split_type finds */
    SHIM_NODE_SIZE_MAX = 1 << 20, /* HRELAY_NODE_SIZE: the largest K */
    SHIM_NODE_STEPS_AUTO = -1,    /* HRELAY_NODE_STEPS=auto: plan_topo_steps_default of the
                                   communicator's nodes (measured: docs/algorithms.md,
                                   "Node-level families in the shim") */
    SHIM_NODE_SYNC_AUTO = -1,     /* HRELAY_NODE_SYNC=auto: where the barriers are cheap enough
                                   (shim_topo_sync) */
    SHIM_NODE_SHM_AUTO = -1,      /* HRELAY_NODE_SHM=auto: node-aggregate through the node's
                                   window is a variant auto measures (PLAN_VARIANT_NODE_WINDOW) */
    SHIM_NODE_SYNC_SHARE = 8,     /* HRELAY_NODE_SYNC=auto: a node plan's barriers may cost up
                                   to 1 / 8 of its modeled time */
    SHIM_NODE_JOIN_STEPS = 16     /* HRELAY_NODE_JOIN=auto: node step prices (shim_topo_step_bytes)
                                   a group of steps without barriers may carry (measured:
                                   docs/performance, "Light node steps without barriers") */
};

/* HRELAY_NODE_JOIN=auto (shim_topo_join_bytes). */
#define SHIM_NODE_JOIN_AUTO UINT64_MAX

/* Settings from the HRELAY_* environment and HRELAY_CONFIG, read on rank 0 and broadcast
 * (plain bytes). */
typedef struct shim_config {
    int disable;                /* HRELAY_DISABLE=1: pure pass-through */
    int algo;                   /* HRELAY_ALGO: a request (SHIM_AUTO, native or a family) */
    int verbose;                /* HRELAY_VERBOSE: 0, 1, 2 */
    int window;                 /* HRELAY_WINDOW: operations in flight in exec */
    uint64_t min_step;          /* HRELAY_MIN_STEP: plan_options.min_step_bytes (or AUTO) */
    uint64_t grain;             /* HRELAY_GRAIN: transpose grain in bytes; 0 = chosen per call */
    uint64_t packet;            /* HRELAY_PACKET: forward packet size in bytes */
    uint64_t max_staging;       /* HRELAY_MAX_STAGING: staging bytes a plan may need per rank */
    uint64_t max_plan;          /* HRELAY_MAX_PLAN: segments of the largest plan built */
    int cache_size;             /* HRELAY_CACHE_SIZE: patterns cached per communicator */
    int tune;                   /* HRELAY_TUNE: measured calls per explored candidate (0: off) */
    int margin;                 /* HRELAY_TUNE_MARGIN: percent */
    int budget;                 /* HRELAY_EXPLORE_BUDGET: percent */
    int recheck;                /* HRELAY_RECHECK: longest run of unchecked native calls */
    int inherit;                /* HRELAY_INHERIT: communicators inheriting a first run */
    int site_depth;             /* HRELAY_SITE_DEPTH: frames that name a call site */
    int duplex;                 /* HRELAY_DUPLEX: a plan_duplex, the links' model plans obey */
    int node_size;              /* HRELAY_NODE_SIZE: SHIM_NODE_AUTO or K ranks per node */
    int node_steps;             /* HRELAY_NODE_STEPS: node steps in flight (0: HRELAY_WINDOW;
                                   SHIM_NODE_STEPS_AUTO: by the number of nodes) */
    int node_sync;              /* HRELAY_NODE_SYNC: 0, 1, or SHIM_NODE_SYNC_AUTO */
    int rank_sync;              /* HRELAY_RANK_SYNC: 0 or 1 */
    int node_shm;               /* HRELAY_NODE_SHM: 0, 1 or SHIM_NODE_SHM_AUTO */
    uint64_t node_join;         /* HRELAY_NODE_JOIN: bytes, or SHIM_NODE_JOIN_AUTO */
    plan_cost_params cost;      /* HRELAY_CONFIG, HRELAY_ALPHA, HRELAY_BETA, built-in defaults */
    int calibrated;             /* cost came from HRELAY_CONFIG */
    char report[SHIM_PATH_MAX]; /* HRELAY_REPORT, "" for none */
    char dump[SHIM_PATH_MAX];   /* HRELAY_DUMP, "" for none */
    char config[SHIM_PATH_MAX]; /* HRELAY_CONFIG, "" for none */
    uint64_t env_hash;          /* hash of the reading rank's HRELAY_* variables */
} shim_config;

/* Fills cfg from the environment (and the HRELAY_CONFIG file); every invalid value is replaced
 * by its default and described by one line appended to warn (NUL-terminated, at most cap
 * bytes). Never fails. */
void shim_config_from_env(shim_config *cfg, char *warn, size_t cap);

/* A hash of this process's HRELAY_* settings (names and values), to detect divergence. */
uint64_t shim_env_hash(void);

/* Parses a byte count: decimal digits with an optional K, M, G or T suffix (powers of 1024,
 * either case, optionally followed by "B" or "iB"). Returns 0 and sets *out, or -1. */
int shim_parse_bytes(const char *s, uint64_t *out);

/* ---- the table of settings (settings.c) ---- */

/* How a setting's value reads. */
typedef enum shim_setting_type {
    SHIM_SETTING_INT,     /* a decimal integer in [min, max], or with `automatic` also "auto"
                             (the default, which may lie outside the range); the field is an
                             int */
    SHIM_SETTING_BYTES,   /* a byte count (shim_parse_bytes) of at least min, or with
                             `automatic` also "auto" (the default); the field is a uint64_t */
    SHIM_SETTING_WORD,    /* one of the words `word` lists; the field is an int, the word's value */
    SHIM_SETTING_PATH,    /* a path of fewer than SHIM_PATH_MAX bytes; the field is a char array */
    SHIM_SETTING_SECONDS  /* a number of seconds in (0, max_s]; the field, a uint64_t, gets
                             seconds * scale; unset or invalid, it keeps the cost model's value */
} shim_setting_type;

/* One HRELAY_* setting. */
typedef struct shim_setting {
    const char *name;       /* the environment variable, "HRELAY_WINDOW" */
    shim_setting_type type;
    size_t offset;          /* of its field in shim_config */
    int64_t min, max;       /* INT: the range; BYTES: the smallest value */
    uint64_t def;           /* INT, BYTES: the default; WORD: the default word's value */
    int automatic;          /* INT, BYTES: "auto" is accepted and means the default */
    const char *def_text;   /* BYTES: a default that is not a byte count ("per call"), or NULL */
    const char *unit;       /* what a value is: "bytes", "percent", "a file path", ... or NULL */
    const char *(*word)(int i, int *value); /* WORD: the i-th word and its value, NULL past the
                                               last */
    double scale, max_s;    /* SECONDS: the field gets seconds * scale; at most max_s seconds */
    const char *option;     /* hrelay-run's option, "--window N" ("--verbose[=N]": the value is
                               optional; "--disable": none), or NULL */
    const char *option_value; /* the value an option given without one sets ("1"), or NULL */
    const char *help;       /* one line: what it does */
} shim_setting;

/* The settings, in the order they are read (HRELAY_CONFIG, whose file config.c reads as soon
 * as the setting is read, before HRELAY_ALPHA and HRELAY_BETA, which override its values);
 * shim_nsettings of them. */
extern const shim_setting shim_settings[];
extern const int shim_nsettings;

/* What a valid value of s is, as the end of "X is not ...": "0, 1 or 2", "an integer in
 * 1..1024", "one of auto, native, ...", "a byte count of at least 1 (digits, optional
 * K/M/G/T)", "a number of seconds in (0, 1]", "a path shorter than 1024 bytes". Writes at most
 * cap bytes (NUL included) into buf and returns buf. */
char *shim_setting_expect(const shim_setting *s, char *buf, size_t cap);

/* The text of a value of s's field in cfg, as a user would write it: "32", "full", "64K",
 * "auto", "5e-06" (seconds), a path or "" (unset). Writes into buf as shim_setting_expect. */
char *shim_setting_value(const shim_setting *s, const shim_config *cfg, char *buf, size_t cap);

#endif
