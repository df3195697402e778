/* hrelay-calibrate: measures the machine parameters of hrelay's cost model (plan/cost.h) on
 * the ranks it runs on and writes the calibration file HRELAY_CONFIG reads. An MPI program:
 * run it like the application (same hosts, same ranks per host), with plain mpiexec or
 * hrelay-run; it calls the MPI library through PMPI and hrelay's executor directly, so a
 * preloaded libhrelay.so does not change what it measures.
 *
 * Two levels (README "Calibration"): the ranks' nodes (--node-size, as HRELAY_NODE_SIZE: the
 * shared-memory nodes, or consecutive groups of K ranks) give two kinds of pairs. NIC pairs:
 * lane l of node 2m with lane l of node 2m + 1 (all lanes of a node pair at once share its
 * NIC); on-node pairs: lanes 2k and 2k + 1 of one node. Every figure is the median of --reps
 * repetitions, pairs of a kind measure at the same time, and the slowest pair counts:
 *   alpha_s          half the round trip of an 8-byte ping-pong (NIC pairs of first lanes)
 *   beta_s_per_byte  (half the round trip of a --size ping-pong - alpha) / the bytes the NIC
 *                    carries one way (every lane of the node pair at once: lanes x size)
 *   duplex_percent   a --size exchange in both directions at once (MPI_Sendrecv, every lane)
 *                    against one way
 *   gap_s            per further message of a burst of 32 small nonblocking sends (first
 *                    lanes)
 *   local_alpha_s, local_beta_s_per_byte   the same ping-pongs between on-node pairs
 *   window_make_s, window_make_s_per_byte  making a node's shared-memory window as
 *                    node-aggregate does (exec/node_window.h), on every node at once: per
 *                    byte between 64 KiB and --size x the most ranks per node (median of at
 *                    most WINDOW_REPS each), fixed the process's first window beyond that
 * With one node, its on-node pairs measure every figure (there is no NIC); with one rank per
 * node, the on-node figures are not measured (alpha / 5, beta / 10), nor the window's (the
 * built-in values; also where a node's ranks share no memory or its window could not be
 * allocated). Then, on all ranks:
 *   step_s           per step of hrelay's executor running a plan of 8-byte steps whose
 *                    partners change every step (window EXEC_DEFAULT_WINDOW)
 *   native_percent   MPI_Alltoallv of --size bytes per rank, uniform, against the model's
 *                    bandwidth term: the extra percent of the busiest NIC's off-node volume
 *                    it takes (one node: of a rank's received volume)
 *   plan_s_per_unit  plan_direct on a random P x P matrix (rank 0), per matrix entry + segment
 *   throttle         MPIR_CVAR_ALLTOALL_THROTTLE if set, else MPICH's 32 */
#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/exec.h"
#include "exec/node_window.h"
#include "hrelay.h"
#include "plan/cost.h"
#include "plan/families.h"
#include "plan/local.h"
#include "plan/plan.h"
#include "plan/topo.h"

static const char *prog = "hrelay-calibrate";

/* Options. */
typedef struct options {
    const char *output;
    long size;
    int reps;
    int node_size; /* 0: auto (the shared-memory nodes), else K ranks per node */
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: mpiexec -n RANKS %s [--output FILE] [--size BYTES] [--reps N] [--quick]\n"
            "                         [--node-size auto|K]\n"
            "\n"
            "Measures the cost-model parameters of hrelay on the ranks it runs on (at least 2;\n"
            "run it with the hosts and ranks per host of the application) and writes them to\n"
            "FILE for HRELAY_CONFIG (or hrelay-run --config). Rank 0 prints the figures and the\n"
            "pairs of ranks that measured them.\n"
            "\n"
            "  -o, --output FILE  calibration file to write (default hrelay-calibration.conf)\n"
            "  -s, --size BYTES   message size of the bandwidth measurements (default 4194304)\n"
            "  -r, --reps N       repetitions per figure, the median counts (default 15)\n"
            "  -q, --quick        --size 262144 --reps 5: a rough calibration in seconds\n"
            "  -n, --node-size auto|K  the nodes, as HRELAY_NODE_SIZE (default: its value, else\n"
            "                     auto): auto, the shared-memory nodes MPI finds; K, consecutive\n"
            "                     groups of K ranks. The NIC figures are measured between ranks\n"
            "                     of different nodes, the on-node ones between ranks of one node\n"
            "  -h, --help         print this help and exit\n"
            "      --version      print the version and exit\n"
            "\n"
            "The file holds: alpha_s, gap_s, beta_s_per_byte, duplex_percent, step_s,\n"
            "native_percent, throttle, plan_s_per_unit, local_alpha_s, local_beta_s_per_byte,\n"
            "window_make_s, window_make_s_per_byte (see README \"Calibration\"). With one rank\n"
            "per node the on-node figures are not measured (alpha / 5, beta / 10), nor the\n"
            "window's making (the built-in values; also where a node's ranks share no memory\n"
            "or its window could not be allocated).\n"
            "Exit status: 0 on success, 1 if measuring or writing failed, 2 for usage errors.\n",
            prog);
}

/* Parses a node size: "auto" (0) or K in 1..2^20. Returns 0, or -1. */
static int parse_node_size(const char *s, int *k)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!strcmp(s, "auto")) {
        *k = 0;
        return 0;
    }
    if (end == s || *end || v < 1 || v > (1L << 20))
        return -1;
    *k = (int)v;
    return 0;
}

/* Parses the options; exits on --help, --version or a usage error (rank 0 prints). */
static void parse(int argc, char **argv, options *o, int rank)
{
    static const struct option longs[] = {{"output", required_argument, NULL, 'o'},
                                          {"size", required_argument, NULL, 's'},
                                          {"reps", required_argument, NULL, 'r'},
                                          {"quick", no_argument, NULL, 'q'},
                                          {"node-size", required_argument, NULL, 'n'},
                                          {"help", no_argument, NULL, 'h'},
                                          {"version", no_argument, NULL, 'V'},
                                          {NULL, 0, NULL, 0}};
    *o = (options){.output = "hrelay-calibration.conf", .size = 4 << 20, .reps = 15};
    int c, bad = 0, stop = 0;
    char *end;
    const char *env = getenv("HRELAY_NODE_SIZE");
    bad |= env && *env && parse_node_size(env, &o->node_size) != 0;
    opterr = rank == 0;
    while ((c = getopt_long(argc, argv, "o:s:r:qn:h", longs, NULL)) != -1) {
        switch (c) {
        case 'n': bad |= parse_node_size(optarg, &o->node_size) != 0; break;
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
        fprintf(stderr,
                "%s: bad arguments (--size 1024..1073741824, --reps 1..1000, --node-size and "
                "HRELAY_NODE_SIZE auto or 1..1048576)\n",
                prog);
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
 * half the round trip of `bytes`, median of reps (0 without a partner). Collective. */
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
    return m;
}

/* A `bytes` exchange in both directions at once, median of reps (0 without a partner).
 * Collective. */
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
    return m;
}

/* Messages of the burst measurement. */
enum { BURST = 32 };

/* A burst of BURST 8-byte nonblocking sends to the partner (which receives them), median of
 * reps (0 without a partner): the time from the first post to the receiver's acknowledgement.
 * Collective. */
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
    return m;
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

/* The node of every rank of MPI_COMM_WORLD: consecutive groups of node_size ranks, or (0) the
 * shared-memory nodes MPI finds, each named by its lowest rank. Collective. */
static void find_topology(int node_size, int rank, int p, plan_topo *t)
{
    int32_t *label = malloc((size_t)p * sizeof *label);
    plan_error err;
    need(label != NULL, "malloc");
    if (node_size > 0) {
        label[rank] = rank / node_size;
    } else {
        MPI_Comm shm;
        int lowest = rank;
        need(PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL,
                                  &shm) == MPI_SUCCESS,
             "MPI_Comm_split_type");
        PMPI_Allreduce(&rank, &lowest, 1, MPI_INT, MPI_MIN, shm);
        PMPI_Comm_free(&shm);
        label[rank] = lowest;
    }
    PMPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, label, 1, MPI_INT32_T, MPI_COMM_WORLD);
    need(plan_topo_init(t, p, label, &err) == 0, "plan_topo_init");
    free(label);
}

/* Who measures what (the same kinds on every rank). */
typedef struct pairs {
    int nic;        /* partner for the NIC's bytes: lane l of the paired node, -1: none */
    int nic_first;  /* partner for latency and bursts: the same on first lanes only */
    int lanes;      /* lanes of this rank's node pair measuring at once (bytes per NIC) */
    int local;      /* partner on this node: lanes 2k and 2k + 1, -1: none */
    int have_nic;   /* several nodes: NIC pairs exist */
    int have_local; /* some node holds two ranks: on-node pairs exist */
} pairs;

/* This rank's pairs under t: NIC pairs between nodes 2m and 2m + 1 (lane l with lane l), on-node
 * pairs of lanes 2k and 2k + 1. With a single node its on-node pairs take the NIC's place. */
static pairs find_pairs(const plan_topo *t, int rank)
{
    int a = t->node_of[rank], l = t->lane_of[rank], b = a ^ 1, m = l ^ 1;
    pairs q = {.nic = -1, .nic_first = -1, .lanes = 1, .local = -1, .have_nic = t->n >= 2,
               .have_local = plan_topo_max_lanes(t) >= 2};
    if (m < plan_topo_lanes(t, a))
        q.local = plan_topo_rank(t, a, m);
    if (!q.have_nic) {
        q.nic = q.nic_first = q.local;
        return q;
    }
    if (b < t->n && l < plan_topo_lanes(t, b)) {
        q.nic = plan_topo_rank(t, b, l);
        q.lanes = plan_topo_lanes(t, a) < plan_topo_lanes(t, b) ? plan_topo_lanes(t, a)
                                                                 : plan_topo_lanes(t, b);
    }
    q.nic_first = l == 0 ? q.nic : -1;
    return q;
}

/* Rank 0: the pairs of one kind (every rank's partner in `partner`, p entries) as "0-2 1-3"
 * (the first 8, then how many in all) into buf, or "none". */
static void pair_list(const int *partner, int p, char *buf, size_t cap)
{
    size_t n = 0;
    int count = 0;
    buf[0] = '\0';
    for (int r = 0; r < p; r++) {
        if (partner[r] <= r)
            continue;
        if (count++ < 8 && n < cap)
            n += (size_t)snprintf(buf + n, cap - n, "%s%d-%d", count > 1 ? " " : "", r,
                                  partner[r]);
    }
    if (count > 8 && n < cap)
        snprintf(buf + n, cap - n, " ... (%d pairs)", count);
    if (!count)
        snprintf(buf, cap, "none");
}

/* The figures of one calibration. */
typedef struct figures {
    double alpha, big, beta, both, duplex, gap, local_alpha, local_beta, step, native,
        native_pct, plan_unit;
    double window_make, window_per_byte;           /* s, s per byte of the window */
    double window_first, window_small, window_big; /* measured making (s) ... */
    uint64_t window_small_bytes, window_big_bytes; /* ... of windows of these sizes */
    int local_measured;
    int window_why; /* 0: measured; 1: one rank per node; 2: a node could not make one */
    long throttle;
} figures;

/* The NIC's figures (alpha, beta, duplex, gap) from the NIC pairs; the slowest pair counts.
 * Collective. */
static void measure_nic(const pairs *q, const options *o, char *sbuf, char *rbuf, int rank,
                        figures *f)
{
    double bytes = (double)o->size * q->lanes; /* through the NIC one way */
    f->alpha = slowest(pingpong(sbuf, 8, q->nic_first, rank, o->reps));
    f->big = pingpong(sbuf, o->size, q->nic, rank, o->reps);
    f->beta = slowest(q->nic >= 0 ? (f->big - f->alpha) / bytes : 0);
    f->big = slowest(f->big);
    f->beta = f->beta > 1e-15 ? f->beta : 1e-15;
    double both = exchange(sbuf, rbuf, o->size, q->nic, o->reps);
    f->both = slowest(both);
    f->duplex = clamp(slowest(q->nic >= 0 ? 100.0 * (both - f->alpha) / (f->beta * bytes) : 0),
                      100, 400);
    f->gap = clamp((slowest(burst(sbuf, q->nic_first, rank, o->reps)) - 2 * f->alpha) /
                       (BURST - 1),
                   0, 1);
}

/* The on-node figures from the on-node pairs (with a single node, the NIC's figures are
 * those already); else alpha / 5 and beta / 10 (not measured). Collective. */
static void measure_local(const pairs *q, const options *o, char *sbuf, int rank, figures *f)
{
    f->local_measured = q->have_local;
    if (!q->have_local) {
        f->local_alpha = f->alpha / 5;
        f->local_beta = f->beta / 10;
    } else if (!q->have_nic) {
        f->local_alpha = f->alpha;
        f->local_beta = f->beta;
    } else {
        f->local_alpha = slowest(pingpong(sbuf, 8, q->local, rank, o->reps));
        double big = pingpong(sbuf, o->size, q->local, rank, o->reps);
        f->local_beta = slowest(q->local >= 0 ? (big - f->local_alpha) / (double)o->size : 0);
        f->local_beta = f->local_beta > 1e-15 ? f->local_beta : 1e-15;
    }
}

/* Repetitions of each window size at most (making a window of 8 MiB took about 50 ms on two
 * ranks of one machine, and up to seconds with 4 ranks per node oversubscribed), and the
 * smaller window's size. */
enum { WINDOW_REPS = 5, WINDOW_SMALL = 64 << 10 };

/* The time to make a window of `bytes` on node as node-aggregate's first run does (the node's
 * agreement on its size, then exec_window_ensure: the memory check, MPI_Win_allocate_shared and
 * warming), freed again after each: the slowest rank's median of reps, or -1 where some node
 * could not make it. Collective. */
static double window_time(MPI_Comm node, uint64_t bytes, int reps)
{
    double *t = calloc((size_t)reps, sizeof *t);
    need(t != NULL, "malloc");
    int ok = 1;
    for (int r = 0; r < reps; r++) {
        PMPI_Barrier(MPI_COMM_WORLD);
        double t0 = PMPI_Wtime();
        uint64_t size = bytes;
        exec_window w = {0};
        int made = PMPI_Allreduce(MPI_IN_PLACE, &size, 1, MPI_UINT64_T, MPI_MAX, node) ==
                       MPI_SUCCESS &&
                   exec_window_ensure(&w, node, size);
        t[r] = PMPI_Wtime() - t0;
        exec_window_free(&w);
        ok &= made;
    }
    PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    double med = slowest(median(t, reps));
    free(t);
    return ok ? med : -1;
}

/* The making of a node's window: per byte, the slope between its times at two sizes, the
 * smaller one at most WINDOW_SMALL and the larger --size x the most ranks per node (the shim's
 * estimate takes the busiest rank's bytes times that); fixed, what the process's first window
 * (of the smaller size) took beyond that, for a communicator's window is mostly its process's
 * first (on 2 ranks of one machine 4.4 ms, later ones 0.6 ms); the built-in values where no
 * node has two ranks, or where a node could not make a window (ranks without shared memory,
 * or an allocation that failed). Collective. */
static void measure_window(const plan_topo *t, const pairs *q, const options *o, int rank,
                           figures *f)
{
    plan_cost_params d = plan_cost_defaults();
    f->window_make = (double)d.window_make_ps * 1e-12;
    f->window_per_byte = (double)d.window_make_fs * 1e-15;
    f->window_why = 1;
    if (!q->have_local)
        return;
    MPI_Comm node;
    need(PMPI_Comm_split(MPI_COMM_WORLD, t->node_of[rank], rank, &node) == MPI_SUCCESS,
         "MPI_Comm_split");
    PMPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN);
    int reps = o->reps < WINDOW_REPS ? o->reps : WINDOW_REPS;
    uint64_t big = (uint64_t)o->size * (uint64_t)plan_topo_max_lanes(t);
    uint64_t small = big / 2 < WINDOW_SMALL ? big / 2 : WINDOW_SMALL;
    double first_s = window_time(node, small, 1);
    double small_s = window_time(node, small, reps), big_s = window_time(node, big, reps);
    PMPI_Comm_free(&node);
    f->window_why = 2;
    if (first_s < 0 || small_s < 0 || big_s < 0)
        return;
    f->window_why = 0;
    f->window_first = first_s;
    f->window_small = small_s;
    f->window_big = big_s;
    f->window_small_bytes = small;
    f->window_big_bytes = big;
    double per = (big_s - small_s) / (double)(big - small);
    f->window_per_byte = per > 0 ? per : 0;
    double fixed = first_s - f->window_per_byte * (double)small;
    f->window_make = fixed > 0 ? fixed : 0;
}

/* MPI's all-at-once penalty: a uniform MPI_Alltoallv against the busiest NIC's off-node bytes
 * at beta (one node: a rank's received bytes). Collective. */
static void measure_native(const plan_topo *t, const pairs *q, const options *o, int p,
                           figures *f)
{
    f->native = native_uniform(p, o->size, o->reps);
    long each = o->size / p > 0 ? o->size / p : 1;
    double volume = (double)each * (p - 1); /* sent = received per rank, self excluded */
    for (int a = 0; q->have_nic && a < t->n; a++) {
        double off = (double)each * plan_topo_lanes(t, a) * (p - plan_topo_lanes(t, a));
        volume = a == 0 || off > volume ? off : volume;
    }
    double mpi_fixed = f->alpha + f->gap * (2.0 * (p - 1) - 1);
    f->native_pct = clamp(100.0 * ((f->native - mpi_fixed) / (f->beta * volume) - 1), 0, 1000);
}

/* What measured the window's figures, or why they were not measured, into buf. */
static void window_note(const figures *f, char *buf, size_t cap)
{
    if (f->window_why == 0)
        snprintf(buf, cap,
                 "the first at %llu bytes in %.3g s, then at %llu bytes in %.3g s, at "
                 "%llu bytes in %.3g s",
                 (unsigned long long)f->window_small_bytes, f->window_first,
                 (unsigned long long)f->window_small_bytes, f->window_small,
                 (unsigned long long)f->window_big_bytes, f->window_big);
    else
        snprintf(buf, cap, "not measured: built-in (%s)",
                 f->window_why == 1 ? "one rank per node"
                                    : "a node could not make a window: its ranks share no "
                                      "memory, or MPI_Win_allocate_shared failed");
}

/* Rank 0: the calibration file (figures, and in its comments what measured them). Returns 0,
 * or 1 when it cannot be written. */
static int write_file(const options *o, const figures *f, const char *nic_pairs,
                      const char *local_pairs, int p, int nodes)
{
    plan_cost_params c = plan_cost_defaults();
    c.alpha_ps = (uint64_t)(f->alpha * 1e12 + 0.5);
    c.gap_ps = (uint64_t)(f->gap * 1e12 + 0.5);
    c.beta_fs = (uint64_t)(f->beta * 1e15 + 0.5);
    c.beta_fs = c.beta_fs ? c.beta_fs : 1;
    c.duplex_pct = (uint32_t)(f->duplex + 0.5);
    c.step_ps = (uint64_t)(f->step * 1e12 + 0.5);
    c.native_pct = (uint32_t)(f->native_pct + 0.5);
    c.throttle = (uint32_t)f->throttle;
    c.plan_ps = (uint64_t)(f->plan_unit * 1e12 + 0.5);
    c.local_alpha_ps = (uint64_t)(f->local_alpha * 1e12 + 0.5);
    c.local_beta_fs = (uint64_t)(f->local_beta * 1e15 + 0.5);
    c.local_beta_fs = c.local_beta_fs ? c.local_beta_fs : 1;
    if (!f->local_measured) { /* exactly what a file without them would get */
        c.local_alpha_ps = plan_cost_local_alpha(c.alpha_ps);
        c.local_beta_fs = plan_cost_local_beta(c.beta_fs);
    }
    if (f->window_why == 0) {
        c.window_make_ps = (uint64_t)(f->window_make * 1e12 + 0.5);
        c.window_make_fs = (uint64_t)(f->window_per_byte * 1e15 + 0.5);
    }
    char windows[256];
    window_note(f, windows, sizeof windows);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "", when[64];
    int len = 0;
    PMPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n")] = '\0';
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    FILE *out = fopen(o->output, "w");
    if (!out) {
        perror(o->output);
        return 1;
    }
    fprintf(out,
            "# hrelay calibration: %s %s, %d ranks on %d nodes, %s\n# %s\n"
            "# size %ld bytes, %d repetitions; measured: ping-pong 8 B %.3g s, %ld B "
            "%.3g s, exchange %.3g s, executor step %.3g s, MPI_Alltoallv %.3g s\n"
            "# NIC pairs (alpha_s, gap_s, beta_s_per_byte, duplex_percent): %s\n"
            "# on-node pairs (local_alpha_s, local_beta_s_per_byte): %s\n"
            "# node windows (window_make_s, window_make_s_per_byte): %s\n",
            prog, HRELAY_VERSION_STRING, p, nodes, when, lib, o->size, o->reps, f->alpha, o->size,
            f->big, f->both, f->step, f->native, nic_pairs, local_pairs, windows);
    int status = plan_cost_write(out, &c) != 0;
    status |= fclose(out) != 0;
    if (status)
        fprintf(stderr, "%s: cannot write %s\n", prog, o->output);
    return status;
}

/* Rank 0: the figures and the pairs on standard output. */
static void print_figures(const options *o, const figures *f, const char *nic_pairs,
                          const char *local_pairs, int p, int nodes)
{
    printf("%s: %d ranks on %d nodes, %ld-byte messages, %d repetitions\n", prog, p, nodes,
           o->size, o->reps);
    printf("  NIC pairs       %s\n", nic_pairs);
    printf("  on-node pairs   %s\n", local_pairs);
    printf("  alpha           %.3g s (8-byte ping-pong, half round trip)\n", f->alpha);
    printf("  beta            %.3g s/byte (%.3g MB/s one way)\n", f->beta, 1e-6 / f->beta);
    printf("  duplex          %.0f %% (both directions at once against one way)\n", f->duplex);
    printf("  gap             %.3g s per further message of a burst\n", f->gap);
    printf("  local alpha     %.3g s (%s)\n", f->local_alpha,
           f->local_measured ? "on-node 8-byte ping-pong" : "not measured: alpha / 5");
    printf("  local beta      %.3g s/byte (%s)\n", f->local_beta,
           f->local_measured ? "on-node ping-pong" : "not measured: beta / 10");
    char windows[256];
    window_note(f, windows, sizeof windows);
    printf("  window making   %.3g s + %.3g s/byte (%s)\n", f->window_make, f->window_per_byte,
           windows);
    printf("  step            %.3g s per executor step (window %d)\n", f->step,
           EXEC_DEFAULT_WINDOW);
    printf("  native penalty  %.0f %% (MPI_Alltoallv %.3g s for %ld bytes per rank)\n",
           f->native_pct, f->native, o->size);
    printf("  planning        %.3g s per unit\n", f->plan_unit);
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
    plan_topo t;
    find_topology(o.node_size, rank, p, &t);
    pairs q = find_pairs(&t, rank);
    char *sbuf = calloc((size_t)o.size, 1), *rbuf = calloc((size_t)o.size, 1);
    int *partner = calloc((size_t)p * 2, sizeof *partner);
    need(sbuf && rbuf && partner, "malloc");
    int mine[2] = {q.have_nic ? q.nic : -1, q.have_nic ? q.local : q.nic};
    PMPI_Gather(mine, 2, MPI_INT, partner, 2, MPI_INT, 0, MPI_COMM_WORLD);

    figures f = {0};
    measure_nic(&q, &o, sbuf, rbuf, rank, &f);
    measure_local(&q, &o, sbuf, rank, &f);
    measure_window(&t, &q, &o, rank, &f);
    f.step = executor_step(p, rank, o.reps);
    measure_native(&t, &q, &o, p, &f);
    f.plan_unit = planning_unit(p);
    const char *thr = getenv("MPIR_CVAR_ALLTOALL_THROTTLE");
    f.throttle = thr ? strtol(thr, NULL, 10) : 32;
    f.throttle = f.throttle > 0 ? f.throttle : 32;

    int status = 0;
    if (rank == 0) {
        char nic_pairs[256], local_pairs[256];
        int *nic = malloc((size_t)p * sizeof *nic), *local = malloc((size_t)p * sizeof *local);
        need(nic && local, "malloc");
        for (int r = 0; r < p; r++) {
            nic[r] = partner[2 * r];
            local[r] = partner[2 * r + 1];
        }
        pair_list(nic, p, nic_pairs, sizeof nic_pairs);
        pair_list(local, p, local_pairs, sizeof local_pairs);
        if (!q.have_nic) /* one node: its on-node pairs measured everything */
            snprintf(nic_pairs, sizeof nic_pairs, "none (one node: the on-node pairs')");
        else if (!q.have_local)
            snprintf(local_pairs, sizeof local_pairs, "none (one rank per node)");
        status = write_file(&o, &f, nic_pairs, local_pairs, p, t.n);
        print_figures(&o, &f, nic_pairs, local_pairs, p, t.n);
        if (!status)
            printf("%s: wrote %s (use HRELAY_CONFIG=%s)\n", prog, o.output, o.output);
        free(nic);
        free(local);
    }
    PMPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(sbuf);
    free(rbuf);
    free(partner);
    plan_topo_free(&t);
    PMPI_Finalize();
    return status;
}
