/* bench/: the MPI_Alltoallv benchmark (alltoallv_bench). Shared types of its parts:
 *   options.c    command line and --help
 *   patterns.c   the table of patterns and the simple ones; pattern_redist.c the block-cyclic
 *                ones; pattern_samplesort.c the sample-sort exchange (fixed and drifting);
 *                pattern_fft.c the 3-D FFT pencil transposes; pattern_bfs.c, pattern_moe.c,
 *                pattern_particles.c the other drifting patterns
 *   sequence.c   the exchanges of one pattern and size, call by call, as this rank sees them
 *   nodes.c      the node of every rank and the node-level (NIC) lower bound
 *   candidates.c the algorithms timed side by side and the hrelay tool API (dlsym)
 *   exchange.c   the buffers of one call, their contents, PMPI's reference, the byte compare
 *   measure.c    one pattern and size: a communicator per candidate, the rounds of calls
 *                (checked, warm-up, timed), the rows
 *   rate.c       the link rate and the lower bound
 *   stats.c      quantiles, a median's interval, CPU time
 *   output.c     the text table, CSV and JSON; run_summary.c the whole-run summary;
 *                calls_log.c every call's time (--calls)
 * Every message is a whole number of 8-byte elements (MPI_UINT64_T). */
#ifndef HRELAY_BENCH_BENCH_H
#define HRELAY_BENCH_BENCH_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Bytes of one element of every message. */
#define BENCH_ELEM 8

enum { BENCH_MAX_SIZES = 32, BENCH_MAX_PATTERNS = 32, BENCH_MAX_CANDIDATES = 16 };

/* ---- options (options.c) ---- */

/* The command line, identical on every rank. */
typedef struct bench_opts {
    int patterns[BENCH_MAX_PATTERNS]; /* indices into bench_patterns, in run order */
    int npatterns;
    uint64_t sizes[BENCH_MAX_SIZES]; /* bytes per rank, multiples of BENCH_ELEM */
    int nsizes;
    int candidates[BENCH_MAX_CANDIDATES]; /* indices into bench_candidates, in table order */
    int ncandidates;
    int reps;
    int runs;         /* the measurement of every pattern and size repeated; rows: medians */
    int warmup;       /* untimed calls of every candidate before the timed ones */
    uint64_t seed;
    double rate_bps;  /* link rate in bits/s; 0: measure it */
    int half_duplex;  /* lower bound: sent + received instead of the larger of the two */
    const char *csv;  /* output files, NULL for none */
    const char *json;
    const char *calls; /* every call's time as CSV, NULL for none */
    int wo_k;         /* walker-otto pattern: cyclic(r) -> cyclic(K r) */
    int redist_q, redist_r, redist_s; /* cyclic-pq pattern; redist_q 0: P - P/4 */
    int inject_error; /* corrupt one received byte once, to prove the check works */
    int quiet;        /* no text table on stdout */
    int node_size;    /* 0: the real nodes (MPI_COMM_TYPE_SHARED); K: consecutive groups of K */
    int check_every;  /* drifting patterns: also check every N-th call; 0: first and last only */
    int blocks;       /* --order blocks: each candidate makes all its calls of a run in a row */
    uint64_t bfs_max; /* drift-bfs: the largest bytes per rank of its level sweep */
    int moe_k;        /* drift-moe: experts per token */
    uint64_t moe_token_bytes; /* drift-moe: bytes per token, a multiple of BENCH_ELEM */
    double moe_capacity; /* drift-moe: capacity factor; 0: no capacity (dropless) */
    double stall_factor, stall_floor_s; /* --stall: a stall of MPI's own algorithm is a call
                                           of it more than stall_factor x native's median and
                                           stall_floor_s over it (BENCH_STALL, _MIN_S) */
    int fft_rows, fft_cols; /* fft patterns: the process grid; 0: MPI_Dims_create */
    const char *matrices; /* a directory: write every call's byte matrix there, time nothing */
} bench_opts;

/* Fills o from argv. Returns -1 to go on, else the exit status (0 after --help, 2 for a usage
 * error); messages go to out / err only if print is set (rank 0). */
int bench_parse_args(int argc, char **argv, bench_opts *o, int print);

/* ---- patterns (patterns.c and pattern_*.c) ---- */

/* What a pattern is built from: P, elements per rank, the seed, the call and the options. */
typedef struct bench_pattern_in {
    int p;
    uint64_t elems; /* elements each rank sends, nominally */
    uint64_t seed;
    int call;       /* drifting patterns: the index of the call (0 for the first) */
    const bench_opts *opts;
    MPI_Comm comm; /* only for patterns that gather (samplesort) */
} bench_pattern_in;

/* Fills m (p x p elements, zeroed; m[i * p + j]: elements rank i sends to rank j, the diagonal
 * a local copy) with the pattern (of call in->call, for a drifting one). Returns 0, or 1 if the
 * pattern does not apply to these parameters (why is filled, NUL-terminated), or -1 if memory
 * ran out. Collective only where in->comm is used; deterministic in the inputs. */
typedef int (*bench_pattern_fn)(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap);

typedef struct bench_pattern {
    const char *name;
    const char *summary; /* one line for --help */
    bench_pattern_fn fill;
    int drift;    /* 1: the counts change on every call (fill depends on in->call) */
    int sweep;    /* 1: runs once, at --bfs-max bytes per rank, not at each of --sizes */
    int alltoall; /* 1: every candidate calls MPI_Alltoall (all counts equal) */
} bench_pattern;

extern const bench_pattern bench_patterns[];
extern const int bench_npatterns;

/* The index of the pattern called name, or -1. */
int bench_pattern_find(const char *name);

/* Pattern functions defined outside patterns.c. */
int bench_pattern_samplesort(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap);
int bench_pattern_walker_otto(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap);
int bench_pattern_cyclic_pq(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap);
int bench_pattern_fft_xy(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap);
int bench_pattern_fft_yz(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap);
int bench_pattern_bfs(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap);
int bench_pattern_moe(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap);
int bench_pattern_particles(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap);

/* A uniform draw in [0, 1) from the generator with state *s (53 bits). */
double bench_uniform(uint64_t *s);

/* An index in [0, n) drawn from the generator with state *s, with the weights whose running
 * sums are cum[0 .. n) (cum[n - 1] > 0): index j with probability (cum[j] - cum[j - 1]) /
 * cum[n - 1]. */
int bench_draw(const double *cum, int n, uint64_t *s);

/* The state of a generator for row i of call `call` of a pattern (tag tells patterns apart):
 * the same inputs give the same state on every rank. */
uint64_t bench_state(uint64_t seed, uint64_t tag, int call, int i);

/* Splits total into n shares proportional to w[0 .. n) (not all zero) into out: the integer
 * parts of total * w[k] / sum(w), the rest one each to the shares with w[k] > 0 in index
 * order from first. The shares sum to total. */
void bench_split(uint64_t total, const uint64_t *w, int n, int first, uint64_t *out);

/* splitmix64: the next value of a deterministic 64-bit generator with state *s. */
uint64_t bench_random(uint64_t *s);

/* Fills order[0 .. n) with a permutation of 0 .. n): the candidates' order in round `round` of
 * run `run` of a bench seeded with seed, the same on every rank. Runs draw their orders
 * independently, so that over a bench's runs a round's call (on a drifting pattern, one call of
 * its sequence) is not made by the candidates in the same order every time. */
void bench_round_order(uint64_t seed, int run, int round, int *order, int n);

/* The order in which the candidates make their calls of round `round` of run `run` under o:
 * bench_round_order's, or with --order blocks the run's one order of the candidates' blocks
 * (every round alike). */
void bench_call_order(const bench_opts *o, int run, int round, int *order, int n);

/* ---- candidates (candidates.c) ---- */

/* The hrelay tool API, found with dlsym(RTLD_DEFAULT, ...); all NULL without hrelay. */
typedef struct bench_hrelay {
    int (*set)(MPI_Comm, const char *);
    const char *(*last)(MPI_Comm);
    const char *(*version)(void);
} bench_hrelay;

/* Looks up the hrelay functions. Returns 1 if hrelay is loaded and active, else 0. */
int bench_hrelay_find(bench_hrelay *h);

/* An algorithm timed side by side. */
typedef struct bench_candidate {
    const char *name;    /* table name; for hrelay families the HRELAY_ALGO name */
    int pmpi;            /* 1: PMPI_Alltoallv, hrelay bypassed */
    int family;          /* 1: an hrelay schedule family: not applicable to a pattern when
                            hrelay ran the call with something else (walker-otto on another
                            pattern, forward over the staging limit, ...) */
} bench_candidate;

extern const bench_candidate bench_candidates[];
extern const int bench_ncandidates;

/* The index of the candidate called name, or -1. */
int bench_candidate_find(const char *name);

/* One call of a pattern, as MPI_Alltoallv (or MPI_Alltoall) arguments of this rank. */
typedef struct bench_exchange {
    uint64_t *sbuf, *rbuf, *ref; /* ref: PMPI's result */
    int *scount, *sdispl, *rcount, *rdispl;
    size_t sn, rn; /* elements of sbuf, and of rbuf and ref (guards included) */
    int alltoall;  /* 1: an MPI_Alltoall of `count` elements per pair */
    int count;
} bench_exchange;

/* Makes candidate c the algorithm of the next call on comm (hrelay_set_algorithm; nothing for
 * pmpi, or without hrelay). Returns 0, or -1 if hrelay refused the name. Collective in the
 * sense of hrelay.h. */
int bench_select(const bench_hrelay *h, int c, MPI_Comm comm);

/* One MPI_Alltoallv (MPI_Alltoall if x->alltoall) of x on comm by candidate c (selected
 * before). Returns the MPI code. */
int bench_call(int c, const bench_exchange *x, MPI_Comm comm);

/* The name of what ran the last call of candidate c: "pmpi", hrelay_last_run (the family and
 * its variant; hrelay_last_algorithm for a library without it), or "mpi" when hrelay is not
 * loaded. */
const char *bench_ran(const bench_hrelay *h, int c, MPI_Comm comm);

/* A small number for a name bench_ran returned: the candidate's index, or from
 * bench_ncandidates on "mpi" and "unknown" for anything else, each with the family's variant
 * ("/window 4", "/shared memory") in the higher values. */
int bench_ran_index(const char *name);

/* The family of a bench_ran_index: a candidate's name, "mpi" or "unknown". */
const char *bench_ran_name(int index);

/* The variant of a bench_ran_index after its family: "" or, e.g., "/window 4". */
const char *bench_ran_variant(int index);

/* ---- link rate and lower bound (rate.c) ---- */

/* Collective: the link rate in bits/s between ranks 0 and 1 for messages of `bytes`, the
 * fastest of several runs (the link can do at least that, so the bound stays a lower bound
 * when other work slows some runs): bidirectional MPI_Sendrecv (full duplex: the rate of each direction
 * while both are busy) or one-way streaming with an empty reply (half duplex). Describes the
 * measurement in how. The same value on every rank; 0 if it could not be measured. */
double bench_measure_rate(uint64_t bytes, int half_duplex, MPI_Comm comm, char *how, size_t cap);

/* The lower bound in bytes of matrix m (p x p elements, diagonal excluded): the largest of any
 * rank's bytes sent or received (full duplex), or of sent + received (half duplex). */
uint64_t bench_bound_bytes(const uint64_t *m, int p, int half_duplex);

/* ---- statistics (stats.c) ---- */

typedef struct bench_quantiles {
    double min, q1, median, q3, max;
} bench_quantiles;

/* Quantiles of t[0 .. n) (n > 0; linear interpolation between order statistics); sorts t. */
bench_quantiles bench_quantiles_of(double *t, int n);

/* The confidence at which whole-run ratios are reported as an interval (--runs). */
#define BENCH_MEDIAN_LEVEL 0.90

/* Sorts x[0 .. n) and sets [*lo, *hi] to the narrowest pair of order statistics x(k),
 * x(n + 1 - k) that holds the median of the distribution x was drawn from with probability at
 * least `level`, whatever that distribution (continuous, independent draws). Returns the
 * probability it holds it with, or 0 with *lo = *hi = NAN when n is too small to reach
 * `level` (at 0.90: fewer than 5 values). */
double bench_median_interval(double *x, int n, double level, double *lo, double *hi);

/* User plus system CPU seconds of this process so far (getrusage), 0 if unavailable. */
double bench_cpu_seconds(void);

/* The same quantity from CLOCK_PROCESS_CPUTIME_ID: exact to the nanosecond, for short spans
 * such as one call (getrusage's user/system split is only as fine as the scheduler tick). */
double bench_cpu_now(void);

/* ---- nodes (nodes.c) ---- */

/* The node of every rank of a communicator: one NIC per node. */
typedef struct bench_nodes {
    int n;        /* nodes */
    int *node_of; /* p entries: the node of each rank, numbered by first appearance */
    char how[256]; /* where the layout came from, and ranks per node */
} bench_nodes;

/* Collective: the nodes of comm's ranks: consecutive groups of node_size ranks (the last one
 * possibly smaller), or with node_size 0 the ranks that share memory
 * (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED). The same on every rank. Returns 0, or -1 on
 * every rank if memory ran out on some rank. */
int bench_nodes_find(MPI_Comm comm, int node_size, bench_nodes *nodes);

void bench_nodes_free(bench_nodes *nodes);

/* The node-level lower bound in bytes of matrix m (p x p elements): the largest of any node's
 * off-node bytes sent or received (full duplex), or of the two summed (half duplex). With one
 * rank per node it equals bench_bound_bytes. scratch: 2 * nodes->n entries. */
uint64_t bench_node_bound_bytes(const uint64_t *m, int p, const bench_nodes *nodes,
                                int half_duplex, uint64_t *scratch);

/* ---- the calls of one pattern and size (sequence.c) ---- */

/* This rank's counts of every call of one pattern and size, and each call's bounds. A fixed
 * pattern has one call that every round repeats; a drifting one has a call per round. */
typedef struct bench_sequence {
    int p, ncalls;
    int drift;    /* the counts change from call to call */
    int alltoall; /* MPI_Alltoall: every count of a call is the same */
    int *scount, *rcount; /* ncalls x p: call n's counts at [n * p] */
    uint64_t *bound_bytes, *node_bytes; /* per call: bench_bound_bytes, bench_node_bound_bytes */
    size_t max_sn, max_rn; /* the most elements any call sends, and receives with guards */
} bench_sequence;

/* ---- results (output.c) ---- */

/* One line of the table: an algorithm on one pattern and size. */
typedef struct bench_row {
    const char *pattern;
    int p;
    uint64_t bytes_per_rank;
    const char *algorithm;
    char ran[128];      /* what executed the timed calls ("direct", "native+direct", ...) */
    const char *status; /* "ok", "n/a" (the family handed the pattern on), "WRONG", "no-hrelay",
                           "refused" (hrelay does not know the family) */
    int reps;
    bench_quantiles t;  /* seconds, max over ranks per call */
    double cpu_use;     /* CPU seconds of all ranks over wall seconds, during these calls */
    uint64_t bound_bytes;   /* drifting patterns: medians over the timed calls */
    double bound_s;
    uint64_t bound_node_bytes;
    double bound_node_s;
    double ratio_native, ratio_bound, ratio_node_bound; /* NAN when unknown; drifting: the
                           bound ratios are medians of each call's time over its bound */
    int run_calls;      /* every call of the candidate: checked, warm-up and timed */
    double run_total_s; /* their times summed (each the max over ranks) */
    double run_ratio_native, run_ratio_bound; /* run_total_s over native's, over the bounds'
                                                  sum */
    int runs;           /* the row is the median of this many runs' rows (--runs) */
    double run_ratio_native_lo, run_ratio_native_hi; /* run_ratio_native's range over them */
    double run_ratio_ci_lo, run_ratio_ci_hi; /* the interval run_ratio_native's median over the
                                                runs lies in (bench_median_interval; NAN: too
                                                few runs) */
    double run_ratio_ci_level;               /* the confidence it holds it with (0: none) */
    int checked;        /* calls compared with PMPI's result */
    int stalls; /* fixed patterns: the whole run's calls that ran MPI's own algorithm and took
                   long enough to be stalls (--stall) against native's median (-1: not
                   counted; drifting: every call differs); with --runs, summed */
    double run_ratio_steady; /* run_ratio_native with each such call, this row's and native's,
                                counted at native's median (NAN: not counted) */
    /* the whole run's calls that ran a plan (not MPI's own algorithm; -1: not counted, as on
     * native's row); the seconds native's calls of the same rounds took more than they (the
     * plans' saving), the same of the calls that ran MPI's algorithm, and native's
     * run_total_s; with --runs, each summed */
    int plan_calls;
    double run_plan_saved_s, run_mpi_saved_s, run_native_s;
} bench_row;

/* By default (--stall), a call of MPI's own algorithm more than BENCH_STALL times native's
 * median and more than BENCH_STALL_MIN_S seconds over it is a stall: on the emulated cluster a
 * lost packet's retransmission (100 - 250 ms against calls of 60 ms), which strikes a call
 * whichever candidate made it, and over a run of 31 calls one of them moves the whole-run ratio
 * by 5 - 13 %. The floor keeps hrelay's own cost out (an agreement: microseconds on one node,
 * 1.6 - 5 ms on 16 emulated hosts), which can double a small call. */
#define BENCH_STALL 2.0
#define BENCH_STALL_MIN_S 0.010

/* Run-wide facts for the output headers. */
typedef struct bench_meta {
    const char *command;
    int p;
    int hrelay;
    const char *hrelay_version;
    char mpi_library[256];
    const char *ucx_tls;
    double rate_bps;
    char rate_how[256];
    const char *nodes_how;
    int nodes;
    int half_duplex;
    uint64_t seed;
    int reps, runs, warmup, check_every;
    int blocks; /* --order blocks */
    long online_cpus;
} bench_meta;

/* auto against native over the whole run of one pattern and size. */
typedef struct bench_run_ratio {
    const char *pattern;
    uint64_t bytes;
    double ratio; /* auto's run_total_s over native's */
    double steady; /* the same with MPI's stalls counted at native's median (run_ratio_steady) */
    int stalls, native_stalls; /* auto's and native's (-1: not counted) */
    int plan_calls;            /* auto's calls that ran a plan, over the runs (-1: none counted) */
    double plan_saving, mpi_saving; /* over the runs, pooled: the plans' saving and that of auto's
                                       calls of MPI's algorithm, each over native's time */
    double pmpi;  /* pmpi's (MPI's own call under another name: the row's noise); NAN if not run */
    int calls;
    int runs;                      /* the ratio is the median of this many runs' */
    double ci_lo, ci_hi, ci_level; /* the interval it lies in (run_ratio_ci_*) */
} bench_run_ratio;

/* The output files and what has been written; rank 0 only. */
typedef struct bench_out {
    FILE *csv, *json, *calls;
    int rows_written;
    int quiet;
    double stall_factor, stall_floor_s; /* the --stall rule, for the summary */
    char skipped[65536]; /* JSON objects of the patterns and sizes not run */
    bench_run_ratio runs[BENCH_MAX_PATTERNS * BENCH_MAX_SIZES];
    int nruns;
} bench_out;

/* Opens the files of o (none if NULL) and writes their headers. Returns 0, or -1 with errno
 * set (*failed names the file). */
int bench_out_open(bench_out *out, const bench_opts *o, const bench_meta *meta,
                   const char **failed);

/* Prints the rows of one pattern and size as a text table (unless quiet), appends them to
 * the files and keeps auto's whole-run ratio to native for the summary. seq describes the
 * calls (the range of the per-call bounds of a drifting pattern is printed). */
void bench_out_rows(bench_out *out, const bench_row *rows, int n, const char *pattern_desc,
                    const bench_sequence *seq);

/* Records a pattern and size that was not run, and why. */
void bench_out_skipped(bench_out *out, const char *pattern, uint64_t bytes, const char *why);

/* Writes the run summary (CPU use of the whole run, wall time, auto against native over the
 * whole run, failures) and closes the files. Returns 0, or -1 if a write failed. */
int bench_out_close(bench_out *out, double cpu_s, double wall_s, long online_cpus, int p,
                    int failures);

/* Keeps auto's whole-run ratio to native from rows (if both ran) in out->runs, with pmpi's
 * where it ran too (run_summary.c). */
void bench_run_ratio_add(bench_out *out, const bench_row *rows, int n);

/* Prints the whole-run summary of out->runs to stdout: one line per pattern and size (with
 * pmpi's ratio beside auto's where it ran), the worst, how many were within 5 %
 * (run_summary.c). */
void bench_run_ratio_print(const bench_out *out);

/* Writes the member ', "auto_vs_native_run": {...}' of the JSON summary (run_summary.c). */
void bench_run_ratio_json(const bench_out *out, FILE *f);

/* ---- one pattern and size (measure.c, sequence.c, exchange.c) ---- */

/* Everything a measurement needs besides the pattern. */
typedef struct bench_ctx {
    const bench_opts *opts;
    const bench_hrelay *hrelay;
    int have_hrelay;
    int p, rank;
    double rate_bps;
    const bench_nodes *nodes;
    MPI_Comm comm;
    int injected; /* the --inject-error corruption was done */
    FILE *calls;  /* rank 0: --calls's file, else NULL */
} bench_ctx;

/* Collective: builds seq for pattern k at `bytes` nominal bytes per rank: one call, or ncalls
 * for a drifting pattern (call n from in.call = n). Every rank computes each call's matrix
 * (rank 0's is broadcast, so floating point cannot make them differ) and keeps its own counts.
 * Returns 0; 1 if the pattern does not apply (why set on rank 0); -1 if memory ran out or a
 * count or displacement does not fit an int (on every rank alike). */
int bench_sequence_build(const bench_ctx *ctx, int k, uint64_t bytes, int ncalls,
                         bench_sequence *seq, char *why, size_t cap);

void bench_sequence_free(bench_sequence *seq);

/* The call of seq that round `round` runs: round itself when drifting, else 0. */
int bench_sequence_call(const bench_sequence *seq, int round);

/* Allocates x for the largest call of seq. Returns 0, or -1 if memory ran out. Local. */
int bench_exchange_alloc(bench_exchange *x, const bench_sequence *seq);

/* Sets x to call n of seq on rank me: counts, displacements (messages packed in rank order on
 * the send side; one guard element after each receive region, after the last for
 * MPI_Alltoall) and the send buffer's contents (a function of seed, n, sender, receiver and
 * position). Local. */
void bench_exchange_load(bench_exchange *x, const bench_sequence *seq, int n, int me,
                         uint64_t seed);

/* Collective: PMPI's result of x into x->ref (poisoned first). Returns the MPI code. */
int bench_exchange_reference(bench_exchange *x, MPI_Comm comm);

/* Fills x->rbuf with the poison byte that no message writes. */
void bench_exchange_poison(bench_exchange *x);

/* Whether x->rbuf differs from x->ref anywhere (guards included). */
int bench_exchange_differs(const bench_exchange *x);

/* Prints (stderr, this rank) where x->rbuf first differs from x->ref. */
void bench_exchange_report(const bench_exchange *x, int p, int me, const char *pattern,
                           uint64_t bytes, int call, const char *algorithm, const char *ran);

void bench_exchange_free(bench_exchange *x);

/* What one candidate slot (an index into opts->candidates) did on one pattern and size; the
 * same on every rank. */
typedef struct bench_slot {
    int skipped;  /* not run: needs hrelay, which is not loaded */
    int refused;  /* hrelay_set_algorithm refused the name */
    int wrong;    /* a checked result differed from PMPI's, or a call failed */
    int ran;      /* bench_ran_index of what executed its first call (rank 0's) */
    int active;   /* called after the first round (its status was ok there) */
    int checked;  /* calls compared with PMPI's result */
} bench_slot;

/* The calls of one pattern and size: round r of slot k at [r * nslots + k]. Rounds: one
 * checked, warmup, reps timed (from first_timed), one checked. */
typedef struct bench_log {
    int rounds, first_timed, nslots;
    double *t;    /* seconds of the call, max over ranks (rank 0) */
    double *cpu;  /* CPU seconds of all ranks around it (rank 0) */
    double *span; /* the wall seconds those CPU readings spanned, max over ranks (rank 0) */
    int *ran;     /* bench_ran_index of what executed it (rank 0's) */
} bench_log;

/* The status of a slot: ok, n/a (a family whose first call ran something else), WRONG,
 * no-hrelay or refused. */
const char *bench_slot_status(const bench_slot *s, int candidate);

/* Rank 0: rows[0 .. n) from the rows of nruns runs (runs[j * n + k]: candidate k in run j):
 * the first run's row with every timing figure the median over the runs (of those that are
 * numbers), min_s the least, the statuses and ran names joined, checked calls and stalls
 * summed, and run_ratio_native's range and the interval its median lies in (merge_runs.c).
 * Returns 0, or -1 if memory ran out. */
int bench_merge_runs(const bench_row *runs, int nruns, int n, bench_row *rows);

/* Rank 0: fills rows[0 .. nslots) from the slots and the log of seq's calls (rows.c).
 * Returns 0, or -1 if memory ran out. */
int bench_fill_rows(const bench_ctx *ctx, const char *pattern, uint64_t bytes,
                     const bench_sequence *seq, const bench_slot *slots, const bench_log *log,
                     bench_row *rows);

/* The header line of --calls's CSV. */
extern const char bench_calls_header[];

/* Rank 0: appends every call of run `run` of seq's calls, as log l holds them, to f (--calls:
 * one CSV line per call under bench_calls_header, rounds in order, each round's calls in the
 * order they ran). */
void bench_calls_write(FILE *f, const bench_ctx *ctx, const char *pattern, uint64_t bytes, int run,
                       const bench_sequence *seq, const bench_log *l);

/* Collective: measures every candidate on the calls of seq with `bytes` nominal bytes per
 * rank; fills rows[0 .. ncandidates) on rank 0. Returns the number of candidates whose result
 * differed from PMPI's (the same on every rank), or -1 if memory ran out on some rank. */
int bench_measure(bench_ctx *ctx, const char *pattern, uint64_t bytes, const bench_sequence *seq,
                  bench_row *rows);

#endif
