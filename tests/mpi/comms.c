/* Many communicators (tests/mpi/comms.sh): hrelay's private duplicates must not cost the
 * program the communicators it could create without hrelay.
 *
 *   comms hold BYTES    duplicates MPI_COMM_WORLD until MPI_Comm_dup fails (errors return),
 *                       keeping every duplicate, and runs two MPI_Alltoallv of about BYTES per
 *                       pair on each (checked); rank 0 prints
 *                       "communicators N direct D native M other O bad B"
 *   comms cycle K BYTES the same on K duplicates, each freed after its calls
 *   comms turns K ROUNDS BYTES
 *                       K communicators alive at once (more than a thread remembers), every
 *                       round two checked MPI_Alltoallv on each in turn; after each round one is
 *                       freed and replaced by one of the other size (a duplicate of
 *                       MPI_COMM_WORLD, or its ranks but the last), which MPICH gives the freed
 *                       handle: a record kept for the old one would run the call on the wrong
 *                       ranks; rank 0 prints "turns K rounds R bad B"
 *   comms fresh K CALLS BYTES STEP [FORCED [DRIFT]]
 *                       K duplicates of MPI_COMM_WORLD in turn, each freed after CALLS checked
 *                       MPI_Alltoallv at one site of about BYTES per pair, the last rank
 *                       sending STEP more per pair on each duplicate than on the one before (0:
 *                       the same exchange on every one), duplicate FORCED (1 .. K; 0: none)
 *                       running direct (hrelay_set_algorithm; a failure counts as bad), with
 *                       DRIFT 1 counts that change on every call (up to 4 bytes more per pair);
 *                       with COMMS_SPLIT in the environment, communicators MPI_Comm_split
 *                       makes of MPI_COMM_WORLD instead of duplicates: N (1, 2, ...) the ranks
 *                       of each residue modulo N (1: MPI_COMM_WORLD's group again); "mix" those
 *                       modulo 2 and the lower and upper halves in turn; "full" (5 ranks)
 *                       first 15 communicators of the ranks but 1, each in another order (with
 *                       MPI_COMM_WORLD's, 16 groups on every rank but 1: a full table of
 *                       lineages), then ranks 0 and 1 and the others (rank 0 finds no lineage
 *                       for the first, rank 1 does); rank 0 prints "fresh K calls C bad B"
 *
 * D, M and O count communicators whose last call ran direct, MPI's algorithm, or anything else
 * (hrelay_last_algorithm, found with dlsym; all "other" without hrelay). B counts wrong bytes and
 * failed calls over all ranks. Exit status 0 unless the program itself could not run. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef const char *(*last_fn)(MPI_Comm);

/* The byte rank `from` sends rank `to` at offset k (of call `call`). */
static unsigned char byte_of(int from, int to, int k, int call)
{
    return (unsigned char)(from * 131 + to * 17 + k * 7 + call * 3);
}

/* Runs `calls` MPI_Alltoallv at one site on comm (p ranks, this one `rank`) with about `bytes`
 * per pair, uneven, `last` more from the last rank, counts changing on every call where drift;
 * returns the number of wrong bytes plus failed calls. */
static long exchange_n(MPI_Comm comm, int p, int rank, int bytes, int last, int drift, int calls,
                       unsigned char *sbuf, unsigned char *rbuf, int *sc, int *sd, int *rc, int *rd)
{
    long bad = 0;
    for (int call = 0; call < calls; call++) {
        int so = 0, ro = 0;
        for (int j = 0; j < p; j++) {
            int more = drift ? (rank + j + call) % 5 : 0; /* the same both ways */
            sc[j] = bytes + (rank + j) % 3 + more + (rank == p - 1 ? last : 0);
            rc[j] = bytes + (j + rank) % 3 + more + (j == p - 1 ? last : 0);
            sd[j] = so;
            rd[j] = ro;
            for (int k = 0; k < sc[j]; k++)
                sbuf[so + k] = byte_of(rank, j, k, call);
            so += sc[j];
            ro += rc[j];
        }
        memset(rbuf, 0, (size_t)ro);
        if (MPI_Alltoallv(sbuf, sc, sd, MPI_BYTE, rbuf, rc, rd, MPI_BYTE, comm) != MPI_SUCCESS) {
            bad++;
            continue;
        }
        for (int j = 0; j < p; j++)
            for (int k = 0; k < rc[j]; k++)
                bad += rbuf[rd[j] + k] != byte_of(j, rank, k, call);
    }
    return bad;
}

/* Two calls of exchange_n, evenly. */
static long exchange(MPI_Comm comm, int p, int rank, int bytes, unsigned char *sbuf,
                     unsigned char *rbuf, int *sc, int *sd, int *rc, int *rd)
{
    return exchange_n(comm, p, rank, bytes, 0, 0, 2, sbuf, rbuf, sc, sd, rc, rd);
}

typedef int (*set_fn)(MPI_Comm, const char *);

/* The position of element e in permutation k (0 .. m! - 1, m <= 8) of 0 .. m - 1. */
static int permuted(int e, int m, int k)
{
    int left[8], fact = 1;
    for (int i = 0; i < m; i++) {
        left[i] = i;
        fact *= i + 1;
    }
    for (int pos = 0; pos < m; pos++) {
        fact /= m - pos;
        int i = k / fact % (m - pos);
        if (left[i] == e)
            return pos;
        for (; i + 1 < m - pos; i++)
            left[i] = left[i + 1];
    }
    return -1;
}

/* Communicator i of `fresh` under COMMS_SPLIT=mode (see the file comment). */
static void split_of(const char *mode, int i, int p, int rank, MPI_Comm *c)
{
    int color = 0, key = rank;
    if (!strcmp(mode, "mix")) {
        color = i % 2 ? rank < (p + 1) / 2 : rank % 2;
    } else if (!strcmp(mode, "full")) {
        if (i < 15) { /* ranks 0, 2, 3, 4 in order i */
            color = rank == 1;
            key = rank == 1 ? 0 : permuted(rank - (rank > 1), p - 1, i);
        } else {
            color = rank >= 2;
        }
    } else {
        color = rank % atoi(mode);
    }
    MPI_Comm_split(MPI_COMM_WORLD, color, key, c);
}

/* comms fresh K CALLS BYTES STEP [FORCED [DRIFT]] (see the file comment). */
static int fresh(int k, int calls, int bytes, int step, int forced, int drift)
{
    set_fn set = (set_fn)(void (*)(void))dlsym(RTLD_DEFAULT, "hrelay_set_algorithm");
    int p, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    size_t most = ((size_t)bytes + 6 + (size_t)k * (size_t)step) * (size_t)p;
    unsigned char *sbuf = malloc(most), *rbuf = malloc(most);
    int *counts = malloc(4 * (size_t)p * sizeof *counts);
    if (!sbuf || !rbuf || !counts) {
        fprintf(stderr, "comms: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long bad = 0;
    const char *split = getenv("COMMS_SPLIT");
    if (split && (!strcmp(split, "full") ? p != 5 : strcmp(split, "mix") && atoi(split) < 1)) {
        fprintf(stderr, "comms: COMMS_SPLIT=%s needs 5 ranks, or is not mix or N >= 1\n", split);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < k; i++) {
        MPI_Comm c;
        if (split)
            split_of(split, i, p, rank, &c);
        else
            MPI_Comm_dup(MPI_COMM_WORLD, &c);
        int cp, crank;
        MPI_Comm_size(c, &cp);
        MPI_Comm_rank(c, &crank);
        if (i + 1 == forced && (!set || set(c, "direct") != 0))
            bad++;
        bad += exchange_n(c, cp, crank, bytes, i * step, drift, calls, sbuf, rbuf, counts,
                          counts + p, counts + 2 * p, counts + 3 * p);
        MPI_Comm_free(&c);
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("fresh %d calls %d bad %ld\n", k, calls, bad);
    free(counts);
    free(sbuf);
    free(rbuf);
    return 0;
}

/* Communicator k of `turns` (see the file comment): a duplicate of MPI_COMM_WORLD where k + kind
 * is even, else its ranks but the last (MPI_COMM_NULL on that one; a duplicate on 1 rank). */
static MPI_Comm turn_comm(int k, int kind)
{
    int p, rank;
    MPI_Comm c;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if ((k + kind) % 2 == 0 || p < 2)
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
    else
        MPI_Comm_split(MPI_COMM_WORLD, rank < p - 1 ? 0 : MPI_UNDEFINED, rank, &c);
    return c;
}

/* comms turns K ROUNDS BYTES (see the file comment). */
static int turns(int k, int rounds, int bytes)
{
    int p, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    size_t most = (size_t)(bytes + 2) * (size_t)p;
    unsigned char *sbuf = malloc(most), *rbuf = malloc(most);
    int *counts = malloc(4 * (size_t)p * sizeof *counts);
    MPI_Comm *c = malloc((size_t)k * sizeof *c);
    int *kind = calloc((size_t)k, sizeof *kind);
    if (!sbuf || !rbuf || !counts || !c || !kind) {
        fprintf(stderr, "comms: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < k; i++)
        c[i] = turn_comm(i, 0);
    long bad = 0;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < k; i++) {
            if (c[i] == MPI_COMM_NULL)
                continue;
            int n, me;
            MPI_Comm_size(c[i], &n);
            MPI_Comm_rank(c[i], &me);
            bad += exchange(c[i], n, me, bytes, sbuf, rbuf, counts, counts + n, counts + 2 * n,
                            counts + 3 * n);
        }
        int i = r % k;
        if (c[i] != MPI_COMM_NULL)
            MPI_Comm_free(&c[i]);
        kind[i] ^= 1;
        c[i] = turn_comm(i, kind[i]);
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("turns %d rounds %d bad %ld\n", k, rounds, bad);
    for (int i = 0; i < k; i++)
        if (c[i] != MPI_COMM_NULL)
            MPI_Comm_free(&c[i]);
    free(kind);
    free(c);
    free(counts);
    free(sbuf);
    free(rbuf);
    return 0;
}

int main(int argc, char **argv)
{
    int hold = argc == 3 && strcmp(argv[1], "hold") == 0;
    int cycle = argc == 4 && strcmp(argv[1], "cycle") == 0;
    if (argc >= 6 && argc <= 8 && strcmp(argv[1], "fresh") == 0 && atoi(argv[2]) > 0 &&
        atoi(argv[3]) > 0 && atoi(argv[4]) >= 0 && atoi(argv[5]) >= 0) {
        MPI_Init(&argc, &argv);
        int rc = fresh(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), atoi(argv[5]),
                       argc >= 7 ? atoi(argv[6]) : 0, argc == 8 && atoi(argv[7]) != 0);
        MPI_Finalize();
        return rc;
    }
    if (argc == 5 && strcmp(argv[1], "turns") == 0 && atoi(argv[2]) > 0 && atoi(argv[3]) > 0) {
        MPI_Init(&argc, &argv);
        int rc = turns(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
        MPI_Finalize();
        return rc;
    }
    if (!hold && !cycle) {
        fprintf(stderr, "usage: comms hold BYTES | comms cycle K BYTES | comms turns K ROUNDS "
                        "BYTES | comms fresh K CALLS BYTES STEP [FORCED [DRIFT]]\n");
        return 2;
    }
    int limit = cycle ? atoi(argv[2]) : 1 << 20, bytes = atoi(argv[argc - 1]);
    MPI_Init(&argc, &argv);
    int p, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    last_fn last = (last_fn)(void (*)(void))dlsym(RTLD_DEFAULT, "hrelay_last_algorithm");

    size_t most = (size_t)(bytes + 2) * (size_t)p;
    unsigned char *sbuf = malloc(most), *rbuf = malloc(most);
    int *counts = malloc(4 * (size_t)p * sizeof *counts);
    MPI_Comm *kept = hold ? malloc(65536 * sizeof *kept) : NULL;
    if (!sbuf || !rbuf || !counts || (hold && !kept)) {
        fprintf(stderr, "comms: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* [communicators, direct, native, other, bad] */
    long n[5] = {0};
    while (n[0] < limit && (!hold || n[0] < 65536)) {
        MPI_Comm c;
        if (MPI_Comm_dup(MPI_COMM_WORLD, &c) != MPI_SUCCESS)
            break;
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        n[0]++;
        n[4] += exchange(c, p, rank, bytes, sbuf, rbuf, counts, counts + p, counts + 2 * p,
                         counts + 3 * p);
        const char *ran = last ? last(c) : NULL;
        n[ran && strcmp(ran, "direct") == 0 ? 1 : ran && strcmp(ran, "native") == 0 ? 2 : 3]++;
        if (hold)
            kept[n[0] - 1] = c;
        else
            MPI_Comm_free(&c);
    }
    MPI_Allreduce(MPI_IN_PLACE, &n[4], 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("communicators %ld direct %ld native %ld other %ld bad %ld\n", n[0], n[1], n[2],
               n[3], n[4]);
    for (long i = 0; hold && i < n[0]; i++)
        MPI_Comm_free(&kept[i]);
    free(kept);
    free(counts);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
