/* The command line of alltoallv_bench and its --help. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"

static const char *const prog = "alltoallv_bench";

/* Default sizes in bytes per rank: 1 KiB to 4 MiB in steps of 8. */
static const uint64_t default_sizes[] = {1024, 8192, 65536, 524288, 4194304};

/* Prints the usage text to out. */
static void usage(FILE *out)
{
    fprintf(out,
            "Usage: hrelay-run -n RANKS %s [OPTIONS]\n"
            "Times MPI_Alltoallv side by side: PMPI_Alltoallv, hrelay's native pass-through,\n"
            "every hrelay schedule family and auto, on exchange patterns of several sizes, fixed\n"
            "(every call the same) or drifting (new counts on every call). Each candidate calls\n"
            "on its own duplicate of MPI_COMM_WORLD (hrelay's plan cache and auto's decisions\n"
            "build up as for one call site); the candidates alternate in a fresh random order\n"
            "(from --seed and the run) in every round, or in blocks (--order); all ranks are\n"
            "synchronised by a barrier before each call, and a call's time is the maximum over\n"
            "ranks; every call is timed,\n"
            "the medians come from the --reps timed ones and the whole-run sums from all, from\n"
            "the first call on (auto's exploration included); every candidate's first and last\n"
            "calls (and, on a drifting pattern, every --check-every-th) are compared byte for\n"
            "byte with PMPI's result. Runs under hrelay (LD_PRELOAD of libhrelay.so, e.g.\n"
            "hrelay-run); without it only pmpi and native (MPI_Alltoallv) are timed. Needs at\n"
            "least 2 ranks.\n"
            "\n"
            "  --patterns LIST   comma-separated patterns, or all (default all):\n",
            prog);
    for (int k = 0; k < bench_npatterns; k++)
        fprintf(out, "                      %-14s %s\n", bench_patterns[k].name,
                bench_patterns[k].summary);
    fprintf(out,
            "                    (drift-*: the counts change on every call, the same sequence for\n"
            "                    every candidate; alltoall: every candidate calls MPI_Alltoall)\n"
            "  --sizes LIST      bytes per rank, comma-separated, with optional K, M, G suffix\n"
            "                    (powers of 1024), multiples of 8 (default 1K,8K,64K,512K,4M)\n"
            "  --families LIST   candidates, in table order (default all): pmpi (PMPI_Alltoallv,\n"
            "                    hrelay bypassed), native (hrelay steps aside: HRELAY_ALGO=native),\n"
            "                    direct, stepwise, greedy, walker-otto, transpose, forward,\n"
            "                    node-direct, node-transpose, node-forward, node-aggregate (the\n"
            "                    node-level families: on one node they plan ranks), auto\n"
            "  --reps N          timed repetitions of every candidate (default 10)\n"
            "  --runs K          measure every pattern and size K times over, each time on\n"
            "                    fresh communicators (auto explores again) with the rounds'\n"
            "                    orders drawn anew; every figure of a row is then the median\n"
            "                    over the K runs of that figure (min_s the least, checked calls\n"
            "                    the sum), and x_run's range over the runs is printed too;\n"
            "                    with K >= 5 each whole-run ratio of auto to native also gets\n"
            "                    the interval its median lies in at 90 %% confidence or more\n"
            "                    (order statistics of the runs' ratios, no distribution\n"
            "                    assumed: 5 runs min - max at 94 %%, 10 runs 2nd - 9th at\n"
            "                    98 %%), and the rows are counted by it: shown within 5 %%,\n"
            "                    shown more than 5 %% slower, or not decided by the runs\n"
            "                    (default 1)\n"
            "  --warmup N        calls of every candidate between its first (checked) call and\n"
            "                    the timed ones, so that plans are cached and auto has explored\n"
            "                    (default 8); timed for the whole-run sums only\n"
            "  --check-every N   drifting patterns: compare with PMPI every N-th call too,\n"
            "                    besides the first and last (default 10; 0: first and last only)\n"
            "  --order ORDER     rounds (default): the candidates take turns, one call each\n"
            "                    per round in a fresh random order; blocks: each candidate makes\n"
            "                    all its calls of a run in a row, the candidates in a random\n"
            "                    order per run (a call follows the same candidate's call, as in a\n"
            "                    program running one algorithm: on a TCP network a call that\n"
            "                    loses packets slows the next ones, whichever candidate made it)\n"
            "  --node-size K     nodes for the node-level bound: consecutive groups of K ranks;\n"
            "                    auto (default): the ranks that share memory\n"
            "                    (MPI_COMM_TYPE_SHARED); 1: every rank its own node\n"
            "  --rate RATE       link rate in bits/s for the lower bound, optional k, M, G, T\n"
            "                    suffix (powers of 1000), e.g. 200M; default: measured between\n"
            "                    ranks 0 and 1 at the largest size (say so in the output)\n"
            "  --duplex MODE     full (default): bound = largest bytes sent or received by a\n"
            "                    rank; half: largest sent + received (self-copies excluded)\n"
            "  --seed N          seed of the random patterns (default 1)\n"
            "  --wo-k K          walker-otto pattern: cyclic(r) -> cyclic(K r) (default 4)\n"
            "  --redist Q,R,S    cyclic-pq pattern: cyclic(R) on all P ranks -> cyclic(S) on the\n"
            "                    first Q (default P - P/4, 3, 5; 0 for Q means the default)\n"
            "  --fft-grid RxC    fft-xy, fft-yz: the R x C process grid (R * C = P; default\n"
            "                    MPI_Dims_create)\n"
            "  --bfs-max SIZE    drift-bfs: the peak bytes per rank of its level sweep, which\n"
            "                    replaces --sizes for it (default 4M)\n"
            "  --moe-k K         drift-moe: experts per token (default 2)\n"
            "  --moe-token-bytes B  drift-moe: bytes per token, a multiple of 8 (default 2048)\n"
            "  --moe-capacity F  drift-moe: capacity factor: a rank sends an expert at most\n"
            "                    ceil(F k T / P) of its T tokens (default 1.25; 0: no limit)\n"
            "  --csv FILE        write the table as CSV\n"
            "  --json FILE       write the table and the run's facts as JSON\n"
            "  --calls FILE      write every call as a CSV line: pattern, bytes_per_rank, run,\n"
            "                    round, position (in the round's order, from 0; with --order\n"
            "                    blocks the candidate's block's), algorithm, ran (as in the\n"
            "                    table), seconds\n"
            "                    (the maximum over ranks), bound_s (the call's lower bound at\n"
            "                    the link rate)\n"
            "  --quiet           no text table on standard output\n"
            "  --matrices DIR    write the byte matrix of every pattern and size (of every call\n"
            "                    a drifting one makes in the run) into DIR, in hrelay-plan's\n"
            "                    format, as PATTERN-BYTES.txt (drifting: PATTERN-BYTES-cN.txt)\n"
            "                    and exit without timing anything; DIR must exist\n"
            "  --stall F,MS      a stall of MPI's own algorithm is a call of it more than F x\n"
            "                    its reference and MS ms over it (default 2,10: a TCP\n"
            "                    retransmission, not an agreement of hrelay's); the reference\n"
            "                    is native's median (drifting patterns: native's median time\n"
            "                    per bound byte times the call's bound); stalls are counted\n"
            "                    and the whole-run ratios given again with each at it\n"
            "  --inject-error    testing: corrupt one received byte of the first hrelay family's\n"
            "                    checked call, so the byte compare must fail (exit status 1)\n"
            "  --help            print this help\n"
            "\n"
            "Output (text table, CSV, JSON), one row per pattern, size and candidate: pattern,\n"
            "ranks, bytes_per_rank, algorithm, ran (what executed the timed calls, e.g. what\n"
            "auto chose: hrelay_last_run's family and variant, as \"direct/window 4\"; a\n"
            "library without it names the family only), status (ok; n/a: the family handed\n"
            "the pattern to another one and was not timed; WRONG: its result differed from\n"
            "PMPI's and was not timed; no-hrelay; refused: this hrelay does not know the\n"
            "family),\n"
            "reps, median_s, q1_s, q3_s, min_s (seconds per call), lower_bound_s, bound_bytes,\n"
            "ratio_to_native and ratio_to_bound (medians), cpu_use (CPU seconds of all ranks,\n"
            "user + sys, over the wall time of the calls: busy cores), bound_node_s and\n"
            "bound_node_bytes (the node-level bound: the most off-node bytes a node sends or\n"
            "receives, at --rate: one NIC per node), ratio_node_bound, run_calls (every call of\n"
            "the candidate from its first, checked, warm-up and timed), run_total_s (their\n"
            "times summed), run_ratio_native and run_ratio_bound (that sum over native's, over\n"
            "the bounds' sum), checked_calls (calls compared with PMPI's result), runs (--runs:\n"
            "the rows are medians over that many runs), run_ratio_native_lo and _hi (the least\n"
            "and the largest run_ratio_native of those runs), stalls (calls of the whole run\n"
            "that ran MPI's own algorithm and took more than 2 x their reference and 10 ms\n"
            "over it (--stall), e.g. a lost packet's retransmission; the reference: native's\n"
            "median, or for a drifting pattern native's median time per bound byte times the\n"
            "call's bound; summed over the runs) and run_ratio_steady (run_ratio_native with\n"
            "each such call, the row's and native's, counted at its reference; a plan's calls\n"
            "are never discounted), run_ratio_ci_lo, _hi and _level (with --runs 5 or more:\n"
            "the interval run_ratio_native's median lies in and the confidence it holds it\n"
            "with; empty and 0 with fewer runs). Drifting\n"
            "patterns: bounds are medians over the timed calls and the bound ratios medians of\n"
            "each call's time over its own bound. The end of the run prints the CPU use of the\n"
            "whole run and auto against native over the whole run per pattern and size (with\n"
            "MPI's stalls and without), and auto's saving split by what its calls ran, pooled\n"
            "over the runs: \"plans on N of M calls saving X %%, MPI's calls Y %%\" (JSON\n"
            "plan_calls, plan_saving, mpi_saving): per round, native's call less auto's, over\n"
            "native's whole time, summed over auto's calls that ran a plan (X) and over those\n"
            "that ran MPI's own algorithm (Y: MPI against itself, the network's share).\n"
            "\n"
            "Exit status: 0; 1 if a result differed from PMPI's or the run failed; 2 for a\n"
            "usage error.\n");
}

/* Parses a decimal integer in [min, max]. Returns 0, or -1. */
static int parse_int(const char *s, long long min, long long max, long long *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || end == s || *end || x < min || x > max)
        return -1;
    *v = x;
    return 0;
}

/* Parses a byte count with an optional K, M, G suffix (powers of 1024). Returns 0, or -1. */
static int parse_size(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    if (*s < '0' || *s > '9')
        return -1;
    unsigned long long x = strtoull(s, &end, 10);
    int shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    if (shift)
        end++;
    if (errno || *end || x > (UINT64_MAX >> shift))
        return -1;
    *v = (uint64_t)x << shift;
    return 0;
}

/* Parses a rate in bits/s with an optional k, M, G, T suffix (powers of 1000). */
static int parse_rate(const char *s, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    double scale = 1;
    switch (*end) {
    case 'k': case 'K': scale = 1e3; break;
    case 'M': case 'm': scale = 1e6; break;
    case 'G': case 'g': scale = 1e9; break;
    case 'T': case 't': scale = 1e12; break;
    default: break;
    }
    if (scale != 1)
        end++;
    if (errno || end == s || *end || !(x > 0))
        return -1;
    *v = x * scale;
    return 0;
}

/* Splits a comma-separated list in place; calls take(item) for each. Returns 0, or -1 if an
 * item was refused or the list is empty. */
static int each_item(const char *list, int (*take)(const char *, bench_opts *), bench_opts *o)
{
    char *copy = strdup(list), *save = NULL;
    int n = 0, rc = copy ? 0 : -1;
    for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && rc == 0;
         tok = strtok_r(NULL, ",", &save), n++)
        rc = take(tok, o);
    free(copy);
    return rc == 0 && n > 0 ? 0 : -1;
}

/* Appends to list (*n entries, at most max) the index find(s) of a table of count names, or
 * every index for "all". Returns 0, or -1 for an unknown name or a full list. */
static int take_name(const char *s, int (*find)(const char *), int count, int *list, int *n,
                     int max)
{
    int all = !strcmp(s, "all"), k = all ? 0 : find(s);
    if (k < 0)
        return -1;
    for (int end = all ? count : k + 1; k < end; k++) {
        if (*n == max)
            return -1;
        list[(*n)++] = k;
    }
    return 0;
}

/* List items. */
static int take_pattern(const char *s, bench_opts *o)
{
    return take_name(s, bench_pattern_find, bench_npatterns, o->patterns, &o->npatterns,
                     BENCH_MAX_PATTERNS);
}

static int take_family(const char *s, bench_opts *o)
{
    return take_name(s, bench_candidate_find, bench_ncandidates, o->candidates,
                     &o->ncandidates, BENCH_MAX_CANDIDATES);
}

static int take_size(const char *s, bench_opts *o)
{
    uint64_t v;
    if (parse_size(s, &v) || v == 0 || v % BENCH_ELEM || o->nsizes == BENCH_MAX_SIZES)
        return -1;
    o->sizes[o->nsizes++] = v;
    return 0;
}

/* Parses "RxC" into the fft grid options. */
static int parse_grid(const char *s, bench_opts *o)
{
    char extra;
    int r, c;
    if (sscanf(s, "%dx%d%c", &r, &c, &extra) != 2 || r < 1 || c < 1)
        return -1;
    o->fft_rows = r;
    o->fft_cols = c;
    return 0;
}

/* Parses a non-negative decimal number. */
static int parse_double(const char *s, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (errno || end == s || *end || !(x >= 0))
        return -1;
    *v = x;
    return 0;
}

/* Parses "auto" or a rank count >= 1 into node_size (0 for auto). */
static int parse_node_size(const char *s, bench_opts *o)
{
    long long v;
    if (!strcmp(s, "auto")) {
        o->node_size = 0;
        return 0;
    }
    if (parse_int(s, 1, 1 << 30, &v))
        return -1;
    o->node_size = (int)v;
    return 0;
}

/* Parses "Q,R,S" into the cyclic-pq options. */
static int parse_redist(const char *s, bench_opts *o)
{
    char extra;
    int q, r, t;
    if (sscanf(s, "%d,%d,%d%c", &q, &r, &t, &extra) != 3 || q < 0 || r < 1 || t < 1)
        return -1;
    o->redist_q = q;
    o->redist_r = r;
    o->redist_s = t;
    return 0;
}

/* Parses "FACTOR,MS" (FACTOR >= 1, MS >= 0) into the stall rule. */
static int parse_stall(const char *s, bench_opts *o)
{
    char extra;
    double factor, ms;
    if (sscanf(s, "%lf,%lf%c", &factor, &ms, &extra) != 2 || !(factor >= 1) || !(ms >= 0) ||
        !(ms < 1e9))
        return -1;
    o->stall_factor = factor;
    o->stall_floor_s = ms * 1e-3;
    return 0;
}

int bench_parse_args(int argc, char **argv, bench_opts *o, int print)
{
    enum { O_PATTERNS = 256, O_SIZES, O_FAMILIES, O_REPS, O_RUNS, O_WARMUP, O_RATE, O_DUPLEX,
           O_SEED, O_WO_K, O_REDIST, O_CSV, O_JSON, O_QUIET, O_INJECT, O_HELP, O_CHECK_EVERY,
           O_NODE_SIZE, O_FFT_GRID, O_BFS_MAX, O_MOE_K, O_MOE_TOKEN, O_MOE_CAPACITY,
           O_MATRICES, O_CALLS, O_ORDER, O_STALL };
    static const struct option longopts[] = {
        {"patterns", required_argument, NULL, O_PATTERNS},
        {"sizes", required_argument, NULL, O_SIZES},
        {"families", required_argument, NULL, O_FAMILIES},
        {"reps", required_argument, NULL, O_REPS},
        {"runs", required_argument, NULL, O_RUNS},
        {"warmup", required_argument, NULL, O_WARMUP},
        {"rate", required_argument, NULL, O_RATE},
        {"duplex", required_argument, NULL, O_DUPLEX},
        {"seed", required_argument, NULL, O_SEED},
        {"wo-k", required_argument, NULL, O_WO_K},
        {"redist", required_argument, NULL, O_REDIST},
        {"csv", required_argument, NULL, O_CSV},
        {"json", required_argument, NULL, O_JSON},
        {"quiet", no_argument, NULL, O_QUIET},
        {"inject-error", no_argument, NULL, O_INJECT},
        {"help", no_argument, NULL, O_HELP},
        {"check-every", required_argument, NULL, O_CHECK_EVERY},
        {"node-size", required_argument, NULL, O_NODE_SIZE},
        {"fft-grid", required_argument, NULL, O_FFT_GRID},
        {"bfs-max", required_argument, NULL, O_BFS_MAX},
        {"moe-k", required_argument, NULL, O_MOE_K},
        {"moe-token-bytes", required_argument, NULL, O_MOE_TOKEN},
        {"moe-capacity", required_argument, NULL, O_MOE_CAPACITY},
        {"matrices", required_argument, NULL, O_MATRICES},
        {"calls", required_argument, NULL, O_CALLS},
        {"order", required_argument, NULL, O_ORDER},
        {"stall", required_argument, NULL, O_STALL},
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->reps = 10;
    o->runs = 1;
    o->warmup = 8;
    o->seed = 1;
    o->wo_k = 4;
    o->redist_r = 3;
    o->redist_s = 5;
    o->check_every = 10;
    o->bfs_max = 4u << 20;
    o->moe_k = 2;
    o->moe_token_bytes = 2048;
    o->moe_capacity = 1.25;
    o->stall_factor = BENCH_STALL;
    o->stall_floor_s = BENCH_STALL_MIN_S;
    opterr = print;
    optind = 1;
    int c;
    long long v;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        int bad = 0;
        switch (c) {
        case O_PATTERNS: o->npatterns = 0; bad = each_item(optarg, take_pattern, o); break;
        case O_SIZES: o->nsizes = 0; bad = each_item(optarg, take_size, o); break;
        case O_FAMILIES: o->ncandidates = 0; bad = each_item(optarg, take_family, o); break;
        case O_REPS:
            bad = parse_int(optarg, 1, 100000, &v);
            o->reps = (int)v;
            break;
        case O_RUNS:
            bad = parse_int(optarg, 1, 1000, &v);
            o->runs = (int)v;
            break;
        case O_WARMUP:
            bad = parse_int(optarg, 0, 100000, &v);
            o->warmup = (int)v;
            break;
        case O_RATE: bad = parse_rate(optarg, &o->rate_bps); break;
        case O_DUPLEX:
            bad = strcmp(optarg, "full") && strcmp(optarg, "half");
            o->half_duplex = !strcmp(optarg, "half");
            break;
        case O_SEED:
            bad = parse_int(optarg, 0, INT64_MAX, &v);
            o->seed = (uint64_t)v;
            break;
        case O_WO_K:
            bad = parse_int(optarg, 2, 4096, &v);
            o->wo_k = (int)v;
            break;
        case O_REDIST: bad = parse_redist(optarg, o); break;
        case O_CSV: o->csv = optarg; break;
        case O_JSON: o->json = optarg; break;
        case O_QUIET: o->quiet = 1; break;
        case O_INJECT: o->inject_error = 1; break;
        case O_CHECK_EVERY:
            bad = parse_int(optarg, 0, 1 << 30, &v);
            o->check_every = (int)v;
            break;
        case O_NODE_SIZE: bad = parse_node_size(optarg, o); break;
        case O_FFT_GRID: bad = parse_grid(optarg, o); break;
        case O_BFS_MAX:
            bad = parse_size(optarg, &o->bfs_max) || o->bfs_max < BENCH_ELEM ||
                  o->bfs_max % BENCH_ELEM;
            break;
        case O_MOE_K:
            bad = parse_int(optarg, 1, 1 << 20, &v);
            o->moe_k = (int)v;
            break;
        case O_MOE_TOKEN:
            bad = parse_size(optarg, &o->moe_token_bytes) || o->moe_token_bytes == 0 ||
                  o->moe_token_bytes % BENCH_ELEM;
            break;
        case O_MOE_CAPACITY: bad = parse_double(optarg, &o->moe_capacity); break;
        case O_MATRICES: o->matrices = optarg; break;
        case O_CALLS: o->calls = optarg; break;
        case O_ORDER:
            bad = strcmp(optarg, "rounds") && strcmp(optarg, "blocks");
            o->blocks = !strcmp(optarg, "blocks");
            break;
        case O_STALL: bad = parse_stall(optarg, o); break;
        case 'h':
        case O_HELP:
            if (print)
                usage(stdout);
            return 0;
        default:
            if (print)
                fprintf(stderr, "%s: try --help\n", prog);
            return 2;
        }
        if (bad) {
            if (print)
                fprintf(stderr, "%s: invalid value '%s' for --%s (try --help)\n", prog, optarg,
                        longopts[c - O_PATTERNS].name);
            return 2;
        }
    }
    if (optind < argc) {
        if (print)
            fprintf(stderr, "%s: unexpected argument '%s' (try --help)\n", prog, argv[optind]);
        return 2;
    }
    if (o->npatterns == 0)
        take_pattern("all", o);
    if (o->ncandidates == 0)
        take_family("all", o);
    if (o->nsizes == 0) {
        memcpy(o->sizes, default_sizes, sizeof default_sizes);
        o->nsizes = (int)(sizeof default_sizes / sizeof *default_sizes);
    }
    return -1;
}
