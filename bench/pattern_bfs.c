/* drift-bfs: the frontier exchange of a level-synchronous breadth-first search with a 1-D
 * vertex partition, as in the Graph500 benchmark's MPI reference code and Buluc and Madduri,
 * "Parallel breadth-first search on distributed memory systems" (SC 2011): at each level every
 * rank sends the vertices it discovered to their owners, one call site whose volume moves from
 * a few bytes to most of the graph and back. On Graph500's Kronecker graphs the frontier grows
 * by orders of magnitude for a few levels, peaks and falls again (Beamer, Asanovic and
 * Patterson, "Direction-optimizing breadth-first search", SC 2012, Fig. 2); here one search is
 * LEVELS calls: the volume per rank rises geometrically from one element (8 bytes) to the peak
 * in->elems (--bfs-max) over UP levels and falls back over the rest, and searches repeat.
 * Each rank's share of a level varies (its frontier, x 0.25 to 1.75 per call); its vertices'
 * owners are skewed (the owners of hubs, a fixed Zipf-like weight per rank), with per-call
 * jitter; a small frontier reaches few owners (each element drawn on its own), a large one
 * about three quarters of them. Vertices a rank owns itself are not sent. */
#include <math.h>
#include <stdlib.h>

#include "bench/bench.h"

enum { UP = 8, LEVELS = 14 };

/* The nominal elements per rank of call `call`: peak^(l / (UP - 1)) for the l-th level of the
 * rise, then the rise's levels UP - 2 .. 1 again on the way down. */
static double level_volume(uint64_t peak, int call)
{
    int l = call % LEVELS;
    if (l >= UP)
        l = 2 * (UP - 1) - l;
    return pow((double)peak, (double)l / (UP - 1));
}

/* Adds row i of call in->call to m; w: the owners' weights (p entries); cum (p) and share
 * (2 p) scratch. */
static void bfs_row(const bench_pattern_in *in, int i, const double *w, double *cum,
                    uint64_t *share, uint64_t *m)
{
    int p = in->p;
    uint64_t s = bench_state(in->seed, 11, in->call, i);
    double want = level_volume(in->elems, in->call) * (0.25 + 1.5 * bench_uniform(&s));
    uint64_t v = (uint64_t)want + (bench_uniform(&s) < want - floor(want)); /* rounded at random */
    uint64_t *row = m + (size_t)i * p;
    if (v <= 4 * (uint64_t)(p - 1)) { /* few vertices: each one's owner drawn */
        double sum = 0;
        for (int j = 0; j < p; j++)
            cum[j] = sum += j == i ? 0 : w[j] * (0.5 + bench_uniform(&s));
        for (uint64_t e = 0; e < v; e++) {
            int j = bench_draw(cum, p, &s);
            row[j == i ? (i + 1) % p : j]++;
        }
        return;
    }
    uint64_t *wt = share + p, any = 0;
    for (int j = 0; j < p; j++) {
        int present = j != i && bench_uniform(&s) < 0.75;
        wt[j] = present ? (uint64_t)(w[j] * (0.5 + bench_uniform(&s)) * 1048576.0) + 1 : 0;
        any |= wt[j];
    }
    if (!any)
        wt[(i + 1) % p] = 1;
    bench_split(v, wt, p, i, share);
    for (int j = 0; j < p; j++)
        row[j] += share[j];
}

int bench_pattern_bfs(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap)
{
    int p = in->p;
    double *w = malloc(sizeof *w * (size_t)p * 2);
    uint64_t *share = malloc(sizeof *share * (size_t)p * 2);
    int *perm = malloc(sizeof *perm * (size_t)p);
    if (!w || !share || !perm) {
        free(w);
        free(share);
        free(perm);
        return -1;
    }
    /* the owners' weights: 1 / sqrt(1 + position) in a random order fixed for the run */
    uint64_t s = bench_state(in->seed, 11, 0, -1);
    for (int j = 0; j < p; j++)
        perm[j] = j;
    for (int j = p - 1; j > 0; j--) {
        int k = (int)(bench_random(&s) % (uint64_t)(j + 1)), t = perm[j];
        perm[j] = perm[k];
        perm[k] = t;
    }
    for (int j = 0; j < p; j++)
        w[perm[j]] = 1 / sqrt(1.0 + j);
    for (int i = 0; i < p; i++)
        bfs_row(in, i, w, w + p, share, m);
    free(w);
    free(share);
    free(perm);
    return 0;
}
