/* shim/ internals: configuration, process state, communicator records, call descriptors,
 * statistics, report and plan dumps. The MPI_* entry points live in init.c and alltoallv.c. */
#ifndef HRELAY_SHIM_SHIM_H
#define HRELAY_SHIM_SHIM_H

#include <mpi.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "exec/exec.h"
#include "plan/local.h"
#include "plan/plan.h"

/* Marks a function exported from libhrelay.so (everything else is hidden). */
#define SHIM_EXPORT __attribute__((visibility("default")))

enum { SHIM_PATH_MAX = 1024 };

/* Cost model used for "modeled_native_s" and the model block of dumped plans (the DESIGN.md
 * example values; calibration is a later issue). */
#define SHIM_ALPHA_S 5e-6
#define SHIM_BETA_S_PER_BYTE 1e-9

/* Tag of plan messages on a private communicator. */
enum { SHIM_TAG_PLAN = 1 };

/* ---- configuration (config.c) ---- */

/* Packet size of the forwarding family when HRELAY_PACKET is not set. */
#define SHIM_DEFAULT_PACKET ((uint64_t)64 << 10)

/* Staging limit per rank when HRELAY_MAX_STAGING is not set. */
#define SHIM_DEFAULT_MAX_STAGING ((uint64_t)256 << 20)

/* Transpose grain for dense types when HRELAY_GRAIN is not set: this many bytes, rounded down
 * to a multiple of the type size (at least one element). */
#define SHIM_DENSE_GRAIN ((uint64_t)4096)

/* Settings from the HRELAY_* environment, read on rank 0 and broadcast (plain bytes). */
typedef struct shim_config {
    int disable;              /* HRELAY_DISABLE=1: pure pass-through */
    plan_algo algo;           /* HRELAY_ALGO: native or any schedule family */
    plan_duplex duplex;       /* HRELAY_DUPLEX: the model plans obey (plan_options.duplex) */
    int verbose;              /* HRELAY_VERBOSE: 0, 1, 2 */
    int window;               /* HRELAY_WINDOW: operations in flight in exec */
    uint64_t min_step;        /* HRELAY_MIN_STEP: plan_direct_opts.min_step_bytes */
    uint64_t grain;           /* HRELAY_GRAIN: transpose grain in bytes; 0 = chosen per call */
    uint64_t packet;          /* HRELAY_PACKET: forward packet size in bytes */
    uint64_t max_staging;     /* HRELAY_MAX_STAGING: staging bytes a plan may need per rank */
    char report[SHIM_PATH_MAX]; /* HRELAY_REPORT, "" for none */
    char dump[SHIM_PATH_MAX];   /* HRELAY_DUMP, "" for none */
    uint64_t env_hash;        /* hash of the reading rank's HRELAY_* variables */
} shim_config;

/* Fills cfg from the environment; every invalid value is replaced by its default and described
 * by one line appended to warn (NUL-terminated, at most cap bytes). Never fails. */
void shim_config_from_env(shim_config *cfg, char *warn, size_t cap);

/* A hash of this process's HRELAY_* variables (names and values), to detect divergence. */
uint64_t shim_env_hash(void);

/* Parses a byte count: decimal digits with an optional K, M, G or T suffix (powers of 1024,
 * either case, optionally followed by "B" or "iB"). Returns 0 and sets *out, or -1. */
int shim_parse_bytes(const char *s, uint64_t *out);

/* ---- statistics (stats.c) ---- */

/* Accumulated over the calls of one call site (for now: all calls, site "unknown"). */
typedef struct shim_stats {
    uint64_t calls;
    uint64_t bytes;                       /* bytes this rank sent, self-copy included */
    uint64_t algo_calls[PLAN_ALGO_COUNT]; /* calls by the family that actually ran them */
    uint64_t plans_computed;
    uint64_t cache_hits;
    double time_s;                        /* wall time inside the intercepted calls */
    double modeled_native_s;              /* shim_model_native of the planned calls */
} shim_stats;

/* The process-wide accumulator, created at MPI_Init and freed at MPI_Finalize. Mutable only
 * under lock. */
typedef struct shim_world {
    pthread_mutex_t lock;
    shim_stats stats;
    uint64_t *dumped; /* hashes of plans already written to HRELAY_DUMP */
    size_t ndumped, cap_dumped;
    int dump_warned;
} shim_world;

/* Adds one completed call to w's statistics (thread-safe). */
void shim_stats_add(shim_world *w, plan_algo algo, uint64_t bytes, double time_s,
                    double modeled_native_s, int planned);

/* Collective over MPI_COMM_WORLD: merges every rank's statistics into *out on rank 0 (calls,
 * algorithms, plans and modeled time from the rank with the most calls, lowest rank on ties;
 * bytes summed over ranks; time the maximum over ranks). Returns an MPI error code. */
int shim_stats_merge(shim_world *w, shim_stats *out);

/* Modeled time of MPICH's own exchange for m: rounds r = 1 .. p-1 in which every rank i sends
 * to (i + r) mod p, each round costing alpha + beta * its largest message (rounds without data
 * cost nothing). Deterministic. */
double shim_model_native(const plan_matrix *m);

/* ---- process state (init.c) ---- */

/* Set by MPI_Init / MPI_Init_thread, read-only until MPI_Finalize. */
typedef struct shim_state {
    int active; /* hrelay intercepts (initialised, not disabled) */
    shim_config cfg;
    int world_rank, world_size;
    int keyval; /* communicator records */
    shim_world *world;
} shim_state;

extern shim_state shim_g;

/* Prints "hrelay: " + message + newline to stderr if this is rank 0 of MPI_COMM_WORLD and
 * HRELAY_VERBOSE >= level. */
void shim_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "hrelay: warning: " + message + newline to stderr (on the calling rank). */
void shim_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- communicator records (comm_record.c) ---- */

/* hrelay's state for one user intracommunicator, an attribute of it. */
typedef struct shim_comm {
    MPI_Comm priv;      /* private duplicate (errors return) for all of hrelay's traffic */
    int p, rank;
    uint64_t *gather;   /* p * (p + 2) words: gathered rows, then the p x p matrix */
    MPI_Count *scount, *rcount; /* normalised counts of the current call */
    MPI_Aint *sdispl, *rdispl;  /* normalised displacements in bytes */
} shim_comm;

/* Creates the attribute key of communicator records. Returns an MPI error code. */
int shim_comm_keyval_create(int *keyval);

/* The record of comm, creating it on first use: collective over comm (duplicates it, then
 * agrees that every rank got its memory). NULL on every rank if it cannot be created. */
shim_comm *shim_comm_get(MPI_Comm comm);

/* Frees the record of MPI_COMM_WORLD, if any (at MPI_Finalize). */
void shim_comm_release_world(void);

/* ---- calls (alltoallv.c, exchange.c) ---- */

typedef enum shim_kind {
    SHIM_ALLTOALL,
    SHIM_ALLTOALLV,
    SHIM_ALLTOALL_C,
    SHIM_ALLTOALLV_C
} shim_kind;

/* The arguments of any intercepted call, unchanged (for pass-through) with accessors that
 * normalise them (large counts, displacements in elements). */
typedef struct shim_args {
    shim_kind kind;
    const void *sendbuf;
    void *recvbuf;
    MPI_Datatype stype, rtype;
    MPI_Count scount, rcount;          /* SHIM_ALLTOALL(_C) */
    const int *scounts, *sdispls;      /* SHIM_ALLTOALLV */
    const int *rcounts, *rdispls;
    const MPI_Count *scounts_c, *rcounts_c; /* SHIM_ALLTOALLV_C */
    const MPI_Aint *sdispls_c, *rdispls_c;
    MPI_Comm comm;
} shim_args;

/* Calls the PMPI function matching a->kind with the original arguments. */
int shim_args_pmpi(const shim_args *a);

/* Element count of the message to (send, recv = 0) or from (recv = 1) peer j. */
MPI_Count shim_args_count(const shim_args *a, int recv, int j);

/* Displacement, in elements, of that message. */
MPI_Aint shim_args_displ(const shim_args *a, int recv, int j);

/* "MPI_Alltoall", "MPI_Alltoallv", ... */
const char *shim_args_name(const shim_args *a);

/* Runs an intercepted call: pass-through, native with accounting, or planned and executed by
 * hrelay. Returns what the MPI call returns. */
int shim_alltoall_any(const shim_args *a);

/* ---- planning one call (prepare.c) ---- */

/* What a planned call allocates: the plan, this rank's view of it (plan and exec), and the
 * packed copy of the data to send under MPI_IN_PLACE. */
typedef struct shim_call {
    plan pl;
    plan_local lo;
    exec_view *view;
    void *stage;
} shim_call;

/* The transpose grain of a call: cfg_grain if not 0; else, from the facts gathered over all
 * ranks (size_gcd: gcd of the send and receive type sizes; dense: every type is dense), one
 * element (size_gcd) for types that are not dense, and for dense types SHIM_DENSE_GRAIN rounded
 * down to a multiple of size_gcd (at least size_gcd). 1 when no type has bytes. */
uint64_t shim_grain(uint64_t cfg_grain, uint64_t size_gcd, int dense);

/* Plans m with family algo and options o, extracts this rank's view and creates its exec view
 * for x; allocates the view's staging only if it is at most max_staging (a view over the limit
 * is kept unallocated so that its size can be agreed on first). Returns 0, or -1 if anything
 * failed (the family does not cover m - walker-otto only covers cyclic(r) -> cyclic(Kr)
 * redistributions -, out of memory, a plan exec cannot run); cs keeps what it allocated
 * either way (shim_call_free). */
int shim_call_plan(shim_call *cs, plan_algo algo, const plan_options *o, const plan_matrix *m,
                   const exec_exchange *x, uint64_t max_staging);

/* Releases the plan and the views of cs (not the MPI_IN_PLACE copy), to plan again. */
void shim_call_release_plan(shim_call *cs);

/* Releases everything cs holds; cs may be zero-initialised. */
void shim_call_free(shim_call *cs);

/* ---- plan dumps (dump.c) ---- */

/* Writes pl (planned from m) to HRELAY_DUMP/plan-<hash>.json unless this process already wrote
 * a plan with the same hash. Returns 0, or -1 with errno set (directory or write failure). */
int shim_dump_plan(shim_world *w, const char *dir, const plan *pl, const plan_matrix *m);

/* ---- report (report.c) ---- */

/* Writes the JSON report (DESIGN.md "Report") to path. Returns 0, or -1 with errno set. */
int shim_report_write(const char *path, const shim_config *cfg, const shim_stats *merged,
                      int ranks);

#endif
