/* Not a test: measures exec_run for windows 1, 2, 4, 8, 16, 32, 64 (operations in flight), to
 * choose EXEC_DEFAULT_WINDOW. Two workloads, both MPI_BYTE (dense, so only scheduling is measured):
 *   pipeline: every rank exchanges with its neighbours ring-wise, each message cut into
 *             --steps pieces of B bytes, one piece per step (many consecutive steps between
 *             the same pairs: where overlapping steps can help);
 *   direct:   plan_direct of a random uneven matrix (what the shim runs), --bytes on average.
 * Prints the median time per exchange over --reps repetitions for each piece size / window.
 *
 * Usage: mpiexec -n 2 bench/bench_window [--steps 32] [--reps 20] [--mode pipeline|direct] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "plan/families.h"
#include "plan/local.h"
#include "plan/plan.h"

/* Exits on a plan-building failure (a bug here). */
static void need(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "bench_window: %s failed\n", what);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* The pipeline plan: in every step s, rank i sends piece s of its message to i + 1 (mod p). */
static void pipeline_plan(int p, int steps, uint64_t piece, plan_matrix *m, plan *pl)
{
    plan_error err;
    need(plan_matrix_init(m, p, &err) == 0, "plan_matrix_init");
    need(plan_init(pl, p, PLAN_ALGO_DIRECT, PLAN_DUPLEX_FULL, &err) == 0, "plan_init");
    for (int i = 0; i < p && p > 1; i++)
        m->bytes[(size_t)i * p + (i + 1) % p] = piece * (uint64_t)steps;
    for (int s = 0; s < steps && p > 1; s++) {
        need(plan_begin_step(pl, &err) == 0, "plan_begin_step");
        for (int i = 0; i < p; i++) {
            need(plan_add_transfer(pl, i, (i + 1) % p, &err) == 0, "plan_add_transfer");
            need(plan_add_segment(pl, i, (i + 1) % p, piece * (uint64_t)s, piece, &err) == 0,
                 "plan_add_segment");
        }
        plan_end_step(pl);
    }
}

/* The direct plan of a random matrix with entries uniform in [0, 2 * mean). */
static void direct_plan(int p, uint64_t mean, plan_matrix *m, plan *pl)
{
    plan_error err;
    uint64_t x = 88172645463325252ULL;
    need(plan_matrix_init(m, p, &err) == 0, "plan_matrix_init");
    for (size_t i = 0; i < (size_t)p * p; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        m->bytes[i] = x % (2 * mean + 1);
    }
    need(plan_direct(m, NULL, pl, &err) == 0, "plan_direct");
}

/* Median of n doubles (sorts them). */
static double median(double *t, int n)
{
    for (int i = 1; i < n; i++)
        for (int k = i; k > 0 && t[k - 1] > t[k]; k--) {
            double v = t[k];
            t[k] = t[k - 1];
            t[k - 1] = v;
        }
    return t[n / 2];
}

int main(int argc, char **argv)
{
    int steps = 32, reps = 20, direct = 0;
    MPI_Init(&argc, &argv);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--steps"))
            steps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--mode"))
            direct = !strcmp(argv[i + 1], "direct");
    }
    int p, me;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    static const uint64_t sizes[] = {1024, 16384, 262144, 1048576};
    static const int windows[] = {1, 2, 4, 8, 16, 32, 64};
    if (me == 0)
        printf("%s, P=%d, median of %d (ms per exchange)\n%10s", direct ? "direct" : "pipeline",
               p, reps, direct ? "mean msg" : "piece");
    for (size_t w = 0; me == 0 && w < sizeof windows / sizeof *windows; w++)
        printf("  window %-3d", windows[w]);
    if (me == 0)
        printf("\n");

    double *t = malloc((size_t)reps * sizeof *t);
    for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
        plan_matrix m;
        plan pl;
        plan_local lo;
        plan_error err;
        if (direct)
            direct_plan(p, sizes[z], &m, &pl);
        else
            pipeline_plan(p, steps, sizes[z], &m, &pl);
        need(plan_local_extract(&pl, me, &lo, &err) == 0, "plan_local_extract");

        MPI_Count *sc = calloc((size_t)p, sizeof *sc), *rc = calloc((size_t)p, sizeof *rc);
        MPI_Aint *sd = calloc((size_t)p, sizeof *sd), *rd = calloc((size_t)p, sizeof *rd);
        MPI_Aint stot = 0, rtot = 0;
        for (int j = 0; j < p; j++) {
            sc[j] = (MPI_Count)plan_matrix_at(&m, me, j);
            rc[j] = (MPI_Count)plan_matrix_at(&m, j, me);
            sd[j] = stot;
            rd[j] = rtot;
            stot += sc[j];
            rtot += rc[j];
        }
        char *sbuf = calloc((size_t)stot + 1, 1), *rbuf = calloc((size_t)rtot + 1, 1);
        exec_exchange x = {.p = p, .rank = me};
        exec_type_init(&x.send.type, MPI_BYTE);
        exec_type_init(&x.recv.type, MPI_BYTE);
        x.send = (exec_side){sbuf, sc, sd, x.send.type};
        x.recv = (exec_side){rbuf, rc, rd, x.recv.type};

        if (me == 0)
            printf("%10llu", (unsigned long long)sizes[z]);
        for (size_t w = 0; w < sizeof windows / sizeof *windows; w++) {
            exec_opts o = {.window = windows[w], .tag = 1};
            exec_run(&lo, &x, MPI_COMM_WORLD, &o); /* warm-up */
            for (int r = 0; r < reps; r++) {
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                int e = exec_run(&lo, &x, MPI_COMM_WORLD, &o);
                double dt = MPI_Wtime() - t0;
                MPI_Allreduce(&dt, &t[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                need(e == MPI_SUCCESS, "exec_run");
            }
            if (me == 0)
                printf("  %10.3f", 1e3 * median(t, reps));
        }
        if (me == 0)
            printf("\n");
        free(sbuf);
        free(rbuf);
        free(sc);
        free(rc);
        free(sd);
        free(rd);
        plan_local_free(&lo);
        plan_free(&pl);
        plan_matrix_free(&m);
    }
    free(t);
    MPI_Finalize();
    return 0;
}
