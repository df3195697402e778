/* What hrelay costs on exchanges too small to reschedule: MPI_Alltoallv and MPI_Alltoall of a
 * few bytes per pair, called through the preloaded shim (MPI_*) and directly (PMPI_*) in
 * alternating blocks in one run, so that both see the same machine state. Prints the median
 * time per call of each and their ratio (the target: a call that hits hrelay's cache
 * costs at most 3 % more than the native call). With --drift also an MPI_Alltoallv whose counts
 * change on every call (each pair's count drawn within 30 % of --bytes, a new pattern every
 * call: hrelay decides it before gathering, and where no plan can win runs MPI's algorithm),
 * through the shim and directly. With --new-comm also what a new communicator costs: each call
 * is MPI_Comm_dup of MPI_COMM_WORLD, --first-calls MPI_Alltoall of --bytes per pair on it
 * (default 1; MPI_Alltoallv with the same counts with --new-comm-v; through the shim: hrelay
 * creates the communicator's record at the first; or directly) and MPI_Comm_free; with
 * --new-comm-split MPI_Comm_split of MPI_COMM_WORLD (one color: its group) instead of
 * MPI_Comm_dup. With
 * --comms N the calls go to N duplicates of MPI_COMM_WORLD in turn (call i to duplicate i mod N),
 * as a 2-D FFT's transposes alternate between its row and column communicators. Run it under
 * libhrelay.so with 2 ranks on one node (more ranks than cores measure the scheduler):
 * `make overhead` (OVERHEAD_ARGS="--drift --new-comm") or
 *   hrelay-run -n 2 bench/overhead [--bytes 8] [--calls 2000] [--blocks 41] [--drift]
 *                                  [--new-comm] [--new-comm-v] [--new-comm-split]
 *                                  [--first-calls 1] [--comms 1]
 * (HRELAY_RECHECK=0 agrees on every call: no unchecked runs). Without libhrelay.so preloaded
 * both columns measure the MPI library (ratio about 1). */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"

/* Drifting count vectors kept (a call takes vector `call mod DRIFTS`: far more patterns than
 * hrelay's cache holds, and never the previous call's). */
enum { DRIFTS = 64, VARIANTS = 8, COMMS_MAX = 64 };

/* The signatures of MPI_Alltoall and MPI_Alltoallv (and of their PMPI_ names). */
typedef int alltoall_fn(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
typedef int alltoallv_fn(const void *, const int[], const int[], MPI_Datatype, void *, const int[],
                         const int[], MPI_Datatype, MPI_Comm);

typedef struct exchange {
    int p, me, bytes;
    int first_calls;          /* --first-calls: calls on each new communicator (--new-comm) */
    int first_v;              /* --new-comm-v: those calls are MPI_Alltoallv */
    int split;                /* --new-comm-split: new communicators are MPI_Comm_split's */
    int ncomms;               /* the communicators calls go to in turn */
    MPI_Comm comm[COMMS_MAX]; /* MPI_COMM_WORLD, or --comms duplicates of it */
    int *counts, *displs;
    int *dsend[DRIFTS], *drecv[DRIFTS]; /* per drifting vector: counts, then displacements */
    char *s, *r;
} exchange;

/* The bytes rank i sends rank j in drifting vector v: within 30 % of `bytes`, at least 1. */
static int drift_bytes(int bytes, int v, int i, int j)
{
    unsigned h = (unsigned)(v * 2654435761u) ^ (unsigned)(i * 40503u) ^ (unsigned)(j * 9973u);
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    int c = bytes + (int)((long)bytes * (long)(h % 61) / 100) - bytes * 30 / 100;
    return c > 0 ? c : 1;
}

/* Fills the drifting vectors of x (receive counts: what the others send this rank). */
static void drift_init(exchange *x)
{
    for (int v = 0; v < DRIFTS; v++) {
        x->dsend[v] = malloc(4 * sizeof(int) * (size_t)x->p);
        x->drecv[v] = x->dsend[v] + 2 * x->p;
        int st = 0, rt = 0;
        for (int j = 0; j < x->p; j++) {
            x->dsend[v][j] = drift_bytes(x->bytes, v, x->me, j);
            x->drecv[v][j] = drift_bytes(x->bytes, v, j, x->me);
            x->dsend[v][x->p + j] = st;
            x->drecv[v][x->p + j] = rt;
            st += x->dsend[v][j];
            rt += x->drecv[v][j];
        }
    }
}

/* Times `calls` calls of one variant (0: MPI_Alltoallv, 1: PMPI_Alltoallv, 2: MPI_Alltoall,
 * 3: PMPI_Alltoall, 4: MPI_Alltoallv drifting, 5: PMPI_Alltoallv drifting, 6: a new
 * communicator with one MPI_Alltoall, 7: the same with PMPI_Alltoall) after a barrier; the
 * slowest rank's time per call. */
static double block(const exchange *x, int variant, int calls)
{
    static int drift;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < calls; i++) {
        const int *ds = x->dsend[drift % DRIFTS], *dr = x->drecv[drift % DRIFTS];
        MPI_Comm comm = x->comm[i % x->ncomms];
        switch (variant) {
        case 0:
            MPI_Alltoallv(x->s, x->counts, x->displs, MPI_BYTE, x->r, x->counts, x->displs,
                          MPI_BYTE, comm);
            break;
        case 1:
            PMPI_Alltoallv(x->s, x->counts, x->displs, MPI_BYTE, x->r, x->counts, x->displs,
                           MPI_BYTE, comm);
            break;
        case 2: MPI_Alltoall(x->s, x->bytes, MPI_BYTE, x->r, x->bytes, MPI_BYTE, comm); break;
        case 3: PMPI_Alltoall(x->s, x->bytes, MPI_BYTE, x->r, x->bytes, MPI_BYTE, comm); break;
        case 4:
            MPI_Alltoallv(x->s, ds, ds + x->p, MPI_BYTE, x->r, dr, dr + x->p, MPI_BYTE, comm);
            drift++;
            break;
        case 5:
            PMPI_Alltoallv(x->s, ds, ds + x->p, MPI_BYTE, x->r, dr, dr + x->p, MPI_BYTE, comm);
            drift++;
            break;
        default: {
            MPI_Comm c;
            if (x->split)
                MPI_Comm_split(MPI_COMM_WORLD, 0, x->me, &c);
            else
                MPI_Comm_dup(MPI_COMM_WORLD, &c);
            /* variant 6 through the shim, 7 directly */
            alltoall_fn *all = variant == 6 ? MPI_Alltoall : PMPI_Alltoall;
            alltoallv_fn *allv = variant == 6 ? MPI_Alltoallv : PMPI_Alltoallv;
            for (int k = 0; k < x->first_calls; k++)
                if (x->first_v)
                    allv(x->s, x->counts, x->displs, MPI_BYTE, x->r, x->counts, x->displs, MPI_BYTE,
                         c);
                else
                    all(x->s, x->bytes, MPI_BYTE, x->r, x->bytes, MPI_BYTE, c);
            MPI_Comm_free(&c);
        }
        }
    }
    double t = (MPI_Wtime() - t0) / calls, worst;
    MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, calls = 2000, blocks = 41, drifting = 0, new_comm = 0;
    exchange x = {.bytes = 8, .ncomms = 1, .first_calls = 1};
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &x.p);
    x.me = rank;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--bytes") && i + 1 < argc)
            x.bytes = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--calls") && i + 1 < argc)
            calls = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--blocks") && i + 1 < argc)
            blocks = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--drift"))
            drifting = 1;
        else if (!strcmp(argv[i], "--new-comm"))
            new_comm = 1;
        else if (!strcmp(argv[i], "--new-comm-v"))
            new_comm = x.first_v = 1;
        else if (!strcmp(argv[i], "--new-comm-split"))
            new_comm = x.split = 1;
        else if (!strcmp(argv[i], "--first-calls") && i + 1 < argc)
            x.first_calls = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--comms") && i + 1 < argc)
            x.ncomms = atoi(argv[++i]);
        else {
            if (rank == 0)
                fprintf(strcmp(argv[i], "--help") ? stderr : stdout,
                        "usage: overhead [--bytes N] [--calls N] [--blocks N] [--drift] "
                        "[--new-comm] [--new-comm-v] [--new-comm-split] [--first-calls N] "
                        "[--comms N (1 - %d)]\n",
                        COMMS_MAX);
            MPI_Finalize();
            return strcmp(argv[i], "--help") ? 2 : 0;
        }
    }
    if (x.bytes < 1 || calls < 1 || blocks < 1 || x.first_calls < 1 || x.ncomms < 1 ||
        x.ncomms > COMMS_MAX) {
        if (rank == 0)
            fprintf(stderr,
                    "overhead: --bytes, --calls, --blocks and --first-calls must be positive, "
                    "--comms "
                    "within 1 - %d\n",
                    COMMS_MAX);
        MPI_Finalize();
        return 2;
    }
    x.comm[0] = MPI_COMM_WORLD;
    for (int k = 0; x.ncomms > 1 && k < x.ncomms; k++)
        MPI_Comm_dup(MPI_COMM_WORLD, &x.comm[k]);
    x.counts = malloc(2 * sizeof(int) * (size_t)x.p);
    x.displs = x.counts + x.p;
    for (int j = 0; j < x.p; j++) {
        x.counts[j] = x.bytes;
        x.displs[j] = j * x.bytes;
    }
    /* drifting counts reach 1.3 times --bytes per pair */
    x.s = calloc((size_t)x.p, (size_t)x.bytes * 2);
    x.r = calloc((size_t)x.p, (size_t)x.bytes * 2);
    /* the pairs measured: pair k is variants 2k (through the shim) and 2k + 1 (directly) */
    int pair[VARIANTS / 2] = {0, 1}, npairs = 2;
    if (drifting)
        pair[npairs++] = 2;
    if (new_comm)
        pair[npairs++] = 3;
    if (drifting)
        drift_init(&x);
    double *t[VARIANTS];
    for (int v = 0; v < VARIANTS; v++)
        t[v] = calloc((size_t)blocks, sizeof(double));
    for (int k = 0; k < 2 * npairs; k++) /* warm-up: hrelay decides, MPI connects */
        block(&x, 2 * pair[k / 2] + k % 2, calls);
    /* alternating, and each pair in both orders: shim first in even blocks, native first in
     * odd ones */
    for (int b = 0; b < blocks; b++)
        for (int k = 0; k < 2 * npairs; k++) {
            int v = 2 * pair[k / 2] + (k % 2 ^ b % 2);
            t[v][b] = block(&x, v, calls);
        }
    const char *(*last)(MPI_Comm) =
        (const char *(*)(MPI_Comm))(void (*)(void))dlsym(RTLD_DEFAULT, "hrelay_last_algorithm");
    const char *ran = last ? last(x.comm[0]) : NULL;
    if (rank == 0) {
        printf("overhead: %d ranks, %d bytes per pair, %d blocks of %d calls, alternating, "
               "%d communicator%s in turn (median per call; hrelay %s, its last call ran %s)\n",
               x.p, x.bytes, blocks, calls, x.ncomms, x.ncomms > 1 ? "s" : "",
               last ? "preloaded" : "NOT preloaded", ran ? ran : "-");
        const char *names[VARIANTS / 2] = {"MPI_Alltoallv", "MPI_Alltoall", "drifting",
                                           "new comm"};
        for (int k = 0; k < npairs; k++) {
            double shim = bench_quantiles_of(t[2 * pair[k]], blocks).median,
                   native = bench_quantiles_of(t[2 * pair[k] + 1], blocks).median;
            printf("  %-14s native %8.3f us   through hrelay %8.3f us   ratio %.3f\n",
                   names[pair[k]], native * 1e6, shim * 1e6, shim / native);
        }
        if (new_comm)
            printf("  (new comm: %s, %d MPI_Alltoall%s, MPI_Comm_free)\n",
                   x.split ? "MPI_Comm_split" : "MPI_Comm_dup", x.first_calls,
                   x.first_v ? "v" : "");
    }
    for (int v = 0; v < VARIANTS; v++)
        free(t[v]);
    for (int v = 0; drifting && v < DRIFTS; v++)
        free(x.dsend[v]);
    free(x.counts);
    free(x.s);
    free(x.r);
    for (int k = 0; x.ncomms > 1 && k < x.ncomms; k++)
        MPI_Comm_free(&x.comm[k]);
    MPI_Finalize();
    return 0;
}
