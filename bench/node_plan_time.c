/* node_plan_time: what planning a node-level family costs at scale, on dense random matrices
 * of P ranks on nodes of L consecutive ranks. No MPI. For each (P, L) it times the steps a rank
 * of the library would take for a new pattern: the N x N node matrix (here summed from the
 * P x P matrix; in the library it comes from on-node and node-level reductions), the node plan
 * of each node family (plan_build on the node matrix), and one rank's own program of the
 * node-direct plan from the node matrix, the node plan and its own row and column
 * (plan_node_local_own, timed for a sample of ranks); optionally the full expansion of the node
 * plan over all P ranks (plan_node_expand: what a tool or a test builds, not a rank). It also
 * prints the metadata a rank needs for node-direct (the node matrix, its row and column: N^2 +
 * 2P words) against the P x P gather of rank-level planning. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plan/local.h"
#include "plan/node.h"
#include "plan/plan.h"
#include "plan/topo.h"

static const char *const prog = "node_plan_time";

enum { MAX_LIST = 8 };

/* Command-line settings. */
typedef struct opts {
    int ps[MAX_LIST], nps, ls[MAX_LIST], nls, reps, sample, full;
    uint64_t seed, max_bytes;
} opts;

/* splitmix64: the next value of a deterministic 64-bit generator with state *s. */
static uint64_t next_random(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* CPU seconds of the process (single-threaded: the work done, whatever else runs on the
 * machine). */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
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

/* Resets the peak resident set (VmHWM) to the current one (Linux clear_refs 5). */
static void reset_peak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f) {
        fputs("5", f);
        fclose(f);
    }
}

/* Prints one result line: P, L, N, what, milliseconds, a size and a note. */
static void line(int p, int l, int n, const char *what, double ms, double size, const char *unit,
                 const char *note)
{
    printf("%6d %5d %5d  %-30s %9.3f %10.1f %-5s %s\n", p, l, n, what, ms, size, unit, note);
    fflush(stdout);
}

/* The forward packet for the node matrix nm: at least 64 KiB, else a multiple of 5 bytes
 * giving the busiest NIC about 512 packets (its half-duplex load). */
static uint64_t forward_packet(const plan_matrix *nm)
{
    uint64_t h = plan_matrix_lower_bound(nm, PLAN_DUPLEX_HALF), s = 5 * (h / (5 * 512) + 1);
    return s > PLAN_DEFAULT_PACKET_BYTES ? s : PLAN_DEFAULT_PACKET_BYTES;
}

/* Times the node-direct program of o->sample ranks spread over all ranks (each from the node
 * matrix, the node plan and the rank's own row and column) and prints the mean and the
 * largest time, and the largest program's memory. Returns 0, or -1 (out of memory). */
static int bench_local(const opts *o, const plan_matrix *m, const plan_matrix *nm,
                       const plan_topo *t, const plan *np)
{
    int p = m->p, n = o->sample < p ? o->sample : p;
    uint64_t *col = malloc((size_t)p * sizeof *col);
    if (!col)
        return -1;
    double sum = 0, most = 0;
    size_t mem = 0, ops = 0;
    for (int k = 0; k < n; k++) {
        int r = (int)((long)k * p / n);
        for (int i = 0; i < p; i++)
            col[i] = plan_matrix_at(m, i, r);
        plan_node_view v = {.rank = r, .row = m->bytes + (size_t)r * (size_t)p, .col = col};
        plan_local lo;
        plan_error err = {0};
        double t0 = now();
        if (plan_node_local_own(np, nm, t, &v, &lo, &err)) {
            fprintf(stderr, "%s: rank %d: %s\n", prog, r, err.text);
            free(col);
            return -1;
        }
        double dt = now() - t0;
        sum += dt;
        most = dt > most ? dt : most;
        mem = plan_local_memory(&lo) > mem ? plan_local_memory(&lo) : mem;
        ops = lo.nsends + lo.nrecvs > ops ? lo.nsends + lo.nrecvs : ops;
        plan_local_free(&lo);
    }
    free(col);
    char note[96];
    snprintf(note, sizeof note, "one rank, mean of %d ranks (max %.3f ms, %zu operations)", n,
             most * 1e3, ops);
    line(p, plan_topo_max_lanes(t), t->n, "node-direct local program", sum / n * 1e3,
         (double)mem / 1024, "KiB", note);
    return 0;
}

/* Times the full expansions of the node-direct plan np over all ranks, own messages and
 * aggregated, once each, with the growth of the resident set. Returns 0. */
static int bench_full(const opts *o, const plan_matrix *m, const plan_matrix *nm,
                      const plan_topo *t, const plan *np)
{
    (void)o;
    static const plan_algo fam[] = {PLAN_ALGO_NODE_DIRECT, PLAN_ALGO_NODE_AGGREGATE};
    for (int f = 0; f < 2; f++) {
        plan pl;
        plan_error err = {0};
        reset_peak();
        double rss0 = status_kib("VmRSS"), t0 = now();
        int rc = plan_node_expand(fam[f], np, m, nm, t, 0, &pl, &err);
        double dt = now() - t0, peak = (status_kib("VmHWM") - rss0) / 1024;
        char what[64], note[128];
        snprintf(what, sizeof what, "%s full expansion", plan_algo_name(fam[f]));
        if (rc) {
            line(m->p, plan_topo_max_lanes(t), t->n, what, dt * 1e3, 0, "", err.text);
            continue;
        }
        snprintf(note, sizeof note, "%zu steps, %zu transfers, %zu segments, peak %.0f MiB",
                 pl.nsteps, pl.ntransfers, pl.nsegments, peak);
        line(m->p, plan_topo_max_lanes(t), t->n, what, dt * 1e3,
             (double)(pl.ntransfers * sizeof *pl.transfers +
                      pl.nsegments * sizeof *pl.segments) / (1 << 20), "MiB", note);
        plan_free(&pl);
    }
    return 0;
}

/* Times the node plan of every node family (median of o->reps) and, for node-direct, the
 * local programs of a sample of ranks and (with o->full) the full expansions. */
static int bench_plans(const opts *o, const plan_matrix *m, const plan_matrix *nm,
                       const plan_topo *t)
{
    int p = m->p, l = plan_topo_max_lanes(t);
    static const plan_algo fam[] = {PLAN_ALGO_NODE_DIRECT, PLAN_ALGO_NODE_TRANSPOSE,
                                    PLAN_ALGO_NODE_FORWARD};
    plan np_direct = {0};
    for (size_t f = 0; f < sizeof fam / sizeof *fam; f++) {
        plan_options no = {.min_step_bytes = PLAN_MIN_STEP_AUTO,
                           .packet_bytes = forward_packet(nm)};
        double best = 1e30, sum = 0;
        plan np = {0};
        plan_error err = {0};
        for (int r = 0; r < o->reps; r++) {
            plan_free(&np);
            double t0 = now();
            if (plan_build(plan_node_base(fam[f]), nm, &no, &np, &err)) {
                line(p, l, t->n, plan_algo_name(fam[f]), 0, 0, "", err.text);
                return 0;
            }
            double dt = now() - t0;
            best = dt < best ? dt : best;
            sum += dt;
        }
        char note[96];
        snprintf(note, sizeof note, "node plan: %zu steps, %zu segments (best %.3f ms)%s",
                 np.nsteps, np.nsegments, best * 1e3,
                 fam[f] == PLAN_ALGO_NODE_FORWARD ? ", packet below" : "");
        line(p, l, t->n, plan_algo_name(fam[f]), sum / o->reps * 1e3,
             (double)np.nsegments * sizeof(plan_segment) / 1024, "KiB", note);
        if (fam[f] == PLAN_ALGO_NODE_FORWARD)
            line(p, l, t->n, "  forward packet", 0, (double)no.packet_bytes / (1 << 20), "MiB", "");
        if (f == 0)
            np_direct = np;
        else
            plan_free(&np);
    }
    int rc = bench_local(o, m, nm, t, &np_direct);
    if (rc == 0 && (o->full || p <= 1024))
        rc = bench_full(o, m, nm, t, &np_direct);
    plan_free(&np_direct);
    return rc;
}

/* Runs one (P, L): a dense matrix with entries uniform in [1, max_bytes], nodes of l
 * consecutive ranks. Returns 0, or -1. */
static int bench_config(const opts *o, int p, int l)
{
    plan_matrix m, nm;
    plan_topo t;
    plan_error err = {0};
    if (plan_matrix_init(&m, p, &err) || plan_topo_consecutive(&t, p, l, &err)) {
        fprintf(stderr, "%s: %s\n", prog, err.text);
        plan_matrix_free(&m);
        return -1;
    }
    uint64_t st = o->seed ^ ((uint64_t)p << 32);
    for (size_t k = 0; k < (size_t)p * (size_t)p; k++)
        m.bytes[k] = k % ((size_t)p + 1) ? 1 + next_random(&st) % o->max_bytes : 0;
    double t0 = now();
    int rc = plan_topo_node_matrix(&t, &m, &nm, &err);
    double dt = now() - t0;
    if (rc == 0) {
        char note[128];
        snprintf(note, sizeof note, "from the P x P matrix (here; in a library: reductions)");
        line(p, l, t.n, "node matrix", dt * 1e3, (double)t.n * t.n * 8 / 1024, "KiB", note);
        snprintf(note, sizeof note, "node matrix + own row and column, against %.1f MiB for "
                 "the P x P matrix", (double)p * p * 8 / (1 << 20));
        line(p, l, t.n, "metadata per rank", 0,
             ((double)t.n * t.n + 2.0 * p) * 8 / 1024, "KiB", note);
        rc = bench_plans(o, &m, &nm, &t);
        plan_matrix_free(&nm);
    }
    plan_topo_free(&t);
    plan_matrix_free(&m);
    return rc;
}

/* Parses a comma-separated list of positive integers into v (at most MAX_LIST). Returns the
 * count, or -1. */
static int parse_list(const char *s, int *v)
{
    int n = 0;
    while (*s && n < MAX_LIST) {
        char *end;
        errno = 0;
        long x = strtol(s, &end, 10);
        if (errno || end == s || x < 1 || x > 1 << 20 || (*end && *end != ','))
            return -1;
        v[n++] = (int)x;
        s = *end ? end + 1 : end;
    }
    return *s ? -1 : n;
}

/* Prints the usage text to out. */
static void usage(FILE *out)
{
    fprintf(out,
            "Usage: %s [--p LIST] [--ranks-per-node LIST] [--reps N] [--sample N] [--full]\n"
            "       [--seed N] [--max-bytes N]\n"
            "Times node-level planning on dense random P x P matrices (no MPI).\n"
            "\n"
            "  --p LIST              P values (default 1024,4096)\n"
            "  --ranks-per-node LIST ranks per node L, consecutive groups (default 32,128)\n"
            "  --reps N              runs of each node plan; the mean is printed (default 5)\n"
            "  --sample N            ranks whose local program is timed (default 64)\n"
            "  --full                also expand the node-direct plan over all ranks when\n"
            "                        P > 1024 (always done up to 1024; needs P^2 segments)\n"
            "  --seed N              random seed (default 1)\n"
            "  --max-bytes N         entries uniform in [1, N] (default 1048576)\n"
            "\n"
            "Columns: P, L, N (nodes), what, CPU milliseconds of the process, a size and its\n"
            "unit, a note.\n",
            prog);
}

/* Fills o from argv. Returns -1 to go on, or the exit status. */
static int parse_args(int argc, char **argv, opts *o)
{
    static const struct option longopts[] = {
        {"p", required_argument, NULL, 'p'},      {"ranks-per-node", required_argument, NULL, 'l'},
        {"reps", required_argument, NULL, 'r'},   {"sample", required_argument, NULL, 's'},
        {"full", no_argument, NULL, 'f'},         {"seed", required_argument, NULL, 'S'},
        {"max-bytes", required_argument, NULL, 'm'}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    *o = (opts){.ps = {1024, 4096}, .nps = 2, .ls = {32, 128}, .nls = 2, .reps = 5,
                .sample = 64, .seed = 1, .max_bytes = 1 << 20};
    int c, one[1];
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        int bad = 0;
        switch (c) {
        case 'p': bad = (o->nps = parse_list(optarg, o->ps)) < 1; break;
        case 'l': bad = (o->nls = parse_list(optarg, o->ls)) < 1; break;
        case 'r': bad = parse_list(optarg, one) != 1, o->reps = one[0]; break;
        case 's': bad = parse_list(optarg, one) != 1, o->sample = one[0]; break;
        case 'f': o->full = 1; break;
        case 'S': o->seed = strtoull(optarg, NULL, 10); break;
        case 'm': bad = (o->max_bytes = strtoull(optarg, NULL, 10)) == 0; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
        if (bad) {
            fprintf(stderr, "%s: invalid value '%s'\n", prog, optarg);
            return 2;
        }
    }
    return optind == argc ? -1 : 2;
}

int main(int argc, char **argv)
{
    opts o;
    int status = parse_args(argc, argv, &o);
    if (status >= 0)
        return status;
    printf("%6s %5s %5s  %-30s %9s %10s %-5s %s\n", "P", "L", "N", "what", "CPU ms", "size", "unit",
           "note");
    for (int a = 0; a < o.nps; a++)
        for (int b = 0; b < o.nls; b++)
            if (bench_config(&o, o.ps[a], o.ls[b]))
                return 1;
    return 0;
}
