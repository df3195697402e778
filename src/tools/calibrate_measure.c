/* hrelay-calibrate's measurements (hrelay_calibrate.c's file comment lists the figures): the
 * nodes of the ranks and the pairs that measure, the ping-pongs, exchanges and bursts between
 * them, the making of a node's shared-memory window, the executor's step, MPI_Alltoallv's
 * penalty and the planning time. Every figure is the median of repetitions and, where pairs
 * measure, the slowest pair's; all but the planning time are collective over MPI_COMM_WORLD.
 * MPI is called through PMPI, so a preloaded libhrelay.so does not change what is measured. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "exec/exec.h"
#include "exec/node_window.h"
#include "plan/cost.h"
#include "plan/families.h"
#include "plan/local.h"
#include "plan/plan.h"
#include "plan/topo.h"
#include "tools/calibrate.h"

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
void calibrate_need(int ok, const char *what)
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
    calibrate_need(plan_matrix_init(m, p, &err) == 0, "plan_matrix_init");
    calibrate_need(plan_init(pl, p, PLAN_ALGO_DIRECT, PLAN_DUPLEX_FULL, &err) == 0, "plan_init");
    uint64_t *at = calloc((size_t)p * (size_t)p, sizeof *at);
    calibrate_need(at != NULL, "malloc");
    for (int s = 0; s < steps; s++) {
        int d = 1 + s % (p - 1);
        calibrate_need(plan_begin_step(pl, &err) == 0, "plan_begin_step");
        for (int i = 0; i < p; i++) {
            int j = (i + d) % p;
            calibrate_need(plan_add_transfer(pl, i, j, &err) == 0, "plan_add_transfer");
            calibrate_need(plan_add_segment(pl, i, j, at[(size_t)i * p + j], 8, &err) == 0,
                           "plan_add_segment");
            at[(size_t)i * p + j] += 8;
        }
        plan_end_step(pl);
    }
    memcpy(m->bytes, at, sizeof *at * (size_t)p * (size_t)p);
    free(at);
}

/* The time per step of the executor on step_plan, median of reps. */
double calibrate_executor_step(int p, int rank, int reps)
{
    enum { STEPS = 256 };
    plan_matrix m;
    plan pl;
    plan_local lo;
    plan_error err;
    step_plan(p, STEPS, &m, &pl);
    calibrate_need(plan_local_extract(&pl, rank, &lo, &err) == 0, "plan_local_extract");
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
    calibrate_need(sbuf && rbuf && exec_type_init(&bytes, MPI_BYTE) == MPI_SUCCESS, "buffers");
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
        calibrate_need(exec_run(&lo, &x, MPI_COMM_WORLD, &opts) == MPI_SUCCESS, "exec_run");
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
    calibrate_need(c && s && r && t, "malloc");
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
double calibrate_planning_unit(int p)
{
    int n = p < 64 ? 64 : p;
    plan_matrix m;
    plan_error err;
    calibrate_need(plan_matrix_init(&m, n, &err) == 0, "plan_matrix_init");
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
        calibrate_need(plan_build(PLAN_ALGO_DIRECT, &m, &o, &pl, &err) == 0, "plan_build");
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
void calibrate_find_topology(int node_size, int rank, int p, plan_topo *t)
{
    int32_t *label = malloc((size_t)p * sizeof *label);
    plan_error err;
    calibrate_need(label != NULL, "malloc");
    if (node_size > 0) {
        label[rank] = rank / node_size;
    } else {
        MPI_Comm shm;
        int lowest = rank;
        calibrate_need(PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank,
                                            MPI_INFO_NULL, &shm) == MPI_SUCCESS,
                       "MPI_Comm_split_type");
        PMPI_Allreduce(&rank, &lowest, 1, MPI_INT, MPI_MIN, shm);
        PMPI_Comm_free(&shm);
        label[rank] = lowest;
    }
    PMPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, label, 1, MPI_INT32_T, MPI_COMM_WORLD);
    calibrate_need(plan_topo_init(t, p, label, &err) == 0, "plan_topo_init");
    free(label);
}

/* This rank's pairs under t: NIC pairs between nodes 2m and 2m + 1 (lane l with lane l), on-node
 * pairs of lanes 2k and 2k + 1. With a single node its on-node pairs take the NIC's place. */
pairs calibrate_find_pairs(const plan_topo *t, int rank)
{
    int a = t->node_of[rank], l = t->lane_of[rank], b = a ^ 1, m = l ^ 1;
    pairs q = {.nic = -1,
               .nic_first = -1,
               .lanes = 1,
               .local = -1,
               .have_nic = t->n >= 2,
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

/* The NIC's figures (alpha, beta, duplex, gap) from the NIC pairs; the slowest pair counts.
 * Collective. */
void calibrate_measure_nic(const pairs *q, const options *o, char *sbuf, char *rbuf, int rank,
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
    f->duplex = clamp(slowest(q->nic >= 0 ? 100.0 * (both - f->alpha) / (f->beta * bytes) : 0), 100,
                      400);
    f->gap = clamp((slowest(burst(sbuf, q->nic_first, rank, o->reps)) - 2 * f->alpha) / (BURST - 1),
                   0, 1);
}

/* The on-node figures from the on-node pairs (with a single node, the NIC's figures are
 * those already); else alpha / 5 and beta / 10 (not measured). Collective. */
void calibrate_measure_local(const pairs *q, const options *o, char *sbuf, int rank, figures *f)
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
    calibrate_need(t != NULL, "malloc");
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
 * (of the smaller size) took beyond that, and at least beyond a later window of its size
 * (never negative), for a communicator's window is mostly its process's
 * first (on 2 ranks of one machine 4.4 ms, later ones 0.6 ms); the built-in values where no
 * node has two ranks, or where a node could not make a window (ranks without shared memory,
 * or an allocation that failed). Collective. */
void calibrate_measure_window(const plan_topo *t, const pairs *q, const options *o, int rank,
                              figures *f)
{
    plan_cost_params d = plan_cost_defaults();
    f->window_make = (double)d.window_make_ps * 1e-12;
    f->window_per_byte = (double)d.window_make_fs * 1e-15;
    f->window_why = 1;
    if (!q->have_local)
        return;
    MPI_Comm node;
    calibrate_need(PMPI_Comm_split(MPI_COMM_WORLD, t->node_of[rank], rank, &node) == MPI_SUCCESS,
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
    /* at least what the first window took beyond a later one of its size: a slope that load
     * inflated can take more than that off (4 ranks on 2 busy cores: 61 ns per byte, and a
     * first window of 0.79 ms less 4.0 ms; 4.1 - 6.2 ns on 2 ranks of an idle machine) */
    double fixed = first_s - f->window_per_byte * (double)small, premium = first_s - small_s;
    fixed = fixed > premium ? fixed : premium;
    f->window_make = fixed > 0 ? fixed : 0;
}

/* MPI's all-at-once penalty: a uniform MPI_Alltoallv against the busiest NIC's off-node bytes
 * at beta (one node: a rank's received bytes). Collective. */
void calibrate_measure_native(const plan_topo *t, const pairs *q, const options *o, int p,
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
