/* Drifting patterns: one call site whose counts change on every call, each result compared byte
 * for byte (with guard bytes) with PMPI_Alltoallv on the same inputs, and the family every call
 * ran (hrelay_last_algorithm, found with dlsym) gathered on rank 0, which checks that every rank
 * ran the same family on every call. tests/mpi/drift.sh runs it under different settings.
 *
 * Usage: drift [--calls N] [--seed S] [--max INTS]
 *              [--mode random|sweep|jitter|lone|counts|counts-v] [--within K] [--repeat R]
 *              [--lone-at K]
 *   random  every pair's count uniform in [0, INTS] (default 2000), new every call
 *   counts  as random, each call preceded by an MPI_Alltoall of the counts (one int per pair,
 *           from another line: a sample sort's two sites), whose result is checked
 *   counts-v  the same with the counts sent by an MPI_Alltoallv of one int per pair
 *   sweep   BFS-like levels: the counts of call k are about INTS * 4^-|k mod 12 - 6| per pair
 *           (a sweep down to a few ints and back), each pair jittered by up to 30 %
 *   jitter  every pair's count INTS jittered by up to 30 %, new every call (particles)
 *   lone    every pair's count INTS on every call but the second (--lone-at K: call K, from 0;
 *           default 1), where rank 0 alone sends 8 INTS to rank 1 (only rank 0's own part of
 *           the pattern changes)
 *   --within K: only ranks of one group of K consecutive ranks exchange (the others' counts
 *           are 0: an exchange within nodes of K under HRELAY_NODE_SIZE=K)
 *   --repeat R: each pattern R times in a row (calls k R .. k R + R - 1 have call k's counts)
 * Rank 0 prints "drift: P=N calls=N: FAMILY FAMILY ..." (the family of every call) and
 * "drift: ok" or "drift: FAILED". Exit status 0 only when every result matched and every rank
 * ran the same families. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GUARD = 64, NAME = 16 };

static int failures;

/* A hash of (seed, call, i, j): counts every rank derives alike. */
static uint64_t mix(uint64_t seed, uint64_t call, uint64_t i, uint64_t j)
{
    uint64_t x = seed ^ call * 0x9E3779B97F4A7C15ull ^ i * 0xBF58476D1CE4E5B9ull ^
                 j * 0x94D049BB133111EBull;
    x ^= x >> 31;
    x *= 0xD6E8FEB86659FD93ull;
    x ^= x >> 29;
    return x;
}

/* Groups of consecutive ranks outside which nothing is exchanged (--within; 0: none). */
static int within;

/* The call (from 0) whose counts differ in mode lone (--lone-at). */
static int lone_at = 1;

/* The ints rank i sends rank j in call k. */
static int count(const char *mode, uint64_t seed, int k, int i, int j, int max)
{
    if (within > 0 && i / within != j / within)
        return 0;
    if (!strcmp(mode, "lone"))
        return k == lone_at && i == 0 && j == 1 ? 8 * max : max;
    uint64_t h = mix(seed, (uint64_t)k, (uint64_t)i, (uint64_t)j);
    if (!strcmp(mode, "sweep") || !strcmp(mode, "jitter")) {
        int level = !strcmp(mode, "sweep") ? k % 12 - 6 : 0;
        long base = max;
        for (int d = level < 0 ? -level : level; d > 0; d--)
            base /= 4;
        long jitter = base * (long)(h % 61) / 100 - base * 30 / 100; /* within +-30 % */
        return (int)(base + jitter > 0 ? base + jitter : 0);
    }
    return (int)(h % (uint64_t)(max + 1));
}

/* The receive counts rc (p) as an application learns them: an MPI_Alltoall (or, alltoallv, an
 * MPI_Alltoallv of one int per pair) of the send counts sc (intercepted), checked against what
 * rc already holds. */
static void exchange_counts(const int *sc, const int *rc, int p, int me, int k, int alltoallv)
{
    int *got = malloc(3 * sizeof(int) * (size_t)p), *one = got + p, *at = one + p;
    for (int j = 0; j < p; j++) {
        one[j] = 1;
        at[j] = j;
    }
    int rc_mpi = alltoallv
                     ? MPI_Alltoallv(sc, one, at, MPI_INT, got, one, at, MPI_INT, MPI_COMM_WORLD)
                     : MPI_Alltoall(sc, 1, MPI_INT, got, 1, MPI_INT, MPI_COMM_WORLD);
    if (rc_mpi != MPI_SUCCESS || memcmp(got, rc, sizeof(int) * (size_t)p)) {
        fprintf(stderr, "drift: rank %d: the counts' MPI_Alltoall of call %d differs\n", me, k);
        failures++;
    }
    free(got);
}

/* One drifting call: through MPI_Alltoallv (intercepted) and PMPI_Alltoallv, compared. */
static void exchange(const char *mode, uint64_t seed, int k, int max)
{
    int p, me;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int *sc = malloc(4 * sizeof(int) * (size_t)p), *sd = sc + p, *rc = sd + p, *rd = rc + p;
    long st = 0, rt = 0;
    for (int j = 0; j < p; j++) {
        sc[j] = count(mode, seed, k, me, j, max);
        rc[j] = count(mode, seed, k, j, me, max);
    }
    if (!strncmp(mode, "counts", 6))
        exchange_counts(sc, rc, p, me, k, !strcmp(mode, "counts-v"));
    for (int j = 0; j < p; j++) {
        sd[j] = (int)st;
        rd[j] = (int)rt;
        st += sc[j];
        rt += rc[j];
    }
    int *s = malloc(sizeof(int) * (size_t)(st + 1));
    int *r1 = malloc(sizeof(int) * (size_t)(rt + 2 * GUARD)),
        *r2 = malloc(sizeof(int) * (size_t)(rt + 2 * GUARD));
    for (long x = 0; x < st; x++)
        s[x] = (int)(me * 7919 + x * 31 + k);
    memset(r1, 0x5A, sizeof(int) * (size_t)(rt + 2 * GUARD));
    memset(r2, 0x5A, sizeof(int) * (size_t)(rt + 2 * GUARD));
    if (MPI_Alltoallv(s, sc, sd, MPI_INT, r1 + GUARD, rc, rd, MPI_INT, MPI_COMM_WORLD) !=
        MPI_SUCCESS)
        failures++;
    PMPI_Alltoallv(s, sc, sd, MPI_INT, r2 + GUARD, rc, rd, MPI_INT, MPI_COMM_WORLD);
    if (memcmp(r1, r2, sizeof(int) * (size_t)(rt + 2 * GUARD))) {
        fprintf(stderr, "drift: rank %d: call %d differs from PMPI\n", me, k);
        failures++;
    }
    free(s);
    free(r1);
    free(r2);
    free(sc);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, p, calls = 40, max = 2000, repeat = 1;
    uint64_t seed = 1;
    const char *mode = "random";
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--calls"))
            calls = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--max"))
            max = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--mode"))
            mode = argv[i + 1];
        else if (!strcmp(argv[i], "--within"))
            within = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--repeat"))
            repeat = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--lone-at"))
            lone_at = atoi(argv[i + 1]);
    }
    const char *(*last)(MPI_Comm) =
        (const char *(*)(MPI_Comm))(void (*)(void))dlsym(RTLD_DEFAULT, "hrelay_last_algorithm");
    char *ran = calloc((size_t)calls, NAME), *all = me == 0 ? calloc((size_t)calls * p, NAME) : 0;
    for (int k = 0; k < calls; k++) {
        exchange(mode, seed, repeat > 1 ? k / repeat : k, max);
        const char *name = last ? last(MPI_COMM_WORLD) : NULL;
        snprintf(ran + (size_t)k * NAME, NAME, "%s", name ? name : "-");
    }
    MPI_Gather(ran, calls * NAME, MPI_CHAR, all, calls * NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        for (int r = 1; r < p; r++)
            for (int k = 0; k < calls; k++)
                if (strcmp(all + (size_t)k * NAME, all + ((size_t)r * calls + k) * NAME)) {
                    fprintf(stderr, "drift: call %d ran %s on rank 0 and %s on rank %d\n", k,
                            all + (size_t)k * NAME, all + ((size_t)r * calls + k) * NAME, r);
                    total++;
                }
        printf("drift: P=%d calls=%d:", p, calls);
        for (int k = 0; k < calls; k++)
            printf(" %s", ran + (size_t)k * NAME);
        printf("\ndrift: %s\n", total ? "FAILED" : "ok");
    }
    free(ran);
    free(all);
    MPI_Finalize();
    return total != 0;
}
