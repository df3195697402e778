/* bench/: the MPI_Alltoallv benchmark (alltoallv_bench). Shared types of its parts:
 *   options.c    command line and --help
 *   patterns.c   the simple exchange patterns; pattern_redist.c the block-cyclic ones;
 *                pattern_samplesort.c the sample-sort exchange
 *   candidates.c the algorithms timed side by side and the hrelay tool API (dlsym)
 *   measure.c    one pattern and size: buffers, the check against PMPI, the timed rounds
 *   rate.c       the link rate and the lower bound
 *   stats.c      quantiles, CPU time
 *   output.c     the text table, CSV and JSON
 * Every message is a whole number of 8-byte elements (MPI_UINT64_T). */
#ifndef HRELAY_BENCH_BENCH_H
#define HRELAY_BENCH_BENCH_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Bytes of one element of every message. */
#define BENCH_ELEM 8

enum { BENCH_MAX_SIZES = 32, BENCH_MAX_PATTERNS = 16, BENCH_MAX_CANDIDATES = 16 };

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
    int warmup;       /* untimed calls of every candidate before the timed ones */
    uint64_t seed;
    double rate_bps;  /* link rate in bits/s; 0: measure it */
    int half_duplex;  /* lower bound: sent + received instead of the larger of the two */
    const char *csv;  /* output files, NULL for none */
    const char *json;
    int wo_k;         /* walker-otto pattern: cyclic(r) -> cyclic(K r) */
    int redist_q, redist_r, redist_s; /* cyclic-pq pattern; redist_q 0: P - P/4 */
    int inject_error; /* corrupt one received byte once, to prove the check works */
    int quiet;        /* no text table on stdout */
} bench_opts;

/* Fills o from argv. Returns -1 to go on, else the exit status (0 after --help, 2 for a usage
 * error); messages go to out / err only if print is set (rank 0). */
int bench_parse_args(int argc, char **argv, bench_opts *o, int print);

/* ---- patterns (patterns.c, pattern_redist.c, pattern_samplesort.c) ---- */

/* What a pattern is built from: P, elements per rank, the seed and the pattern options. */
typedef struct bench_pattern_in {
    int p;
    uint64_t elems; /* elements each rank sends, nominally */
    uint64_t seed;
    const bench_opts *opts;
    MPI_Comm comm; /* only for patterns that gather (samplesort) */
} bench_pattern_in;

/* Fills m (p x p elements, zeroed; m[i * p + j]: elements rank i sends to rank j, the diagonal
 * a local copy) with the pattern. Returns 0, or 1 if the pattern does not apply to these
 * parameters (why is filled, NUL-terminated), or -1 if memory ran out. Collective only where
 * in->comm is used; deterministic in the inputs. */
typedef int (*bench_pattern_fn)(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap);

typedef struct bench_pattern {
    const char *name;
    const char *summary; /* one line for --help */
    bench_pattern_fn fill;
} bench_pattern;

extern const bench_pattern bench_patterns[];
extern const int bench_npatterns;

/* The index of the pattern called name, or -1. */
int bench_pattern_find(const char *name);

/* Pattern functions defined outside patterns.c. */
int bench_pattern_samplesort(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap);
int bench_pattern_walker_otto(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap);
int bench_pattern_cyclic_pq(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap);

/* Splits total into n shares proportional to w[0 .. n) (not all zero) into out: the integer
 * parts of total * w[k] / sum(w), the rest one each to the shares with w[k] > 0 in index
 * order from first. The shares sum to total. */
void bench_split(uint64_t total, const uint64_t *w, int n, int first, uint64_t *out);

/* splitmix64: the next value of a deterministic 64-bit generator with state *s. */
uint64_t bench_random(uint64_t *s);

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

/* The exchange of one pattern and size, as MPI_Alltoallv arguments of this rank. */
typedef struct bench_exchange {
    uint64_t *sbuf, *rbuf, *ref; /* ref: PMPI's result */
    int *scount, *sdispl, *rcount, *rdispl;
    size_t sn, rn; /* elements of sbuf, and of rbuf and ref (gaps included) */
} bench_exchange;

/* Makes candidate c the algorithm of the next call on comm (hrelay_set_algorithm; nothing for
 * pmpi, or without hrelay). Returns 0, or -1 if hrelay refused the name. Collective in the
 * sense of hrelay.h. */
int bench_select(const bench_hrelay *h, int c, MPI_Comm comm);

/* One MPI_Alltoallv of x on comm by candidate c (selected before). Returns the MPI code. */
int bench_call(int c, const bench_exchange *x, MPI_Comm comm);

/* The name of what ran the last call of candidate c: "pmpi", hrelay_last_algorithm, or
 * "mpi" when hrelay is not loaded. */
const char *bench_ran(const bench_hrelay *h, int c, MPI_Comm comm);

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

/* User plus system CPU seconds of this process so far (getrusage), 0 if unavailable. */
double bench_cpu_seconds(void);

/* The same quantity from CLOCK_PROCESS_CPUTIME_ID: exact to the nanosecond, for short spans
 * such as one call (getrusage's user/system split is only as fine as the scheduler tick). */
double bench_cpu_now(void);

/* ---- results (output.c) ---- */

/* One line of the table: an algorithm on one pattern and size. */
typedef struct bench_row {
    const char *pattern;
    int p;
    uint64_t bytes_per_rank;
    const char *algorithm;
    char ran[96];       /* what executed the timed calls ("direct", "native+direct", ...) */
    const char *status; /* "ok", "n/a" (the family handed the pattern on), "WRONG", "no-hrelay",
                           "refused" (hrelay does not know the family) */
    int reps;
    bench_quantiles t;  /* seconds, max over ranks per call */
    double cpu_use;     /* CPU seconds of all ranks over wall seconds, during these calls */
    uint64_t bound_bytes;
    double bound_s;
    double ratio_native, ratio_bound; /* NAN when unknown */
} bench_row;

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
    int half_duplex;
    uint64_t seed;
    int reps, warmup;
    long online_cpus;
} bench_meta;

/* The output files and what has been written; rank 0 only. */
typedef struct bench_out {
    FILE *csv, *json;
    int rows_written;
    int quiet;
    char skipped[65536]; /* JSON objects of the patterns and sizes not run */
} bench_out;

/* Opens the files of o (none if NULL) and writes their headers. Returns 0, or -1 with errno
 * set (*failed names the file). */
int bench_out_open(bench_out *out, const bench_opts *o, const bench_meta *meta,
                   const char **failed);

/* Prints the rows of one pattern and size as a text table (unless quiet) and appends them to
 * the files. */
void bench_out_rows(bench_out *out, const bench_row *rows, int n, const char *pattern_desc);

/* Records a pattern and size that was not run, and why. */
void bench_out_skipped(bench_out *out, const char *pattern, uint64_t bytes, const char *why);

/* Writes the run summary (CPU use of the whole run, wall time, failures) and closes the files.
 * Returns 0, or -1 if a write failed. */
int bench_out_close(bench_out *out, double cpu_s, double wall_s, long online_cpus, int p,
                    int failures);

/* ---- one pattern and size (measure.c) ---- */

/* Everything a measurement needs besides the pattern. */
typedef struct bench_ctx {
    const bench_opts *opts;
    const bench_hrelay *hrelay;
    int have_hrelay;
    int p, rank;
    double rate_bps;
    MPI_Comm comm;
    int injected; /* the --inject-error corruption was done */
} bench_ctx;

/* Collective: measures every candidate on the exchange of matrix m (p x p elements) with
 * `bytes` nominal bytes per rank; fills rows[0 .. ncandidates) on rank 0. Returns the number
 * of candidates whose result differed from PMPI's (the same on every rank), or -1 if memory
 * ran out on some rank. */
int bench_measure(bench_ctx *ctx, const char *pattern, uint64_t bytes, const uint64_t *m,
                  bench_row *rows);

#endif
