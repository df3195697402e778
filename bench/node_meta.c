/* bench/node_meta: what a new pattern's metadata costs, side by side in one run: the P x P
 * gather hrelay does for every family but node-direct (an allgather of P + 2 words per rank)
 * against node-direct's node-level exchange (shim/node_gather.c: a reduction of N + 1 words on
 * each node, an allgather of N + 1 words per node between the nodes' first ranks, a broadcast
 * of N (N + 1) words on each node, and the column: an MPI_Alltoall of one word per pair), and
 * the alternative of one allreduce of N (N + 1) words over all ranks. Nodes as hrelay finds
 * them (HRELAY_NODE_SIZE: auto, the shared-memory nodes, or K). Prints, per method, the median
 * and the slowest rank's time of --reps calls (after 3 warm-up calls) and the words one rank
 * receives (the allreduce: what it reduces). Run it with mpiexec (no hrelay needed), e.g. on
 * the emulated cluster: hrelay-emucluster run -n 32 -- bench/node_meta --reps 50.
 *
 * Usage: node_meta [--reps N] */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Orders doubles. */
static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The metadata methods. */
enum { GATHER, NODE_LEVEL, ALLREDUCE, COLUMN, METHODS };
static const char *const names[METHODS] = {
    "P x P allgather (today)", "node reduce + leaders' allgather + node bcast",
    "allreduce of the node matrix", "column: alltoall of one word"};

/* The communicators and buffers of one run. */
typedef struct setup {
    int p, rank, n, lane, node;
    MPI_Comm shm, leaders;
    uint64_t *big, *vec, *all, *row, *col;
} setup;

/* Runs method m once. */
static void run(setup *s, int m)
{
    size_t w = (size_t)s->n + 1;
    switch (m) {
    case GATHER:
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, s->big, s->p + 2, MPI_UINT64_T,
                      MPI_COMM_WORLD);
        break;
    case NODE_LEVEL:
        MPI_Reduce(s->lane ? s->vec : MPI_IN_PLACE, s->vec, (int)w, MPI_UINT64_T, MPI_SUM, 0,
                   s->shm);
        if (s->leaders != MPI_COMM_NULL)
            MPI_Allgather(s->vec, (int)w, MPI_UINT64_T, s->all, (int)w, MPI_UINT64_T,
                          s->leaders);
        MPI_Bcast(s->all, (int)(s->n * w), MPI_UINT64_T, 0, s->shm);
        break;
    case ALLREDUCE:
        MPI_Allreduce(MPI_IN_PLACE, s->all, (int)(s->n * w), MPI_UINT64_T, MPI_SUM,
                      MPI_COMM_WORLD);
        break;
    case COLUMN:
        MPI_Alltoall(s->row, 1, MPI_UINT64_T, s->col, 1, MPI_UINT64_T, MPI_COMM_WORLD);
        break;
    }
}

/* Words one rank receives (or reduces) with method m. */
static size_t words(const setup *s, int m)
{
    size_t n = (size_t)s->n;
    switch (m) {
    case GATHER: return (size_t)s->p * ((size_t)s->p + 2);
    case NODE_LEVEL: return n * (n + 1);
    case ALLREDUCE: return n * (n + 1);
    default: return (size_t)s->p;
    }
}

int main(int argc, char **argv)
{
    int reps = 20;
    MPI_Init(&argc, &argv);
    for (int i = 1; i + 1 < argc; i += 2)
        if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]) > 0 ? atoi(argv[i + 1]) : reps;
    setup s = {0};
    MPI_Comm_size(MPI_COMM_WORLD, &s.p);
    MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
    const char *k = getenv("HRELAY_NODE_SIZE");
    if (k && *k && strcmp(k, "auto"))
        MPI_Comm_split(MPI_COMM_WORLD, s.rank / atoi(k), s.rank, &s.shm);
    else
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, s.rank, MPI_INFO_NULL, &s.shm);
    MPI_Comm_rank(s.shm, &s.lane);
    MPI_Comm_split(MPI_COMM_WORLD, s.lane == 0 ? 0 : MPI_UNDEFINED, s.rank, &s.leaders);
    int first = s.lane == 0;
    MPI_Allreduce(&first, &s.n, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    size_t w = (size_t)s.n + 1;
    s.big = calloc((size_t)s.p * ((size_t)s.p + 2), sizeof *s.big);
    s.vec = calloc(w, sizeof *s.vec);
    s.all = calloc((size_t)s.n * w, sizeof *s.all);
    s.row = calloc((size_t)s.p, sizeof *s.row);
    s.col = calloc((size_t)s.p, sizeof *s.col);
    double *t = calloc((size_t)reps, sizeof *t);
    if (!s.big || !s.vec || !s.all || !s.row || !s.col || !t)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (s.rank == 0)
        printf("node_meta: %d ranks on %d nodes, %d calls per method (median, slowest rank)\n",
               s.p, s.n, reps);
    for (int m = 0; m < METHODS; m++) {
        for (int r = -3; r < reps; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            run(&s, m);
            double dt = MPI_Wtime() - t0, slow;
            MPI_Allreduce(&dt, &slow, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (r >= 0)
                t[r] = slow;
        }
        qsort(t, (size_t)reps, sizeof *t, by_value);
        if (s.rank == 0)
            printf("  %-46s %9.1f us  %8zu words per rank\n", names[m], t[reps / 2] * 1e6,
                   words(&s, m));
    }
    free(t);
    free(s.big);
    free(s.vec);
    free(s.all);
    free(s.row);
    free(s.col);
    if (s.leaders != MPI_COMM_NULL)
        MPI_Comm_free(&s.leaders);
    MPI_Comm_free(&s.shm);
    MPI_Finalize();
    return 0;
}
