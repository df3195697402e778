/* Call sites, the plan cache and the unchecked native runs, seen from a program: exchanges at
 * distinct call sites with fixed or changing patterns, every result compared byte for byte
 * (with guard bytes) with PMPI_Alltoallv on the same inputs. tests/mpi/cache.sh runs it under
 * different settings and checks the report.
 *
 * Usage: sites PHASE [ITERATIONS]
 *   two     sites A and B alternate, each with its own fixed pattern (ITERATIONS calls each)
 *   change  site C alternates two patterns that differ only in what rank 0 sends to rank 1
 *           (rank 0's counts change, rank 1's receive counts follow; ITERATIONS calls)
 *   quiet   site D: ITERATIONS calls of 8 bytes per pair, then site E: ITERATIONS calls of
 *           256 KiB per pair
 *   mixed   sites D and E alternate (ITERATIONS calls each), D first
 * Rank 0 prints "sites: NAME line N" for every site it used (the line of its MPI_Alltoallv
 * call) and "sites: ok" or "sites: FAILED". Exit status 0 only when every result matched. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GUARD = 64 };

static int failures;

/* Counts (in ints) of one exchange: what every rank sends to every other rank. */
typedef long (*pattern_fn)(int from, int to, int p, int variant);

/* One MPI_Alltoallv of the given pattern through fn (which makes the intercepted call), the
 * same through PMPI_Alltoallv, and the comparison of both receive buffers (guards included). */
static void exchange(int (*fn)(const int *, const int *, const int *, int *, const int *,
                               const int *),
                     pattern_fn pat, int variant)
{
    int p, me;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int *sc = malloc(4 * sizeof(int) * (size_t)p), *sd = sc + p, *rc = sd + p, *rd = rc + p;
    long st = 0, rt = 0;
    for (int j = 0; j < p; j++) {
        sc[j] = (int)pat(me, j, p, variant);
        rc[j] = (int)pat(j, me, p, variant);
        sd[j] = (int)st;
        rd[j] = (int)rt;
        st += sc[j];
        rt += rc[j];
    }
    int *s = malloc(sizeof(int) * (size_t)(st + 1));
    int *r1 = malloc(sizeof(int) * (size_t)(rt + 2 * GUARD)),
        *r2 = malloc(sizeof(int) * (size_t)(rt + 2 * GUARD));
    for (long k = 0; k < st; k++)
        s[k] = (int)(me * 7919 + k * 31 + variant);
    memset(r1, 0x5A, sizeof(int) * (size_t)(rt + 2 * GUARD));
    memset(r2, 0x5A, sizeof(int) * (size_t)(rt + 2 * GUARD));
    if (fn(s, sc, sd, r1 + GUARD, rc, rd) != MPI_SUCCESS)
        failures++;
    PMPI_Alltoallv(s, sc, sd, MPI_INT, r2 + GUARD, rc, rd, MPI_INT, MPI_COMM_WORLD);
    if (memcmp(r1, r2, sizeof(int) * (size_t)(rt + 2 * GUARD))) {
        fprintf(stderr, "sites: rank %d: result differs from PMPI (variant %d)\n", me, variant);
        failures++;
    }
    free(s);
    free(r1);
    free(r2);
    free(sc);
}

/* The lines of the call sites, for the report check. */
static int line_a, line_b, line_c, line_d, line_e;

#define SITE(line, ...) ((line) = __LINE__, MPI_Alltoallv(__VA_ARGS__))

static int site_a(const int *s, const int *sc, const int *sd, int *r, const int *rc,
                  const int *rd)
{
    return SITE(line_a, s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, MPI_COMM_WORLD);
}

static int site_b(const int *s, const int *sc, const int *sd, int *r, const int *rc,
                  const int *rd)
{
    return SITE(line_b, s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, MPI_COMM_WORLD);
}

static int site_c(const int *s, const int *sc, const int *sd, int *r, const int *rc,
                  const int *rd)
{
    return SITE(line_c, s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, MPI_COMM_WORLD);
}

static int site_d(const int *s, const int *sc, const int *sd, int *r, const int *rc,
                  const int *rd)
{
    return SITE(line_d, s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, MPI_COMM_WORLD);
}

static int site_e(const int *s, const int *sc, const int *sd, int *r, const int *rc,
                  const int *rd)
{
    return SITE(line_e, s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, MPI_COMM_WORLD);
}

/* Uneven pattern A. */
static long pat_a(int from, int to, int p, int variant)
{
    (void)p;
    (void)variant;
    return 1000 + 700 * ((from * 3 + to) % 4);
}

/* Uneven pattern B (another shape). */
static long pat_b(int from, int to, int p, int variant)
{
    (void)variant;
    return to == (from + 1) % p ? 20000 : 50 * (1 + (from + to) % 3);
}

/* Pattern C: variant 1 makes rank 0 send more to rank 1. */
static long pat_c(int from, int to, int p, int variant)
{
    (void)p;
    return 3000 + 10 * (from + to) + (variant && from == 0 && to == 1 ? 5000 : 0);
}

/* 8 bytes (two ints) per pair. */
static long pat_tiny(int from, int to, int p, int variant)
{
    (void)from;
    (void)to;
    (void)p;
    (void)variant;
    return 2;
}

/* 256 KiB per pair. */
static long pat_big(int from, int to, int p, int variant)
{
    (void)from;
    (void)to;
    (void)p;
    (void)variant;
    return 65536;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    const char *phase = argc > 1 ? argv[1] : "two";
    int iters = argc > 2 ? atoi(argv[2]) : 20;
    if (!strcmp(phase, "two")) {
        for (int i = 0; i < iters; i++) {
            exchange(site_a, pat_a, 0);
            exchange(site_b, pat_b, 0);
        }
    } else if (!strcmp(phase, "change")) {
        for (int i = 0; i < iters; i++)
            exchange(site_c, pat_c, i % 2);
    } else if (!strcmp(phase, "quiet")) {
        for (int i = 0; i < iters; i++)
            exchange(site_d, pat_tiny, 0);
        for (int i = 0; i < iters; i++)
            exchange(site_e, pat_big, 0);
    } else if (!strcmp(phase, "mixed")) {
        for (int i = 0; i < iters; i++) {
            exchange(site_d, pat_tiny, 0);
            exchange(site_e, pat_big, 0);
        }
    } else {
        if (me == 0)
            fprintf(stderr, "sites: unknown phase %s\n", phase);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        const struct {
            const char *name;
            int line;
        } used[] = {{"A", line_a}, {"B", line_b}, {"C", line_c}, {"D", line_d}, {"E", line_e}};
        for (size_t i = 0; i < sizeof used / sizeof used[0]; i++)
            if (used[i].line)
                printf("sites: %s line %d\n", used[i].name, used[i].line);
        printf("sites: %s\n", total ? "FAILED" : "ok");
    }
    MPI_Finalize();
    return total != 0;
}
