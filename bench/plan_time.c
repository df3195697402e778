/* plan_time: how long each schedule family takes to plan (plan_build, what the shim and
 * hrelay-plan call), and how much memory its plans and its planning take, on random matrices.
 * No MPI. Prints one line per (P, matrix kind, family): P, messages, steps, transfers,
 * segments, the median and minimum wall time and the median CPU time over --reps runs, the
 * plan's array memory, the peak memory planning took, and the bandwidth term over the lower
 * bound of the plan's duplex mode. */
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

enum { MAX_PS = 16 };

/* Command-line settings. */
typedef struct bench_opts {
    int ps[MAX_PS];
    int nps;
    int reps;
    uint64_t seed;
    int algos[PLAN_ALGO_COUNT]; /* families to time, in order */
    int nalgos;
    plan_options plan;      /* min step (default automatic), duplex, grain, packet */
    uint64_t max_bytes;     /* entries are uniform in [1, max_bytes] */
    double density;         /* > 0: also run sparse matrices with this fraction of non-zeros */
    int cyclic_k;           /* > 0: also run a cyclic(r) -> cyclic(K r) redistribution */
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

/* Fills m (p x p) with the redistribution of P * K blocks of 4096 bytes from cyclic(r) to
 * cyclic(K r) (Walker and Otto): block B goes from rank B mod P to rank (B / K) mod P. */
static void fill_cyclic(plan_matrix *m, int K)
{
    uint64_t P = (uint64_t)m->p;
    memset(m->bytes, 0, P * P * sizeof *m->bytes);
    for (uint64_t B = 0; B < P * (uint64_t)K; B++)
        m->bytes[(B % P) * P + (B / (uint64_t)K) % P] += 4096;
}

/* Seconds on the given clock. */
static double seconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* qsort order of doubles. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of the n values of v (sorted in place). */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Bytes the plan's arrays hold (what the plan really uses; the allocated capacity may be up
 * to twice that, but pages never touched cost no memory). */
static size_t plan_bytes(const plan *pl)
{
    return (pl->nsteps + 1) * sizeof *pl->step_begin + pl->ntransfers * sizeof *pl->transfers +
           pl->nsegments * sizeof *pl->segments;
}

/* The value in kB of a "Name: N kB" line of /proc/self/status (0 if unavailable). */
static double status_kib(const char *name)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double v = 0;
    size_t n = strlen(name);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, name, n) && line[n] == ':')
            v = strtod(line + n + 1, NULL);
    if (f)
        fclose(f);
    return v;
}

/* Resets the peak resident set (VmHWM) to the current one (Linux clear_refs 5); returns 0 if
 * that worked. */
static int reset_peak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f)
        return -1;
    int bad = fputs("5", f) < 0;
    return fclose(f) || bad ? -1 : 0;
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

/* Plans m with family algo o->reps times and prints its line; a planner failure (such as
 * running out of memory under --mem-limit) is printed as the line instead. Returns 0, or -1 if
 * the benchmark itself could not run. */
static int bench_one(const bench_opts *o, const plan_matrix *m, const char *kind, plan_algo algo)
{
    double *wall = malloc(sizeof *wall * (size_t)o->reps), *cpu = malloc(sizeof *cpu * (size_t)o->reps);
    double peak = -1;
    plan pl = {0};
    plan_error err = {0};
    int rc = wall && cpu ? 0 : -1;
    for (int r = 0; r < o->reps && rc == 0; r++) {
        plan_free(&pl);
        /* peak memory of the last run: resident set at its highest minus before planning */
        int measured = r == o->reps - 1 && reset_peak() == 0;
        double rss0 = measured ? status_kib("VmRSS") : 0;
        double w0 = seconds(CLOCK_MONOTONIC), c0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
        rc = plan_build(algo, m, &o->plan, &pl, &err);
        cpu[r] = seconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
        wall[r] = seconds(CLOCK_MONOTONIC) - w0;
        if (measured)
            peak = (status_kib("VmHWM") - rss0) / 1024;
    }
    if (!wall || !cpu) {
        fprintf(stderr, "%s: out of memory\n", prog);
    } else if (rc) {
        printf("%6d %-6s %-11s %9zu   failed: %s\n", m->p, kind, plan_algo_name(algo),
               plan_matrix_messages(m), err.text);
        rc = 0;
    } else {
        double med = median(wall, o->reps), least = wall[0], cpu_med = median(cpu, o->reps);
        uint64_t bw = plan_bandwidth_term(&pl), lb = plan_matrix_lower_bound(m, pl.duplex);
        printf("%6d %-6s %-11s %-4s %9zu %7zu %9zu %9zu %9.2f %9.2f %9.2f %9.1f %9.1f %.4f\n",
               m->p, kind, plan_algo_name(algo), pl.duplex == PLAN_DUPLEX_HALF ? "half" : "full",
               plan_matrix_messages(m), pl.nsteps, pl.ntransfers, pl.nsegments, med * 1e3,
               least * 1e3, cpu_med * 1e3, (double)plan_bytes(&pl) / (1 << 20), peak,
               lb ? (double)bw / (double)lb : 1.0);
    }
    free(wall);
    free(cpu);
    plan_free(&pl);
    return rc;
}

/* Times every chosen family on one matrix of p ranks: random with the given density, or (kind
 * "cyclic") o->cyclic_k's redistribution. Returns 0 or -1. */
static int bench_matrix(const bench_opts *o, int p, double density, const char *kind)
{
    plan_matrix m;
    plan_error err = {0};
    if (plan_matrix_init(&m, p, &err)) {
        fprintf(stderr, "%s: %s\n", prog, err.text);
        return -1;
    }
    if (!strcmp(kind, "cyclic"))
        fill_cyclic(&m, o->cyclic_k);
    else
        fill_random(&m, density, o->max_bytes, o->seed ^ ((uint64_t)p << 32));
    int rc = 0;
    for (int a = 0; a < o->nalgos && rc == 0; a++) {
        rc = bench_one(o, &m, kind, (plan_algo)o->algos[a]);
        fflush(stdout);
    }
    plan_matrix_free(&m);
    return rc;
}

/* Prints the usage text to out. */
static void usage(FILE *out)
{
    fprintf(out,
            "Usage: %s [OPTIONS]\n"
            "Times plan_build (the planner of the shim and hrelay-plan) for schedule families\n"
            "on random P x P byte matrices (no MPI).\n"
            "\n"
            "  --p LIST         comma-separated P values (default 64,256,1024)\n"
            "  --algo LIST      comma-separated families, or all (default direct): direct,\n"
            "                   stepwise, greedy, transpose, walker-otto, forward\n"
            "  --duplex MODE    full (default) or half: plan_options.duplex\n"
            "  --min-step BYTES direct: minimum step, or auto (default: auto, the library's\n"
            "                   max(32 KiB, lower bound / 4P)); 0 = exact\n"
            "  --grain BYTES    transpose grain (default 1)\n"
            "  --packet BYTES   forward packet size (default %llu)\n"
            "  --reps N         planning runs per matrix and family; medians are reported\n"
            "                   (default 5)\n"
            "  --seed N         random seed (default 1)\n"
            "  --max-bytes N    entries are uniform in [1, N] (default 1048576)\n"
            "  --sparse D       also run sparse matrices with a fraction D of non-zero entries\n"
            "  --cyclic K       also run the redistribution of P K blocks of 4 KiB from\n"
            "                   cyclic(r) to cyclic(K r) (kind \"cyclic\"; walker-otto's pattern)\n"
            "  --mem-limit MIB  address-space limit of the process (default: half the physical\n"
            "                   memory), so that a plan too large to hold is reported as out\n"
            "                   of memory instead of the process being killed; 0 = no limit\n"
            "  --help           print this help\n"
            "\n"
            "Columns: P, kind, family, duplex of the plan, messages (non-zero off-diagonal\n"
            "entries), steps, transfers, segments, median and minimum wall time in ms\n"
            "(CLOCK_MONOTONIC), median CPU time of the process in ms, plan MiB (the plan's step,\n"
            "transfer and segment arrays), peak MiB (how far the resident set grew while\n"
            "planning, measured on the last run: plan and planner scratch, 0 when pages freed\n"
            "by the runs before were reused), and the bandwidth term over the lower bound of\n"
            "the plan's duplex mode (1.0000 for exact direct plans).\n",
            prog, (unsigned long long)PLAN_DEFAULT_PACKET_BYTES);
}

/* Parses a decimal integer no larger than max. Returns 0, or -1. */
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
        if (o->nps == MAX_PS || parse_u64(tok, 1 << 16, &v) || v == 0)
            return -1;
        o->ps[o->nps++] = (int)v;
    }
    return o->nps ? 0 : -1;
}

/* Parses "direct,forward" or "all" into o->algos. Returns 0, or -1. */
static int parse_algo_list(const char *s, bench_opts *o)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    o->nalgos = 0;
    if (!strcmp(buf, "all")) {
        for (int a = PLAN_ALGO_NATIVE + 1; a < PLAN_ALGO_COUNT; a++)
            o->algos[o->nalgos++] = a;
        return 0;
    }
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        plan_algo a;
        if (o->nalgos == PLAN_ALGO_COUNT || plan_algo_parse(tok, &a) || a == PLAN_ALGO_NATIVE)
            return -1;
        o->algos[o->nalgos++] = (int)a;
    }
    return o->nalgos ? 0 : -1;
}

/* Fills o from argv. Returns -1 to go on, or the exit status. */
static int parse_args(int argc, char **argv, bench_opts *o)
{
    enum { O_P = 256, O_ALGO, O_DUPLEX, O_MIN_STEP, O_GRAIN, O_PACKET, O_REPS, O_SEED,
           O_MAX_BYTES, O_SPARSE, O_CYCLIC, O_MEM_LIMIT, O_HELP };
    static const struct option longopts[] = {
        {"p", required_argument, NULL, O_P},
        {"algo", required_argument, NULL, O_ALGO},
        {"duplex", required_argument, NULL, O_DUPLEX},
        {"min-step", required_argument, NULL, O_MIN_STEP},
        {"grain", required_argument, NULL, O_GRAIN},
        {"packet", required_argument, NULL, O_PACKET},
        {"reps", required_argument, NULL, O_REPS},
        {"seed", required_argument, NULL, O_SEED},
        {"max-bytes", required_argument, NULL, O_MAX_BYTES},
        {"sparse", required_argument, NULL, O_SPARSE},
        {"cyclic", required_argument, NULL, O_CYCLIC},
        {"mem-limit", required_argument, NULL, O_MEM_LIMIT},
        {"help", no_argument, NULL, O_HELP},
        {NULL, 0, NULL, 0},
    };
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    *o = (bench_opts){.ps = {64, 256, 1024}, .nps = 3, .reps = 5, .seed = 1,
                      .algos = {PLAN_ALGO_DIRECT}, .nalgos = 1,
                      .plan = {.min_step_bytes = PLAN_MIN_STEP_AUTO}, .max_bytes = 1 << 20,
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
        case O_ALGO:
            bad = parse_algo_list(optarg, o);
            break;
        case O_DUPLEX:
            bad = strcmp(optarg, "full") && strcmp(optarg, "half");
            o->plan.duplex = strcmp(optarg, "half") ? PLAN_DUPLEX_FULL : PLAN_DUPLEX_HALF;
            break;
        case O_MIN_STEP:
            if (!strcmp(optarg, "auto"))
                o->plan.min_step_bytes = PLAN_MIN_STEP_AUTO;
            else
                bad = parse_u64(optarg, UINT64_MAX - 1, &o->plan.min_step_bytes);
            break;
        case O_GRAIN:
            bad = parse_u64(optarg, UINT64_MAX, &o->plan.grain_bytes) || !o->plan.grain_bytes;
            break;
        case O_PACKET:
            bad = parse_u64(optarg, UINT64_MAX, &o->plan.packet_bytes) || !o->plan.packet_bytes;
            break;
        case O_REPS:
            bad = parse_u64(optarg, 1000, &v) || v == 0;
            o->reps = (int)v;
            break;
        case O_SEED:
            bad = parse_u64(optarg, UINT64_MAX, &o->seed);
            break;
        case O_MAX_BYTES:
            bad = parse_u64(optarg, UINT64_MAX / 2, &o->max_bytes) || o->max_bytes == 0;
            break;
        case O_CYCLIC:
            bad = parse_u64(optarg, 1 << 16, &v) || v < 2;
            o->cyclic_k = (int)v;
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
    char min_step[32] = "auto";
    if (o.plan.min_step_bytes != PLAN_MIN_STEP_AUTO)
        snprintf(min_step, sizeof min_step, "%" PRIu64, o.plan.min_step_bytes);
    printf("# plan_build planning time: reps %d, seed %" PRIu64 ", duplex %s, min-step %s, "
           "entries in [1, %" PRIu64 "], memory limit %" PRIu64 " MiB\n",
           o.reps, o.seed, o.plan.duplex == PLAN_DUPLEX_HALF ? "half" : "full", min_step,
           o.max_bytes, o.mem_limit_mib);
    printf("%6s %-6s %-11s %-4s %9s %7s %9s %9s %9s %9s %9s %9s %9s %s\n", "P", "kind", "family",
           "dup", "messages", "steps", "transfers", "segments", "median_ms", "min_ms", "cpu_ms",
           "plan_MiB", "peak_MiB", "bw/lb");
    fflush(stdout);
    for (int k = 0; k < o.nps; k++) {
        if (bench_matrix(&o, o.ps[k], 1.0, "dense"))
            return 1;
        if (o.density > 0 && bench_matrix(&o, o.ps[k], o.density, "sparse"))
            return 1;
        if (o.cyclic_k && bench_matrix(&o, o.ps[k], 1.0, "cyclic"))
            return 1;
    }
    return 0;
}
