/* The tool API of hrelay.h (hrelay_set_algorithm, hrelay_last_algorithm, hrelay_last_run),
 * found with dlsym as a tool would: per-communicator families, NULL back to HRELAY_ALGO, unknown
 * names refused, results equal to PMPI's. Run under libhrelay.so with HRELAY_ALGO=native
 * (tests/mpi/control.sh).
 *
 * With --variants N: N calls of one pattern under whatever HRELAY_ALGO says (control.sh:
 * node-aggregate, measured with messages and through the node's window), each result equal to
 * PMPI's; hrelay_last_run must name hrelay_last_algorithm's family alone or followed by
 * "/shared memory", both must occur, and every rank must see the same names.
 * Exits 0 when everything holds, 1 (after printing why) otherwise. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hrelay.h"

typedef int (*set_fn)(MPI_Comm, const char *);
typedef const char *(*last_fn)(MPI_Comm);

static int failures;

/* Records a failure on this rank. */
static void fail(int rank, const char *what, const char *got)
{
    fprintf(stderr, "control: rank %d: %s (got %s)\n", rank, what, got ? got : "NULL");
    failures++;
}

/* One uneven MPI_Alltoallv on comm; returns 0 if its result equals PMPI_Alltoallv's. */
static int exchange(MPI_Comm comm)
{
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    int *sc = malloc(4 * sizeof(int) * (size_t)p), *sd = sc + p, *rc = sd + p, *rd = rc + p;
    int stotal = 0, rtotal = 0;
    for (int j = 0; j < p; j++) {
        sc[j] = 100 * (1 + (me * 7 + j * 3) % 5);
        rc[j] = 100 * (1 + (j * 7 + me * 3) % 5);
        sd[j] = stotal;
        rd[j] = rtotal;
        stotal += sc[j];
        rtotal += rc[j];
    }
    int *s = malloc(sizeof(int) * (size_t)stotal), *r1 = calloc((size_t)rtotal, sizeof(int)),
        *r2 = calloc((size_t)rtotal, sizeof(int));
    for (int k = 0; k < stotal; k++)
        s[k] = me * 1000003 + k;
    MPI_Alltoallv(s, sc, sd, MPI_INT, r1, rc, rd, MPI_INT, comm);
    PMPI_Alltoallv(s, sc, sd, MPI_INT, r2, rc, rd, MPI_INT, comm);
    int same = memcmp(r1, r2, sizeof(int) * (size_t)rtotal) == 0;
    free(s);
    free(r1);
    free(r2);
    free(sc);
    return same ? 0 : 1;
}

static last_fn last_run; /* hrelay_last_run */

/* Checks that the last call on comm ran `want`, with no variant. */
static void expect_last(last_fn last, MPI_Comm comm, int rank, const char *want)
{
    const char *got = last(comm), *run = last_run(comm);
    if (!got || strcmp(got, want))
        fail(rank, want, got);
    if (!run || strcmp(run, want))
        fail(rank, "hrelay_last_run as hrelay_last_algorithm", run);
}

/* --variants: n calls of one pattern on comm; see the file's comment. */
static void variants(last_fn last, MPI_Comm comm, int rank, int n)
{
    int seen[2] = {0, 0}, p;
    MPI_Comm_size(comm, &p);
    char *mine = calloc((size_t)n, 1), *all = calloc((size_t)n * (size_t)p, 1);
    for (int k = 0; k < n; k++) {
        failures += exchange(comm);
        const char *family = last(comm), *run = last_run(comm);
        size_t len = family ? strlen(family) : 0;
        int v = !family || !run || strncmp(run, family, len) ? -1
                : !run[len]                                  ? 0
                : !strcmp(run + len, "/shared memory")       ? 1
                                                             : -1;
        if (v < 0)
            fail(rank, "a family alone or with /shared memory", run);
        else
            seen[v]++;
        mine[k] = (char)('0' + v);
    }
    MPI_Allgather(mine, n, MPI_CHAR, all, n, MPI_CHAR, comm);
    for (int r = 0; r < p; r++)
        if (memcmp(all + (size_t)r * (size_t)n, mine, (size_t)n))
            fail(rank, "the same variants on every rank", "others");
    if (!seen[0] || !seen[1])
        fail(rank, "both variants", seen[0] ? "the family alone only" : "no call without");
    if (rank == 0)
        printf("control: %d calls with messages, %d through the node's window\n", seen[0], seen[1]);
    free(mine);
    free(all);
}

/* Prints the verdict of every rank's failures on rank 0 and finalizes MPI; returns the exit
 * status. */
static int finish(int rank)
{
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("control: %s (%d failures)\n", total ? "FAILED" : "ok", total);
    MPI_Finalize();
    return total != 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    set_fn set = (set_fn)(void (*)(void))dlsym(RTLD_DEFAULT, "hrelay_set_algorithm");
    last_fn last = (last_fn)(void (*)(void))dlsym(RTLD_DEFAULT, "hrelay_last_algorithm");
    last_run = (last_fn)(void (*)(void))dlsym(RTLD_DEFAULT, "hrelay_last_run");
    if (!set || !last || !last_run) {
        fprintf(stderr, "control: hrelay_set_algorithm / hrelay_last_algorithm / "
                        "hrelay_last_run not found\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (argc == 3 && !strcmp(argv[1], "--variants")) {
        variants(last, MPI_COMM_WORLD, rank, atoi(argv[2]));
        return finish(rank);
    }

    MPI_Comm other;
    MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &other);
    if (last(other) != NULL || last_run(other) != NULL)
        fail(rank, "no call on a new communicator yet", last(other));

    failures += exchange(MPI_COMM_WORLD);
    expect_last(last, MPI_COMM_WORLD, rank, "native"); /* HRELAY_ALGO=native */

    /* requests before a communicator's first call (hrelay has no record of it yet): the last
     * one runs that call */
    MPI_Comm fresh;
    MPI_Comm_dup(MPI_COMM_WORLD, &fresh);
    if (set(fresh, "stepwise") != 0 || set(fresh, "direct") != 0)
        fail(rank, "requests before the first call accepted", "-1");
    if (last(fresh) != NULL)
        fail(rank, "no call on the fresh communicator yet", last(fresh));
    failures += exchange(fresh);
    expect_last(last, fresh, rank, "direct");
    MPI_Comm_free(&fresh);

    if (set(MPI_COMM_WORLD, "direct") != 0)
        fail(rank, "set direct accepted", "-1");
    failures += exchange(MPI_COMM_WORLD);
    expect_last(last, MPI_COMM_WORLD, rank, "direct");
    failures += exchange(other); /* other keeps HRELAY_ALGO */
    expect_last(last, other, rank, "native");
    expect_last(last, MPI_COMM_WORLD, rank, "direct");

    if (set(other, "stepwise") != 0)
        fail(rank, "set stepwise accepted", "-1");
    failures += exchange(other);
    expect_last(last, other, rank, "stepwise");

    if (set(MPI_COMM_WORLD, "no-such-family") != -1)
        fail(rank, "unknown family refused", "0");
    failures += exchange(MPI_COMM_WORLD); /* the refused call changed nothing */
    expect_last(last, MPI_COMM_WORLD, rank, "direct");
    if (set(MPI_COMM_NULL, "direct") != -1)
        fail(rank, "MPI_COMM_NULL refused", "0");

    if (set(MPI_COMM_WORLD, NULL) != 0)
        fail(rank, "NULL accepted", "-1");
    failures += exchange(MPI_COMM_WORLD);
    expect_last(last, MPI_COMM_WORLD, rank, "native");

    MPI_Comm_free(&other);
    return finish(rank);
}
