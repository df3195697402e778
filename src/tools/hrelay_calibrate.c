/* hrelay-calibrate: measures the machine parameters of hrelay's cost model (plan/cost.h) on
 * the ranks it runs on and writes the calibration file HRELAY_CONFIG reads. An MPI program:
 * run it like the application (same hosts, same ranks per host), with plain mpiexec or
 * hrelay-run; it calls the MPI library through PMPI and hrelay's executor directly, so a
 * preloaded libhrelay.so does not change what it measures.
 *
 * What it measures (every figure the median of --reps repetitions; ranks 2k and 2k + 1 form
 * pairs that measure at the same time, and the slowest pair counts):
 *   alpha_s          half the round trip of an 8-byte ping-pong
 *   beta_s_per_byte  (half the round trip of a --size ping-pong - alpha) / size
 *   duplex_percent   a --size exchange in both directions at once (MPI_Sendrecv) against one way
 *   gap_s            per further message of a burst of 32 small nonblocking sends
 *   step_s           per step of hrelay's executor running a plan of 8-byte steps whose
 *                    partners change every step (window EXEC_DEFAULT_WINDOW)
 *   native_percent   MPI_Alltoallv of --size bytes per rank, uniform, against the model's
 *                    bandwidth term: the extra percent of the received volume it takes
 *   plan_s_per_unit  plan_direct on a random P x P matrix (rank 0), per matrix entry + segment
 *   throttle         MPIR_CVAR_ALLTOALL_THROTTLE if set, else MPICH's 32 */
#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/exec.h"
#include "hrelay.h"
#include "plan/cost.h"
#include "plan/families.h"
#include "plan/local.h"
#include "plan/plan.h"

static const char *prog = "hrelay-calibrate";

/* Options. */
typedef struct options {
    const char *output;
    long size;
    int reps;
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: mpiexec -n RANKS %s [--output FILE] [--size BYTES] [--reps N] [--quick]\n"
            "\n"
            "Measures the cost-model parameters of hrelay on the ranks it runs on (at least 2;\n"
            "run it with the hosts and ranks per host of the application) and writes them to\n"
            "FILE for HRELAY_CONFIG (or hrelay-run --config). Rank 0 prints the figures.\n"
            "\n"
            "  -o, --output FILE  calibration file to write (default hrelay-calibration.conf)\n"
            "  -s, --size BYTES   message size of the bandwidth measurements (default 4194304)\n"
            "  -r, --reps N       repetitions per figure, the median counts (default 15)\n"
            "  -q, --quick        --size 262144 --reps 5: a rough calibration in seconds\n"
            "  -h, --help         print this help and exit\n"
            "      --version      print the version and exit\n"
            "\n"
            "The file holds: alpha_s, gap_s, beta_s_per_byte, duplex_percent, step_s,\n"
            "native_percent, throttle, plan_s_per_unit (see README \"Calibration\").\n"
            "Exit status: 0 on success, 1 if measuring or writing failed, 2 for usage errors.\n",
            prog);
}

/* Parses the options; exits on --help, --version or a usage error (rank 0 prints). */
static void parse(int argc, char **argv, options *o, int rank)
{
    static const struct option longs[] = {{"output", required_argument, NULL, 'o'},
                                          {"size", required_argument, NULL, 's'},
                                          {"reps", required_argument, NULL, 'r'},
                                          {"quick", no_argument, NULL, 'q'},
                                          {"help", no_argument, NULL, 'h'},
                                          {"version", no_argument, NULL, 'V'},
                                          {NULL, 0, NULL, 0}};
    *o = (options){.output = "hrelay-calibration.conf", .size = 4 << 20, .reps = 15};
    int c, bad = 0, stop = 0;
    char *end;
    opterr = rank == 0;
    while ((c = getopt_long(argc, argv, "o:s:r:qh", longs, NULL)) != -1) {
        switch (c) {
        case 'o': o->output = optarg; break;
        case 's':
            o->size = strtol(optarg, &end, 10);
            bad |= *end || o->size < 1024 || o->size > (1L << 30);
            break;
        case 'r':
            o->reps = (int)strtol(optarg, &end, 10);
            bad |= *end || o->reps < 1 || o->reps > 1000;
            break;
        case 'q':
            o->size = 256 << 10;
            o->reps = 5;
            break;
        case 'h':
            if (rank == 0)
                usage(stdout);
            stop = 1;
            break;
        case 'V':
            if (rank == 0)
                printf("%s (hrelay) %s\n", prog, HRELAY_VERSION_STRING);
            stop = 1;
            break;
        default: bad = 1;
        }
    }
    bad |= optind != argc;
    if (bad && rank == 0) {
        fprintf(stderr, "%s: bad arguments (--size 1024..1073741824, --reps 1..1000)\n", prog);
        usage(stderr);
    }
    if (bad || stop) {
        MPI_Finalize();
        exit(bad ? 2 : 0);
    }
}

/* Orders doubles. */
static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of n values (sorted in place). */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The largest of every rank's x (the slowest pair). */
static double slowest(double x)
{
    double m;
    PMPI_Allreduce(&x, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

/* Times one ping-pong pattern between this rank and its partner (-1: none) per repetition:
 * half the round trip of `bytes`, median of reps, the slowest pair. */
static double pingpong(char *buf, long bytes, int partner, int rank, int reps)
{
    double *t = calloc((size_t)reps, sizeof *t);
    for (int r = 0; r < reps; r++) {
        PMPI_Barrier(MPI_COMM_WORLD);
        double t0 = PMPI_Wtime();
        int inner = bytes <= 64 ? 100 : 1;
        for (int k = 0; k < inner && partner >= 0; k++) {
            if (rank < partner) {
                PMPI_Send(buf, (int)bytes, MPI_BYTE, partner, 1, MPI_COMM_WORLD);
                PMPI_Recv(buf, (int)bytes, MPI_BYTE, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                PMPI_Recv(buf, (int)bytes, MPI_BYTE, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                PMPI_Send(buf, (int)bytes, MPI_BYTE, partner, 1, MPI_COMM_WORLD);
            }
        }
        t[r] = (PMPI_Wtime() - t0) / (2.0 * inner);
    }
    double m = partner >= 0 ? median(t, reps) : 0;
    free(t);
    return slowest(m);
}

/* A `bytes` exchange in both directions at once, median of reps, the slowest pair. */
static double exchange(char *sbuf, char *rbuf, long bytes, int partner, int reps)
{
    double *t = calloc((size_t)reps, sizeof *t);
    for (int r = 0; r < reps; r++) {
        PMPI_Barrier(MPI_COMM_WORLD);
        double t0 = PMPI_Wtime();
        if (partner >= 0)
            PMPI_Sendrecv(sbuf, (int)bytes, MPI_BYTE, partner, 2, rbuf, (int)bytes, MPI_BYTE,
                          partner, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        t[r] = PMPI_Wtime() - t0;
    }
    double m = partner >= 0 ? median(t, reps) : 0;
    free(t);
    return slowest(m);
}

/* Messages of the burst measurement. */
enum { BURST = 32 };

/* A burst of BURST 8-byte nonblocking sends to the partner (which receives them), median of
 * reps, the slowest pair: the time from the first post to the receiver's acknowledgement. */
static double burst(char *buf, int partner, int rank, int reps)
{
    const int n = BURST;
    double *t = calloc((size_t)reps, sizeof *t);
    MPI_Request req[BURST];
    MPI_Status st[BURST];
    for (int r = 0; r < reps; r++) {
        PMPI_Barrier(MPI_COMM_WORLD);
        double t0 = PMPI_Wtime();
        for (int k = 0; k < n && partner >= 0; k++) {
            if (rank < partner)
                PMPI_Isend(buf + 8 * k, 8, MPI_BYTE, partner, 3, MPI_COMM_WORLD, &req[k]);
            else
                PMPI_Irecv(buf + 8 * k, 8, MPI_BYTE, partner, 3, MPI_COMM_WORLD, &req[k]);
        }
        if (partner >= 0)
            PMPI_Waitall(n, req, st);
        if (partner >= 0 && rank > partner) /* the receiver acknowledges: one more latency */
            PMPI_Send(buf, 1, MPI_BYTE, partner, 4, MPI_COMM_WORLD);
        else if (partner >= 0)
            PMPI_Recv(buf, 1, MPI_BYTE, partner, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        t[r] = PMPI_Wtime() - t0;
    }
    double m = partner >= 0 ? median(t, reps) : 0;
    free(t);
    return slowest(m);
}

/* Exits (collectively) when a set-up step failed. */
static void need(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "%s: %s failed\n", prog, what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* A plan of `steps` steps of 8 bytes per transfer in which every rank sends to rank + d and
 * receives from rank - d, d = 1 + (step mod (p - 1)): partners change every step. */
static void step_plan(int p, int steps, plan_matrix *m, plan *pl)
{
    plan_error err;
    need(plan_matrix_init(m, p, &err) == 0, "plan_matrix_init");
    need(plan_init(pl, p, PLAN_ALGO_DIRECT, PLAN_DUPLEX_FULL, &err) == 0, "plan_init");
    uint64_t *at = calloc((size_t)p * (size_t)p, sizeof *at);
    need(at != NULL, "malloc");
    for (int s = 0; s < steps; s++) {
        int d = 1 + s % (p - 1);
        need(plan_begin_step(pl, &err) == 0, "plan_begin_step");
        for (int i = 0; i < p; i++) {
            int j = (i + d) % p;
            need(plan_add_transfer(pl, i, j, &err) == 0, "plan_add_transfer");
            need(plan_add_segment(pl, i, j, at[(size_t)i * p + j], 8, &err) == 0,
                 "plan_add_segment");
            at[(size_t)i * p + j] += 8;
        }
        plan_end_step(pl);
    }
    memcpy(m->bytes, at, sizeof *at * (size_t)p * (size_t)p);
    free(at);
}

/* The time per step of the executor on step_plan, median of reps. */
static double executor_step(int p, int rank, int reps)
{
    enum { STEPS = 256 };
    plan_matrix m;
    plan pl;
    plan_local lo;
    plan_error err;
    step_plan(p, STEPS, &m, &pl);
    need(plan_local_extract(&pl, rank, &lo, &err) == 0, "plan_local_extract");
    MPI_Count *count = calloc((size_t)p * 2, sizeof *count);
    MPI_Aint *displ = calloc((size_t)p * 2, sizeof *displ);
    uint64_t total_s = 0, total_r = 0;
    for (int j = 0; j < p; j++) {
        count[j] = (MPI_Count)plan_matrix_at(&m, rank, j);
        count[p + j] = (MPI_Count)plan_matrix_at(&m, j, rank);
        displ[j] = (MPI_Aint)total_s;
        displ[p + j] = (MPI_Aint)total_r;
        total_s += (uint64_t)count[j];
        total_r += (uint64_t)count[p + j];
    }
    char *sbuf = calloc(total_s + 1, 1), *rbuf = calloc(total_r + 1, 1);
    exec_type bytes;
    need(sbuf && rbuf && exec_type_init(&bytes, MPI_BYTE) == MPI_SUCCESS, "buffers");
    exec_exchange x = {
        .p = p,
        .rank = rank,
        .send = {.base = sbuf, .count = count, .displ = displ, .type = bytes},
        .recv = {.base = rbuf, .count = count + p, .displ = displ + p, .type = bytes}};
    exec_opts opts = {.window = EXEC_DEFAULT_WINDOW, .tag = 5};
    double *t = calloc((size_t)reps, sizeof *t);
    for (int r = 0; r < reps; r++) {
        PMPI_Barrier(MPI_COMM_WORLD);
        double t0 = PMPI_Wtime();
        need(exec_run(&lo, &x, MPI_COMM_WORLD, &opts) == MPI_SUCCESS, "exec_run");
        t[r] = (PMPI_Wtime() - t0) / STEPS;
    }
    double med = median(t, reps);
    free(t);
    free(sbuf);
    free(rbuf);
    free(count);
    free(displ);
    plan_local_free(&lo);
    plan_free(&pl);
    plan_matrix_free(&m);
    return slowest(med);
}

/* The time of a uniform MPI_Alltoallv of `per_rank` bytes per rank, median of reps. */
static double native_uniform(int p, long per_rank, int reps)
{
    long each = per_rank / p > 0 ? per_rank / p : 1;
    int *c = calloc((size_t)p * 2, sizeof *c), *d = c + p;
    for (int j = 0; j < p; j++) {
        c[j] = (int)each;
        d[j] = (int)(each * j);
    }
    char *s = calloc((size_t)(each * p), 1), *r = calloc((size_t)(each * p), 1);
    double *t = calloc((size_t)reps, sizeof *t);
    need(c && s && r && t, "malloc");
    for (int k = 0; k < reps; k++) {
        PMPI_Barrier(MPI_COMM_WORLD);
        double t0 = PMPI_Wtime();
        PMPI_Alltoallv(s, c, d, MPI_BYTE, r, c, d, MPI_BYTE, MPI_COMM_WORLD);
        t[k] = PMPI_Wtime() - t0;
    }
    double med = slowest(median(t, reps));
    free(c);
    free(s);
    free(r);
    free(t);
    return med;
}

/* Planning time per unit (matrix entry or segment) of plan_direct on a random p x p matrix
 * (at least 64 x 64), median of 5, on this rank. */
static double planning_unit(int p)
{
    int n = p < 64 ? 64 : p;
    plan_matrix m;
    plan_error err;
    need(plan_matrix_init(&m, n, &err) == 0, "plan_matrix_init");
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    for (size_t i = 0; i < (size_t)n * n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        m.bytes[i] = x % (1 << 20);
    }
    plan_options o = {.min_step_bytes = PLAN_MIN_STEP_AUTO};
    double t[5];
    size_t segs = 0;
    for (int k = 0; k < 5; k++) {
        plan pl;
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        need(plan_build(PLAN_ALGO_DIRECT, &m, &o, &pl, &err) == 0, "plan_build");
        clock_gettime(CLOCK_MONOTONIC, &b);
        t[k] = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
        segs = pl.nsegments;
        plan_free(&pl);
    }
    plan_matrix_free(&m);
    return median(t, 5) / (double)((size_t)n * n + segs);
}

/* Clamps v into [lo, hi]. */
static double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

int main(int argc, char **argv)
{
    int rank, p;
    options o;
    PMPI_Init(&argc, &argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &p);
    parse(argc, argv, &o, rank);
    if (p < 2) {
        if (rank == 0)
            fprintf(stderr, "%s: needs at least 2 ranks (mpiexec -n 2 or more)\n", prog);
        PMPI_Finalize();
        return 2;
    }
    int partner = (rank ^ 1) < p ? rank ^ 1 : -1;
    char *sbuf = calloc((size_t)o.size, 1), *rbuf = calloc((size_t)o.size, 1);
    need(sbuf && rbuf, "malloc");

    double alpha = pingpong(sbuf, 8, partner, rank, o.reps);
    double big = pingpong(sbuf, o.size, partner, rank, o.reps);
    double beta = (big - alpha) / (double)o.size;
    beta = beta > 1e-15 ? beta : 1e-15;
    double both = exchange(sbuf, rbuf, o.size, partner, o.reps);
    double duplex = clamp(100.0 * (both - alpha) / (beta * (double)o.size), 100, 400);
    double gap = clamp((burst(sbuf, partner, rank, o.reps) - 2 * alpha) / (BURST - 1), 0, 1);
    double step = executor_step(p, rank, o.reps);
    double native = native_uniform(p, o.size, o.reps);
    long each = o.size / p > 0 ? o.size / p : 1;
    double volume = (double)each * (p - 1); /* sent = received per rank, self excluded */
    double mpi_fixed = alpha + gap * (2.0 * (p - 1) - 1);
    double native_pct = clamp(100.0 * ((native - mpi_fixed) / (beta * volume) - 1), 0, 1000);
    double plan_unit = planning_unit(p);
    const char *thr = getenv("MPIR_CVAR_ALLTOALL_THROTTLE");
    long throttle = thr ? strtol(thr, NULL, 10) : 32;
    throttle = throttle > 0 ? throttle : 32;

    int status = 0;
    if (rank == 0) {
        plan_cost_params c = plan_cost_defaults();
        c.alpha_ps = (uint64_t)(alpha * 1e12 + 0.5);
        c.gap_ps = (uint64_t)(gap * 1e12 + 0.5);
        c.beta_fs = (uint64_t)(beta * 1e15 + 0.5);
        c.beta_fs = c.beta_fs ? c.beta_fs : 1;
        c.duplex_pct = (uint32_t)(duplex + 0.5);
        c.step_ps = (uint64_t)(step * 1e12 + 0.5);
        c.native_pct = (uint32_t)(native_pct + 0.5);
        c.throttle = (uint32_t)throttle;
        c.plan_ps = (uint64_t)(plan_unit * 1e12 + 0.5);
        c.local_alpha_ps = plan_cost_local_alpha(c.alpha_ps); /* not measured yet */
        c.local_beta_fs = plan_cost_local_beta(c.beta_fs);
        char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
        int len = 0;
        PMPI_Get_library_version(lib, &len);
        lib[strcspn(lib, "\n")] = '\0';
        time_t now = time(NULL);
        char when[64];
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
        FILE *f = fopen(o.output, "w");
        if (!f) {
            perror(o.output);
            status = 1;
        } else {
            fprintf(f,
                    "# hrelay calibration: %s %s, %d ranks, %s\n# %s\n"
                    "# size %ld bytes, %d repetitions; measured: ping-pong 8 B %.3g s, %ld B "
                    "%.3g s, exchange %.3g s, executor step %.3g s, MPI_Alltoallv %.3g s\n",
                    prog, HRELAY_VERSION_STRING, p, when, lib, o.size, o.reps, alpha, o.size,
                    big, both, step, native);
            status = plan_cost_write(f, &c) != 0;
            status |= fclose(f) != 0;
            if (status)
                fprintf(stderr, "%s: cannot write %s\n", prog, o.output);
        }
        printf("%s: %d ranks, %ld-byte messages, %d repetitions\n", prog, p, o.size, o.reps);
        printf("  alpha           %.3g s (8-byte ping-pong, half round trip)\n", alpha);
        printf("  beta            %.3g s/byte (%.3g MB/s one way)\n", beta, 1e-6 / beta);
        printf("  duplex          %.0f %% (both directions at once against one way)\n", duplex);
        printf("  gap             %.3g s per further message of a burst\n", gap);
        printf("  step            %.3g s per executor step (window %d)\n", step,
               EXEC_DEFAULT_WINDOW);
        printf("  native penalty  %.0f %% (MPI_Alltoallv %.3g s for %ld bytes per rank)\n",
               native_pct, native, o.size);
        printf("  planning        %.3g s per unit\n", plan_unit);
        if (!status)
            printf("%s: wrote %s (use HRELAY_CONFIG=%s)\n", prog, o.output, o.output);
    }
    PMPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(sbuf);
    free(rbuf);
    PMPI_Finalize();
    return status;
}
