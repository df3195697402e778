/* shim/ internals: configuration, process state, communicator records with their plan cache
 * and call sites, call descriptors, decisions, statistics, report and plan dumps. The MPI_*
 * entry points live in init.c and alltoallv.c; the call flow in exchange.c. */
#ifndef HRELAY_SHIM_SHIM_H
#define HRELAY_SHIM_SHIM_H

#include <mpi.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "exec/exec.h"
#include "plan/choose.h"
#include "plan/cost.h"
#include "plan/local.h"
#include "plan/plan.h"

/* Marks a function exported from libhrelay.so (everything else is hidden). */
#define SHIM_EXPORT __attribute__((visibility("default")))

enum { SHIM_PATH_MAX = 1024 };

/* Tag of plan messages on a private communicator. */
enum { SHIM_TAG_PLAN = 1 };

/* ---- configuration (config.c, control.c) ---- */

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

/* Transpose grain for dense types when HRELAY_GRAIN is not set: this many bytes, rounded down
 * to a multiple of the type size (at least one element). */
#define SHIM_DEFAULT_GRAIN ((uint64_t)4096)

/* Largest plan (in segments, over all ranks) hrelay builds when HRELAY_MAX_PLAN is not set: a
 * segment is 24 bytes, so planning memory stays below about 200 MiB. */
#define SHIM_DEFAULT_MAX_PLAN ((uint64_t)8 << 20)

/* Defaults and limits of the plan cache and of the decision. */
enum {
    SHIM_DEFAULT_CACHE = 16, /* HRELAY_CACHE_SIZE: patterns cached per communicator */
    SHIM_CACHE_MAX = 61,     /* one bit each in the agreement word (bits 0..60) */
    SHIM_DEFAULT_TUNE = 3,   /* HRELAY_TUNE: measured calls per explored candidate */
    SHIM_DEFAULT_MARGIN = 50, /* HRELAY_TUNE_MARGIN: percent above the best model explored */
    SHIM_DEFAULT_SLACK = 50,  /* HRELAY_TUNE_SLACK: microseconds above the best model explored */
    SHIM_DEFAULT_RECHECK = 256, /* HRELAY_RECHECK: longest run of unchecked native calls */
    SHIM_QUIET_FIRST = 8,    /* the first run of unchecked native calls */
    SHIM_QUIET_AFTER = 4,    /* agreed calls without a plan before native runs unchecked */
    SHIM_SITE_FRAMES = 8,    /* HRELAY_SITE_DEPTH: at most this many frames per call site */
    SHIM_SAMPLE = 16,        /* unchecked calls: time and bytes measured on one in this many */
    SHIM_REMEASURE = 64,     /* calls after a pattern's first before its candidates are
                                measured a second time */
    SHIM_MODEL_SAFETY = 10   /* percent a plan must be modeled faster than native to run
                                before anything is measured */
};

/* Settings from the HRELAY_* environment and HRELAY_CONFIG, read on rank 0 and broadcast
 * (plain bytes). */
typedef struct shim_config {
    int disable;              /* HRELAY_DISABLE=1: pure pass-through */
    int algo;                 /* HRELAY_ALGO: a request (SHIM_AUTO, native or a family) */
    int verbose;              /* HRELAY_VERBOSE: 0, 1, 2 */
    int window;               /* HRELAY_WINDOW: operations in flight in exec */
    uint64_t min_step;        /* HRELAY_MIN_STEP: plan_options.min_step_bytes (or AUTO) */
    uint64_t grain;           /* HRELAY_GRAIN: transpose grain in bytes; 0 = chosen per call */
    uint64_t packet;          /* HRELAY_PACKET: forward packet size in bytes */
    uint64_t max_staging;     /* HRELAY_MAX_STAGING: staging bytes a plan may need per rank */
    uint64_t max_plan;        /* HRELAY_MAX_PLAN: segments of the largest plan built */
    int cache_size;           /* HRELAY_CACHE_SIZE: patterns cached per communicator */
    int tune;                 /* HRELAY_TUNE: measured calls per explored candidate (0: off) */
    int margin;               /* HRELAY_TUNE_MARGIN: percent */
    int slack_us;             /* HRELAY_TUNE_SLACK: microseconds */
    int recheck;              /* HRELAY_RECHECK: longest run of unchecked native calls */
    int site_depth;           /* HRELAY_SITE_DEPTH: frames that name a call site */
    plan_duplex duplex;       /* HRELAY_DUPLEX: the links' model, which plans obey */
    plan_cost_params cost;    /* HRELAY_CONFIG, HRELAY_ALPHA, HRELAY_BETA, built-in defaults */
    int calibrated;           /* cost came from HRELAY_CONFIG */
    char report[SHIM_PATH_MAX]; /* HRELAY_REPORT, "" for none */
    char dump[SHIM_PATH_MAX];   /* HRELAY_DUMP, "" for none */
    char config[SHIM_PATH_MAX]; /* HRELAY_CONFIG, "" for none */
    uint64_t env_hash;        /* hash of the reading rank's HRELAY_* variables */
} shim_config;

/* Fills cfg from the environment (and the HRELAY_CONFIG file); every invalid value is replaced
 * by its default and described by one line appended to warn (NUL-terminated, at most cap
 * bytes). Never fails. */
void shim_config_from_env(shim_config *cfg, char *warn, size_t cap);

/* A hash of this process's HRELAY_* variables (names and values), to detect divergence. */
uint64_t shim_env_hash(void);

/* Parses a byte count: decimal digits with an optional K, M, G or T suffix (powers of 1024,
 * either case, optionally followed by "B" or "iB"). Returns 0 and sets *out, or -1. */
int shim_parse_bytes(const char *s, uint64_t *out);

/* ---- time (clock.c) ---- */

/* A cheap monotonic tick counter (the TSC where it is invariant, else nanoseconds). */
uint64_t shim_ticks(void);

/* Calibrates shim_ticks against the clock (once, at MPI_Init; takes about 2 ms). */
void shim_clock_init(void);

/* Seconds in a number of ticks. */
double shim_ticks_seconds(uint64_t ticks);

/* ---- statistics (stats.c) ---- */

/* Accumulated over the calls of one call site on one rank. */
typedef struct shim_stats {
    uint64_t calls;
    uint64_t bytes;                       /* bytes this rank sent, self-copy included */
    uint64_t algo_calls[PLAN_ALGO_COUNT]; /* calls by the family that actually ran them */
    uint64_t plans_computed;              /* plans built for this site's patterns */
    uint64_t cache_hits;                  /* calls that reused a cached decision or plan */
    uint64_t unchecked;                   /* of those, native calls run without agreement */
    double time_s;                        /* wall time inside the intercepted calls */
    double modeled_native_s;              /* the model's native time of the agreed calls */
    double native_s;                      /* estimated native time of all calls (see report) */
} shim_stats;

/* Adds b into a. */
void shim_stats_fold(shim_stats *a, const shim_stats *b);

/* ---- call sites (site.c) ---- */

/* One call site of one rank: the return addresses that name it, and its statistics. */
typedef struct shim_site {
    uintptr_t key;                         /* hash of the frames (the frame itself if one) */
    int nframes;
    uintptr_t frames[SHIM_SITE_FRAMES];    /* call addresses, innermost first */
    shim_stats st;
} shim_site;

/* The sites of one communicator (or, merged, of the process): a growing array with an index
 * from the caller's return address (the site of most calls is found without unwinding). */
typedef struct shim_sites {
    shim_site *site;
    size_t n, cap;
    struct shim_ra *ra; /* direct-mapped index: return address -> site (or "unwind") */
    uintptr_t last_ra;  /* the last return address that named a site without unwinding */
    size_t last_site;   /* and that site's index */
} shim_sites;

/* The site of a call whose entry point was called from return address ra, created on first
 * use; NULL when out of memory. With depth 1 and ra outside the MPI library's modules, the site
 * is ra itself, found without unwinding; from MPI's Fortran bindings (a module named libmpi*,
 * libpmpi* or libmpich*), or with depth > 1, libunwind walks the stack past hrelay's and MPI's
 * frames and the next `depth` frames name the site. */
shim_site *shim_site_of(shim_sites *s, uintptr_t ra, int depth);

/* Finds the modules whose frames never name a call site (hrelay's, the MPI library's); once,
 * at MPI_Init, before any call is intercepted. */
void shim_site_init(void);

/* Releases a site table; s may be zero-initialised. */
void shim_sites_free(shim_sites *s);

/* Adds every site of from into to (matched by frames). Returns 0, or -1 when out of memory. */
int shim_sites_merge(shim_sites *to, const shim_sites *from);

/* Collective over MPI_COMM_WORLD: gathers every rank's sites on rank 0 and merges them, sites
 * being equal when their frames are at the same places of the same files (addresses differ
 * between processes). *out (rank 0) receives one entry per site: calls, cache figures and
 * times the largest over ranks, bytes summed, families by the largest count; names are
 * resolved to "file:line function" (addr2line, else the symbol) joined by " < " for deeper
 * frames. Returns an MPI error code. */
typedef struct shim_site_report {
    char name[512];
    shim_stats st;
} shim_site_report;
int shim_sites_gather(const shim_sites *mine, shim_site_report **out, size_t *n);

/* ---- the process (init.c) ---- */

/* The process-wide record, created at MPI_Init and freed at MPI_Finalize: statistics of
 * communicators already freed, and plans already dumped. Mutable only under
 * shim_world_lock. */
typedef struct shim_world {
    pthread_mutex_t lock;
    int threaded; /* MPI_THREAD_MULTIPLE: shim_world_lock really locks (set once at MPI_Init) */
    shim_sites retired; /* sites of freed communicators */
    struct shim_comm **live; /* records of communicators not freed yet */
    size_t nlive, cap_live;
    uint64_t *dumped;   /* hashes of plans already written to HRELAY_DUMP */
    size_t ndumped, cap_dumped;
    int dump_warned;
} shim_world;

/* Takes w's lock, under MPI_THREAD_MULTIPLE only: at lower thread levels one thread at a time
 * calls MPI, so the per-call path pays no locking. */
static inline void shim_world_lock(shim_world *w)
{
    if (w->threaded)
        pthread_mutex_lock(&w->lock);
}

/* Releases what shim_world_lock took. */
static inline void shim_world_unlock(shim_world *w)
{
    if (w->threaded)
        pthread_mutex_unlock(&w->lock);
}

/* Set by MPI_Init / MPI_Init_thread, read-only until MPI_Finalize. */
typedef struct shim_state {
    int started; /* shim_startup ran (it runs once, whichever binding initialised MPI) */
    int active; /* hrelay intercepts (initialised, not disabled) */
    shim_config cfg;
    int world_rank, world_size;
    int keyval;        /* communicator records */
    MPI_Op agree_op;   /* the agreement reduction (agree.c) */
    MPI_Datatype agree_pair; /* its element: SHIM_AGREE_WORDS 64-bit words */
    shim_world *world;
} shim_state;

extern shim_state shim_g;

/* After PMPI_Init(_thread): reads and agrees on the configuration and, unless disabled, sets
 * up interception. Collective over MPI_COMM_WORLD. On any failure (on any rank) hrelay stays a
 * pass-through on every rank. */
void shim_startup(void);

/* Before PMPI_Finalize, if shim_g.active: merges statistics, writes the report (rank 0), frees
 * hrelay's state. Collective over MPI_COMM_WORLD. */
void shim_shutdown(void);

/* Prints "hrelay: " + message + newline to stderr if this is rank 0 of MPI_COMM_WORLD and
 * HRELAY_VERBOSE >= level. */
void shim_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "hrelay: warning: " + message + newline to stderr (on the calling rank). */
void shim_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- plans a rank keeps (prog.c) ---- */

/* One family's plan for one pattern, as this rank runs it: its part of the plan (the full plan
 * is freed after planning), with what the decision and the report need. Shared by the cache
 * slots of one pattern (refs). */
typedef struct shim_prog {
    int refs;
    plan_algo algo;
    plan_local lo;       /* detached: owns its segments */
    uint64_t staging;    /* staging bytes this rank needs */
    size_t nsteps;
    uint64_t model_ps;   /* plan_cost_plan */
    size_t nsegments;    /* of the whole plan */
} shim_prog;

/* Releases one reference (freeing at the last); p may be NULL. */
void shim_prog_release(shim_prog *p);

/* ---- Fortran entry points (fortran_init.c; fortran_ompi.c, fortran_mpich.c) ---- */

/* The body of an exported Fortran MPI_Init whose library definition, `name` (found with
 * dlsym(RTLD_NEXT)), calls PMPI_Init: runs it, then shim_startup if it succeeded; *ierr (if
 * ierr is not NULL) is its result. */
void shim_fortran_init(const char *name, MPI_Fint *ierr);

/* The same for MPI_Init_thread (required, provided: the Fortran arguments). */
void shim_fortran_init_thread(const char *name, MPI_Fint *required, MPI_Fint *provided,
                              MPI_Fint *ierr);

/* The same for MPI_Finalize: shim_shutdown (if active), then the library's `name`. */
void shim_fortran_finalize(const char *name, MPI_Fint *ierr);

/* ---- the plan cache (cache.c) ---- */

/* What a call's pattern is matched on besides the bytes: the call kind, MPI_IN_PLACE, the
 * request it is run for, and the type facts (gcd of the type sizes, denseness). */
typedef struct shim_facts {
    int kind;     /* shim_kind */
    int inplace;
    int request;
    uint64_t types; /* 2 * gcd(send, receive type size) + both dense */
} shim_facts;

/* One cached pattern. Slots are filled, used and evicted only at agreed points, identically
 * on every rank, so slot numbers mean the same pattern everywhere. */
typedef struct shim_slot {
    uint64_t used;        /* call number of the last use; 0 = empty */
    shim_facts facts;
    uint64_t row_hash;
    uint64_t *row;        /* bytes this rank sends to each rank (p) */
    uint64_t *col;        /* bytes each rank sends this rank (p) */
    uintptr_t site;       /* this rank's call site (key) */
    uint64_t matrix_hash; /* the whole pattern: matrix and facts (the same on every rank) */
    uint64_t gen;         /* identifies this filling of the slot (the call number) */
    plan_choice choice;
    shim_prog *prog[PLAN_ALGO_COUNT];
    uint64_t model_native_ps;
    /* between shim_decide and shim_decide_finish: the candidates and what happened */
    int ncand;
    plan_candidate cand[PLAN_ALGO_COUNT];
    uint32_t failed;      /* bit per family whose planning failed on this rank */
    int planned;          /* plans built */
} shim_slot;

/* ---- communicator records (comm_record.c) ---- */

/* hrelay's state for one user intracommunicator, an attribute of it. Only the thread making
 * a collective call on the communicator touches it (MPI forbids concurrent collectives on one
 * communicator), so it needs no lock. */
typedef struct shim_comm {
    MPI_Comm priv;      /* private duplicate (errors return) for all of hrelay's traffic */
    int p, rank;
    int request;        /* hrelay_set_algorithm's request, or SHIM_REQUEST_ENV */
    int last;           /* plan_algo of the family that ran the last call; -1 before any */
    uint64_t calls;     /* intercepted calls on this communicator (equal on every rank) */
    uint64_t agreed;    /* of those, calls that ran the agreement */
    uint64_t last_planned; /* `agreed` at the last agreed call whose pattern may run a plan */
    uint64_t quiet_until;  /* calls up to this number run natively without agreement */
    uint64_t quiet_len;    /* the length of the next run of unchecked calls */
    uint64_t patterns;  /* distinct patterns gathered so far */
    /* the previous agreed call, whose time the next agreement carries */
    int prev_slot;      /* -1: none (or not timed) */
    uint64_t prev_gen;
    plan_algo prev_algo;
    uint64_t prev_ps;
    int nslots;
    shim_slot *slot;
    shim_sites sites;
    uint64_t *gather;   /* p * (p + 2) words: gathered rows, then the p x p matrix; allocated
                           at the first new pattern (shim_comm_gather_buffer) */
    MPI_Count *scount, *rcount; /* normalised counts of the current call */
    MPI_Aint *sdispl, *rdispl;  /* normalised displacements in bytes */
    uint64_t *row;      /* this call's row */
} shim_comm;

/* Creates the attribute key of communicator records. Returns an MPI error code. */
int shim_comm_keyval_create(int *keyval);

/* The record of comm, creating it on first use: collective over comm (duplicates it, then
 * agrees that every rank got its memory). NULL on every rank if it cannot be created. */
shim_comm *shim_comm_get(MPI_Comm comm);

/* A number that changes whenever a record is deleted (its communicator freed), so that a
 * cache of communicator -> record stays valid as long as it does not change. */
unsigned shim_comm_epoch(void);

/* Frees the record of MPI_COMM_WORLD, if any (at MPI_Finalize); its sites join the world's. */
void shim_comm_release_world(void);

/* At MPI_Finalize: every site of the process (of freed communicators and of those still
 * alive) merged into *out (shim_sites_free it). Returns 0, or -1 when out of memory. */
int shim_world_sites(shim_world *w, shim_sites *out);

/* Makes sure rec->gather is allocated ((p + 2) p words). Returns 0, or -1 out of memory. */
int shim_comm_gather_buffer(shim_comm *rec);

/* Empties slot s of rec (its plans released). */
void shim_slot_clear(shim_comm *rec, shim_slot *s);

/* The slots of rec whose local key equals this call's (row, facts, site) and whose receive
 * needs fit the receive counts x describes: a bit mask (bit i: slot i). */
uint64_t shim_cache_match(const shim_comm *rec, const uint64_t *row, uint64_t row_hash,
                          const shim_facts *f, uintptr_t site, const exec_exchange *x);

/* A slot already holding the whole pattern matrix_hash (for a new local key of a known
 * pattern), or -1. */
int shim_cache_find_pattern(const shim_comm *rec, uint64_t matrix_hash, const shim_facts *f);

/* The slot a new pattern goes to: the lowest empty one, else the least recently used other
 * than `keep` (which is cleared). */
int shim_cache_victim(shim_comm *rec, int keep);

/* Hash of n words (FNV-1a over their bytes), continuing from h (0 to start). */
uint64_t shim_hash_words(uint64_t h, const uint64_t *w, size_t n);

/* ---- calls (alltoallv.c) ---- */

typedef enum shim_kind {
    SHIM_ALLTOALL,
    SHIM_ALLTOALLV,
    SHIM_ALLTOALL_C,
    SHIM_ALLTOALLV_C
} shim_kind;

/* The arguments of any intercepted call, unchanged (for pass-through) with accessors that
 * normalise them (large counts, displacements in elements), and the caller's return address. */
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
    uintptr_t caller;
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

/* ---- erroneous calls (validate.c) ---- */

/* Status of a rank's arguments that are not erroneous but that hrelay does not execute itself
 * (a displacement whose byte offset overflows MPI_Aint; with an MPI library without the MPI-4
 * large-count functions, a message over INT_MAX bytes): every rank then runs the call through
 * PMPI unchanged. Not an MPI error class. */
enum { SHIM_STATUS_NATIVE = -1 };

/* MPI_SUCCESS if type is a valid, committed datatype, else the class MPI reports for it
 * (MPI_ERR_TYPE; MPI_DATATYPE_NULL included). priv is a communicator whose error handler
 * returns (the check may call the MPI library on it). O(1); no message is sent. */
int shim_check_type(MPI_Datatype type, MPI_Comm priv);

/* The MPI error class MPICH's parameter checking gives message j of one side (recv: 1 for the
 * receive side) of a, with `count` elements of type t: MPI_ERR_BUFFER for MPI_IN_PLACE as
 * receive buffer with count > 0, MPI_ERR_COUNT for a negative count, MPI_ERR_BUFFER for a NULL
 * buffer with count > 0 and a type with data at offset 0 (for the v variants only where the
 * displacement is 0); else MPI_SUCCESS. */
int shim_check_message(const shim_args *a, int recv, int j, MPI_Count count, const exec_type *t);

/* MPI_ERR_BUFFER if a passes the same buffer as send and receive buffer in the cases MPICH
 * rejects (same type and the same counts: the same count for MPI_Alltoall(_c), not 0; the same
 * counts array for MPI_Alltoallv(_c)); else MPI_SUCCESS. */
int shim_check_alias(const shim_args *a);

/* Raises code (an MPI error code or class) through the error handler of a->comm and returns
 * it. If that handler aborts the job (MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT), first prints
 * "hrelay: error in <call> on rank R of the communicator: <MPI's error string> ..." on stderr,
 * so the abort names hrelay and the call. */
int shim_raise(const shim_args *a, int code);

/* A call in which some rank's receive region is smaller than a message to it (every rank calls
 * this, after agreeing on it before any data moved). MPICH ABI family: returns what the MPI
 * library's own exchange returns on this rank (it reports MPI_ERR_TRUNCATE on the truncated
 * ranks and completes elsewhere, without hanging); if `here` (this rank is truncated) and the
 * error handler aborts, aborts through shim_raise instead, naming hrelay. Open MPI (whose own
 * MPI_Alltoall leaves the other ranks waiting forever): MPI_ERR_TRUNCATE on every rank through
 * shim_raise, nothing written. */
int shim_truncated_call(const shim_args *a, int here);

/* ---- agreement (agree.c) ---- */

/* The agreement words of a call: [0] combined with bitwise AND (bit SHIM_AGREE_OK: this
 * rank's arguments are fine; bit SHIM_AGREE_TIMED: this rank timed the previous agreed call;
 * bit SHIM_AGREE_GATHER: this rank has the memory to gather the pattern; bits 0..60: cache
 * slots this rank's call matches), the others with maximum: [1] that time in
 * picoseconds, [2] 1 + the slot this rank prepared a run for (0: none), [3] SHIM_CACHE_MAX -
 * that slot (0: none), so that all ranks prepared the same slot k exactly when [2] == 1 + k
 * and [3] == SHIM_CACHE_MAX - k. */
enum { SHIM_AGREE_OK = 63, SHIM_AGREE_TIMED = 62, SHIM_AGREE_GATHER = 61, SHIM_AGREE_WORDS = 4 };

/* Creates the reduction operation of the agreement and its element type (at MPI_Init).
 * Returns an MPI error code (then nothing is left allocated). */
int shim_agree_op_create(MPI_Op *op, MPI_Datatype *pair);

/* Frees what shim_agree_op_create made (at MPI_Finalize). */
void shim_agree_op_free(MPI_Op *op, MPI_Datatype *pair);

/* One small allreduce of w over comm with the agreement operation. Returns an MPI error
 * code. */
int shim_agree(uint64_t w[SHIM_AGREE_WORDS], MPI_Comm comm);

/* ---- deciding a new pattern (decide.c) ---- */

/* First half of deciding a new pattern m (every rank the same, except where memory runs out):
 * the candidates in s->cand with their modeled times, their plans in s->prog. The request's
 * family if it names one (then direct for a family that needs staging, not planned yet, then
 * native, as fallbacks); else (auto) native and every family that can plan m within the limits and whose
 * optimistic time could matter, a plan's time including the agreement each call pays and the
 * planning spread over the calls per pattern rec has seen. Families that failed to plan are
 * in s->failed; s->planned counts the plans built. */
void shim_decide(shim_comm *rec, shim_slot *s, const plan_matrix *m, const plan_options *o,
                 plan_native_kind kind);

/* Second half: the choice among s's candidates without those in drop (a bit per family; native
 * is never dropped). Called first with the families that failed on this rank (s->failed), to
 * prepare the likely run before the ranks agree, then again if the agreed drop differs. */
void shim_decide_choose(shim_slot *s, uint32_t drop);

/* Last: releases the plans of dropped families and of candidates that will never run (not
 * measured, not the first), so that every candidate left has its plan; with HRELAY_VERBOSE=1
 * (auto) prints the decision with every candidate's modeled time (m: the pattern). */
void shim_decide_trim(shim_comm *rec, shim_slot *s, const plan_matrix *m, uint32_t drop);

/* Makes sure s has a program for family algo (planning it if needed, with options o, for the
 * pattern m): 0 on success, -1 if planning failed (the same on every rank, except when memory
 * runs out on one rank: callers agree on the outcome). *planned is set when a plan was built.
 * Rank 0 dumps a new plan to HRELAY_DUMP. */
int shim_slot_prog(shim_comm *rec, shim_slot *s, plan_algo algo, const plan_matrix *m,
                   const plan_options *o, int *planned);

/* The transpose grain of a call: cfg_grain if not 0; else, from the facts gathered over all
 * ranks (size_gcd: gcd of the send and receive type sizes; dense: every type is dense), one
 * element (size_gcd) for types that are not dense, and for dense types SHIM_DEFAULT_GRAIN
 * rounded down to a multiple of size_gcd (at least size_gcd). 1 when no type has bytes. */
uint64_t shim_grain(uint64_t cfg_grain, uint64_t size_gcd, int dense);

/* ---- plan dumps (dump.c) ---- */

/* Writes pl (planned from m) to HRELAY_DUMP/plan-<hash>.json unless this process already wrote
 * a plan with the same hash. Returns 0, or -1 with errno set (directory or write failure). */
int shim_dump_plan(shim_world *w, const char *dir, const plan *pl, const plan_matrix *m,
                   const plan_cost_params *cost);

/* ---- report (report.c) ---- */

/* Writes the JSON report (DESIGN.md "Report") to path. Returns 0, or -1 with errno set. */
int shim_report_write(const char *path, const shim_config *cfg, const shim_site_report *sites,
                      size_t nsites, int ranks);

#endif
