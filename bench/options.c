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
            "every hrelay schedule family and auto, on exchange patterns of several sizes. Each\n"
            "candidate calls on its own duplicate of MPI_COMM_WORLD (hrelay's plan cache and\n"
            "auto's decisions build up as for one call site); the candidates alternate in a\n"
            "fresh random order (from --seed) in every repetition and warm-up round (all\n"
            "ranks synchronised by a barrier before each call; a call's time is the maximum\n"
            "over ranks); every candidate's first and last calls are compared byte for\n"
            "byte with PMPI_Alltoallv's result. Runs\n"
            "under hrelay (LD_PRELOAD of libhrelay.so, e.g. hrelay-run); without it only pmpi\n"
            "and native (MPI_Alltoallv) are timed. Needs at least 2 ranks.\n"
            "\n"
            "  --patterns LIST   comma-separated patterns, or all (default all):\n",
            prog);
    for (int k = 0; k < bench_npatterns; k++)
        fprintf(out, "                      %-14s %s\n", bench_patterns[k].name,
                bench_patterns[k].summary);
    fprintf(out,
            "  --sizes LIST      bytes per rank, comma-separated, with optional K, M, G suffix\n"
            "                    (powers of 1024), multiples of 8 (default 1K,8K,64K,512K,4M)\n"
            "  --families LIST   candidates, in table order (default all): pmpi (PMPI_Alltoallv,\n"
            "                    hrelay bypassed), native (hrelay steps aside: HRELAY_ALGO=native),\n"
            "                    direct, stepwise, greedy, walker-otto, transpose, forward, auto\n"
            "  --reps N          timed repetitions of every candidate (default 10)\n"
            "  --warmup N        untimed calls of every candidate before the timed ones, so that\n"
            "                    plans are cached and auto has explored (default 8); each after a\n"
            "                    barrier, as the timed calls\n"
            "  --rate RATE       link rate in bits/s for the lower bound, optional k, M, G, T\n"
            "                    suffix (powers of 1000), e.g. 200M; default: measured between\n"
            "                    ranks 0 and 1 at the largest size (say so in the output)\n"
            "  --duplex MODE     full (default): bound = largest bytes sent or received by a\n"
            "                    rank; half: largest sent + received (self-copies excluded)\n"
            "  --seed N          seed of the random patterns (default 1)\n"
            "  --wo-k K          walker-otto pattern: cyclic(r) -> cyclic(K r) (default 4)\n"
            "  --redist Q,R,S    cyclic-pq pattern: cyclic(R) on all P ranks -> cyclic(S) on the\n"
            "                    first Q (default P - P/4, 3, 5; 0 for Q means the default)\n"
            "  --csv FILE        write the table as CSV\n"
            "  --json FILE       write the table and the run's facts as JSON\n"
            "  --quiet           no text table on standard output\n"
            "  --inject-error    testing: corrupt one received byte of the first hrelay family's\n"
            "                    checked call, so the byte compare must fail (exit status 1)\n"
            "  --help            print this help\n"
            "\n"
            "Output (text table, CSV, JSON), one row per pattern, size and candidate: pattern,\n"
            "ranks, bytes_per_rank, algorithm, ran (what executed the timed calls, e.g. what\n"
            "auto chose), status (ok; n/a: the family handed the pattern to another one and was\n"
            "not timed; WRONG: its result differed from PMPI's and was not timed; no-hrelay;\n"
            "refused: this hrelay does not know the family),\n"
            "reps, median_s, q1_s, q3_s, min_s (seconds per call), lower_bound_s, bound_bytes,\n"
            "ratio_to_native and ratio_to_bound (medians), cpu_use (CPU seconds of all ranks,\n"
            "user + sys, over the wall time of the calls: busy cores). The end of the run prints\n"
            "the CPU use of the whole run.\n"
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

int bench_parse_args(int argc, char **argv, bench_opts *o, int print)
{
    enum { O_PATTERNS = 256, O_SIZES, O_FAMILIES, O_REPS, O_WARMUP, O_RATE, O_DUPLEX, O_SEED, O_WO_K,
           O_REDIST, O_CSV, O_JSON, O_QUIET, O_INJECT, O_HELP };
    static const struct option longopts[] = {
        {"patterns", required_argument, NULL, O_PATTERNS},
        {"sizes", required_argument, NULL, O_SIZES},
        {"families", required_argument, NULL, O_FAMILIES},
        {"reps", required_argument, NULL, O_REPS},
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
        {NULL, 0, NULL, 0},
    };
    memset(o, 0, sizeof *o);
    o->reps = 10;
    o->warmup = 8;
    o->seed = 1;
    o->wo_k = 4;
    o->redist_r = 3;
    o->redist_s = 5;
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
