/* plan_time: how long plan_direct takes, and how big its plans are, on random matrices.
 * No MPI. Prints one line per (P, matrix kind): P, messages, steps, transfers, segments, the
 * median and minimum planning time over --reps runs (CLOCK_MONOTONIC), the plan's array bytes,
 * and the process's peak resident set so far. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "plan/matrix.h"
#include "plan/plan.h"

static const char *const prog = "plan_time";

/* Command-line settings. */
typedef struct bench_opts {
    int ps[16];
    int nps;
    int reps;
    uint64_t seed;
    uint64_t min_step;
    uint64_t max_bytes; /* entries are uniform in [1, max_bytes] */
    double density;     /* > 0: also run sparse matrices with this fraction of non-zeros */
    uint64_t mem_limit_mib; /* address-space limit, so a too large plan fails, not the OOM killer */
} bench_opts;

/* splitmix64: the next value of a deterministic 64-bit generator with state *s. */
static uint64_t next_random(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Fills m (already p x p, zeroed) with off-diagonal entries in [1, max_bytes], each present
 * with probability density (1 = dense). Deterministic in seed. */
static void fill_random(plan_matrix *m, double density, uint64_t max_bytes, uint64_t seed)
{
    uint64_t s = seed;
    uint64_t threshold = density >= 1 ? UINT64_MAX : (uint64_t)(density * 18446744073709551615.0);
    for (int i = 0; i < m->p; i++)
        for (int j = 0; j < m->p; j++) {
            uint64_t v = 0;
            if (i != j && (density >= 1 || next_random(&s) < threshold))
                v = 1 + next_random(&s) % max_bytes;
            m->bytes[(size_t)i * (size_t)m->p + (size_t)j] = v;
        }
}

/* Seconds on CLOCK_MONOTONIC. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* qsort order of doubles. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Bytes the plan's arrays occupy (allocated capacity, what the plan really holds). */
static size_t plan_bytes(const plan *pl)
{
    return pl->cap_steps * sizeof *pl->step_begin + pl->cap_transfers * sizeof *pl->transfers +
           pl->cap_segments * sizeof *pl->segments;
}

/* Peak resident set of this process so far, in MiB. */
static double peak_rss_mib(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru))
        return 0;
    return (double)ru.ru_maxrss / 1024.0; /* Linux: kilobytes */
}

/* Limits the address space to mib MiB (0: no limit). Returns 0, or -1 after printing why. */
static int limit_memory(uint64_t mib)
{
    if (mib == 0)
        return 0;
    struct rlimit rl = {.rlim_cur = (rlim_t)(mib << 20), .rlim_max = (rlim_t)(mib << 20)};
    if (setrlimit(RLIMIT_AS, &rl)) {
        perror("plan_time: setrlimit(RLIMIT_AS)");
        return -1;
    }
    return 0;
}

/* Plans one matrix o->reps times and prints its line; a planner failure (such as running out
 * of memory under --mem-limit) is printed as the line instead. Returns 0, or -1 if the
 * benchmark itself could not run. */
static int bench_one(const bench_opts *o, int p, double density, const char *kind)
{
    plan_matrix m;
    plan_error err = {0};
    if (plan_matrix_init(&m, p, &err)) {
        fprintf(stderr, "%s: %s\n", prog, err.text);
        return -1;
    }
    fill_random(&m, density, o->max_bytes, o->seed ^ ((uint64_t)p << 32));
    double *t = malloc(sizeof *t * (size_t)o->reps);
    plan pl = {0};
    plan_direct_opts dopts = {.min_step_bytes = o->min_step};
    int rc = t ? 0 : -1;
    for (int r = 0; r < o->reps && rc == 0; r++) {
        plan_free(&pl);
        double t0 = now_s();
        rc = plan_direct(&m, &dopts, &pl, &err);
        t[r] = now_s() - t0;
    }
    if (!t) {
        fprintf(stderr, "%s: out of memory\n", prog);
    } else if (rc) {
        printf("%6d %-6s %9zu   plan_direct failed: %s\n", p, kind, plan_matrix_messages(&m),
               err.text);
        rc = 0;
    } else {
        qsort(t, (size_t)o->reps, sizeof *t, cmp_double);
        double median = o->reps % 2 ? t[o->reps / 2] : (t[o->reps / 2 - 1] + t[o->reps / 2]) / 2;
        uint64_t bw = plan_bandwidth_term(&pl), lb = plan_matrix_lower_bound(&m, pl.duplex);
        printf("%6d %-6s %9zu %7zu %9zu %9zu %10.2f %10.2f %10.2f %9.1f %.4f\n", p, kind,
               plan_matrix_messages(&m), pl.nsteps, pl.ntransfers, pl.nsegments, median * 1e3,
               t[0] * 1e3, (double)plan_bytes(&pl) / (1 << 20), peak_rss_mib(),
               lb ? (double)bw / (double)lb : 1.0);
    }
    free(t);
    plan_free(&pl);
    plan_matrix_free(&m);
    return rc;
}

/* Prints the usage text to out. */
static void usage(FILE *out)
{
    fprintf(out,
            "Usage: %s [OPTIONS]\n"
            "Times plan_direct on random P x P byte matrices (no MPI).\n"
            "\n"
            "  --p LIST         comma-separated P values (default 64,256,1024)\n"
            "  --reps N         planning runs per matrix; the median is reported (default 5)\n"
            "  --seed N         random seed (default 1)\n"
            "  --min-step BYTES plan_direct's min_step_bytes (default 0: exact)\n"
            "  --max-bytes N    entries are uniform in [1, N] (default 1048576)\n"
            "  --sparse D       also run sparse matrices with a fraction D of non-zero entries\n"
            "  --mem-limit MIB  address-space limit of the process (default: half the physical\n"
            "                   memory), so that a plan too large to hold is reported as out\n"
            "                   of memory instead of the process being killed; 0 = no limit\n"
            "  --help           print this help\n"
            "\n"
            "Columns: P, kind, messages (non-zero off-diagonal entries), steps, transfers,\n"
            "segments, median and minimum planning time in ms, plan array MiB (capacity of\n"
            "step/transfer/segment arrays), peak RSS of the process so far in MiB, and the\n"
            "bandwidth term over the lower bound (1.0000 for exact plans).\n",
            prog);
}

/* Parses a positive decimal integer no larger than max. Returns 0, or -1. */
static int parse_u64(const char *s, uint64_t max, uint64_t *v)
{
    char *end;
    errno = 0;
    if (*s < '0' || *s > '9')
        return -1;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno || *end || x > max)
        return -1;
    *v = (uint64_t)x;
    return 0;
}

/* Parses "64,256,1024" into o->ps. Returns 0, or -1. */
static int parse_p_list(const char *s, bench_opts *o)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    o->nps = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        uint64_t v;
        if (o->nps == 16 || parse_u64(tok, 1 << 16, &v) || v == 0)
            return -1;
        o->ps[o->nps++] = (int)v;
    }
    return o->nps ? 0 : -1;
}

/* Fills o from argv. Returns -1 to go on, or the exit status. */
static int parse_args(int argc, char **argv, bench_opts *o)
{
    enum { O_P = 256, O_REPS, O_SEED, O_MIN_STEP, O_MAX_BYTES, O_SPARSE, O_MEM_LIMIT, O_HELP };
    static const struct option longopts[] = {
        {"p", required_argument, NULL, O_P},
        {"reps", required_argument, NULL, O_REPS},
        {"seed", required_argument, NULL, O_SEED},
        {"min-step", required_argument, NULL, O_MIN_STEP},
        {"max-bytes", required_argument, NULL, O_MAX_BYTES},
        {"sparse", required_argument, NULL, O_SPARSE},
        {"mem-limit", required_argument, NULL, O_MEM_LIMIT},
        {"help", no_argument, NULL, O_HELP},
        {NULL, 0, NULL, 0},
    };
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    *o = (bench_opts){.ps = {64, 256, 1024}, .nps = 3, .reps = 5, .seed = 1,
                      .max_bytes = 1 << 20,
                      .mem_limit_mib = pages > 0 && page > 0
                                           ? (uint64_t)pages * (uint64_t)page / 2 / (1 << 20)
                                           : 0};
    int c;
    uint64_t v;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        int bad = 0;
        switch (c) {
        case O_P:
            bad = parse_p_list(optarg, o);
            break;
        case O_REPS:
            bad = parse_u64(optarg, 1000, &v) || v == 0;
            o->reps = (int)v;
            break;
        case O_SEED:
            bad = parse_u64(optarg, UINT64_MAX, &o->seed);
            break;
        case O_MIN_STEP:
            bad = parse_u64(optarg, UINT64_MAX, &o->min_step);
            break;
        case O_MAX_BYTES:
            bad = parse_u64(optarg, UINT64_MAX / 2, &o->max_bytes) || o->max_bytes == 0;
            break;
        case O_MEM_LIMIT:
            bad = parse_u64(optarg, UINT64_MAX >> 20, &o->mem_limit_mib);
            break;
        case O_SPARSE: {
            char *end;
            o->density = strtod(optarg, &end);
            bad = *end || !(o->density > 0 && o->density <= 1);
            break;
        }
        case 'h':
        case O_HELP:
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
        if (bad) {
            fprintf(stderr, "%s: invalid value '%s' for --%s\n", prog, optarg,
                    longopts[c - O_P].name);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", prog, argv[optind]);
        usage(stderr);
        return 2;
    }
    return -1;
}

int main(int argc, char **argv)
{
    bench_opts o;
    int status = parse_args(argc, argv, &o);
    if (status >= 0)
        return status;
    if (limit_memory(o.mem_limit_mib))
        return 1;
    printf("# plan_direct planning time: reps %d, seed %" PRIu64 ", min-step %" PRIu64
           ", entries in [1, %" PRIu64 "], memory limit %" PRIu64 " MiB\n",
           o.reps, o.seed, o.min_step, o.max_bytes, o.mem_limit_mib);
    printf("%6s %-6s %9s %7s %9s %9s %10s %10s %10s %9s %s\n", "P", "kind", "messages", "steps",
           "transfers", "segments", "median_ms", "min_ms", "plan_MiB", "rss_MiB", "bw/lb");
    fflush(stdout);
    for (int k = 0; k < o.nps; k++) {
        if (bench_one(&o, o.ps[k], 1.0, "dense"))
            return 1;
        if (o.density > 0 && bench_one(&o, o.ps[k], o.density, "sparse"))
            return 1;
        fflush(stdout);
    }
    return 0;
}
