/* samplesort and drift-samplesort: the key exchange of examples/samplesort.c (Zipf-skewed
 * 64-bit keys, regular sampling, P - 1 splitters), as a matrix: iteration in->call of the demo
 * (0 for the fixed pattern; a drifting run draws new keys, hence new splitters and new
 * Zipf-skewed bucket sizes, on every call, as the demo's iterations and a sample sort's rounds
 * do). Each rank draws its keys the way the demo draws them (at most SAMPLE_MAX of them: with
 * fewer than SAMPLE_MAX elements per rank the matrix is exactly the demo's), the splitters come
 * from 4P regular samples of every rank's sorted keys, and each rank's bucket counts are scaled
 * to its elements; the rows are gathered, so every rank holds the same matrix. Collective over
 * in->comm.
 *
 * Sample sort by regular sampling: PSRS (Shi and Schaeffer, J. Parallel Distrib. Comput. 14,
 * 1992); new splitters every round as in HykSort (Sundar, Malhotra and Biros, ICS 2013). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"

enum { ZIPF_VALUES = 65536, SAMPLE_MAX = 32768 };
static const double zipf_exponent = 1.1;

/* A bijective mix of 64 bits (spreads Zipf ranks over the key range). */
static uint64_t mix(uint64_t x)
{
    return bench_random(&x);
}

/* Draws a Zipf rank in [0, ZIPF_VALUES) by inverting the cumulative distribution cdf. */
static int zipf_draw(const double *cdf, uint64_t *state)
{
    double u = (double)(bench_random(state) >> 11) * 0x1p-53;
    int lo = 0, hi = ZIPF_VALUES - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (cdf[mid] < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* qsort order of uint64_t. */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* n keys of rank `rank`, sorted: Zipf ranks mixed over the key range, mid-frequency keys
 * depending on the rank (as examples/samplesort.c, iteration `it`). */
static void draw_keys(uint64_t *keys, uint64_t n, const double *cdf, uint64_t seed, int rank,
                      int it)
{
    uint64_t state = seed ^ ((uint64_t)rank << 40) ^ ((uint64_t)it << 20);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t z = (uint64_t)zipf_draw(cdf, &state);
        if (z >= 4 && z < 64)
            z += (uint64_t)(rank % 4) << 32;
        keys[i] = mix(z);
    }
    qsort(keys, (size_t)n, sizeof *keys, cmp_u64);
}

/* The bucket of key: the number of splitters <= key, in [0, p). */
static int bucket_of(uint64_t key, const uint64_t *split, int p)
{
    int lo = 0, hi = p - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (split[mid] <= key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The splitters from 4p regular samples of each rank's sorted keys (collective). Returns 0 on
 * every rank, or -1 on every rank. */
static int splitters(const uint64_t *keys, uint64_t n, int p, uint64_t *split, MPI_Comm comm)
{
    int s = 4 * p, ok, all_ok;
    uint64_t *mine = malloc(sizeof *mine * (size_t)s),
             *all = malloc(sizeof *all * (size_t)s * (size_t)p);
    ok = mine && all;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (all_ok) {
        for (int k = 0; k < s; k++)
            mine[k] = keys[(uint64_t)((double)n * (k + 0.5) / s)];
        all_ok = MPI_Allgather(mine, s, MPI_UINT64_T, all, s, MPI_UINT64_T, comm) == MPI_SUCCESS;
    }
    if (all_ok) {
        qsort(all, (size_t)s * (size_t)p, sizeof *all, cmp_u64);
        for (int k = 1; k < p; k++)
            split[k - 1] = all[(size_t)k * (size_t)s];
        split[p - 1] = UINT64_MAX;
    }
    free(mine);
    free(all);
    return all_ok ? 0 : -1;
}

int bench_pattern_samplesort(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap)
{
    int p = in->p, rank;
    MPI_Comm_rank(in->comm, &rank);
    uint64_t n = in->elems < SAMPLE_MAX ? in->elems : SAMPLE_MAX;
    double *cdf = malloc(sizeof *cdf * ZIPF_VALUES);
    uint64_t *keys = malloc(sizeof *keys * (size_t)n), *split = malloc(sizeof *split * (size_t)p),
             *counts = calloc((size_t)p, sizeof *counts), *row = malloc(sizeof *row * (size_t)p);
    int ok = cdf && keys && split && counts && row, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, in->comm);
    if (all_ok) {
        double sum = 0;
        for (int k = 0; k < ZIPF_VALUES; k++)
            cdf[k] = sum += 1.0 / pow((double)(k + 1), zipf_exponent);
        for (int k = 0; k < ZIPF_VALUES; k++)
            cdf[k] /= sum;
        draw_keys(keys, n, cdf, in->seed, rank, in->call);
        all_ok = splitters(keys, n, p, split, in->comm) == 0;
    }
    if (all_ok) {
        for (uint64_t i = 0; i < n; i++)
            counts[bucket_of(keys[i], split, p)]++;
        bench_split(in->elems, counts, p, 0, row);
        all_ok = MPI_Allgather(row, p, MPI_UINT64_T, m, p, MPI_UINT64_T, in->comm) ==
                 MPI_SUCCESS;
    }
    free(cdf);
    free(keys);
    free(split);
    free(counts);
    free(row);
    return all_ok ? 0 : -1;
}
