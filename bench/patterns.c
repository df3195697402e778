/* The exchange patterns: the table, and the patterns that need no gathering and no
 * block-cyclic arithmetic. Each fills a p x p matrix of elements from (p, elements per rank,
 * seed) alone, so every rank computes the same matrix. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"

/* The generator state of row i of a fixed pattern (tag tells patterns apart). */
static uint64_t row_state(uint64_t seed, uint64_t tag, int i)
{
    uint64_t s = seed ^ (tag << 48) ^ ((uint64_t)(i + 1) << 20);
    return bench_random(&s);
}

void bench_split(uint64_t total, const uint64_t *w, int n, int first, uint64_t *out)
{
    unsigned __int128 sum = 0;
    for (int k = 0; k < n; k++)
        sum += w[k];
    uint64_t given = 0;
    for (int k = 0; k < n; k++) {
        out[k] = sum ? (uint64_t)((unsigned __int128)total * w[k] / sum) : 0;
        given += out[k];
    }
    for (int step = 0; given < total && sum; step = (step + 1) % n) {
        int k = (first + step) % n;
        if (w[k]) {
            out[k]++;
            given++;
        }
    }
}

/* Row i gets elems spread evenly over all p ranks, the remainder to i, i + 1, ... so that
 * every row and every column sums to elems (adds to m). */
static void add_uniform(uint64_t *m, int p, int i, uint64_t elems)
{
    for (int j = 0; j < p; j++)
        m[(size_t)i * p + j] += elems / (uint64_t)p + ((uint64_t)((j - i + p) % p) < elems % (uint64_t)p);
}

/* uniform: every rank sends elems / p to every rank (itself included). */
static int uniform(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap)
{
    for (int i = 0; i < in->p; i++)
        add_uniform(m, in->p, i, in->elems);
    return 0;
}

/* Splits each row's elems over weights drawn by draw(state, j) for the off-diagonal entries. */
static int weighted_rows(const bench_pattern_in *in, uint64_t *m, uint64_t tag,
                         uint64_t (*draw)(uint64_t *state))
{
    int p = in->p;
    uint64_t *w = calloc((size_t)p, sizeof *w);
    if (!w)
        return -1;
    for (int i = 0; i < p; i++) {
        uint64_t s = row_state(in->seed, tag, i), any = 0;
        for (int j = 0; j < p; j++) {
            uint64_t x = draw(&s);
            w[j] = j == i ? 0 : x;
            any |= w[j];
        }
        if (!any) /* every row sends somewhere */
            w[(i + 1 + (int)(bench_random(&s) % (uint64_t)(p - 1))) % p] = 1;
        bench_split(in->elems, w, p, i, m + (size_t)i * p);
    }
    free(w);
    return 0;
}

/* A quarter of the entries present, weights uniform in [1, 1024]. */
static uint64_t sparse_weight(uint64_t *s)
{
    uint64_t present = (bench_random(s) & 3) == 0, w = 1 + bench_random(s) % 1024;
    return present ? w : 0;
}

/* sparse: each rank sends to about a quarter of the others, random sizes. */
static int sparse(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap)
{
    return weighted_rows(in, m, 1, sparse_weight);
}

/* Pareto weights of shape 1.2, 1024 at the least, capped at 2^24. */
static uint64_t pareto_weight(uint64_t *s)
{
    double u = (double)((bench_random(s) >> 11) + 1) * 0x1p-53; /* (0, 1] */
    double w = 1024.0 * pow(u, -1.0 / 1.2);
    return w < 16777216.0 ? (uint64_t)w : 16777216;
}

/* powerlaw: every rank sends to every other rank, sizes drawn from a power law. */
static int powerlaw(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap)
{
    return weighted_rows(in, m, 2, pareto_weight);
}

/* incast: every rank sends all its elements to rank 0. */
static int incast(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap)
{
    for (int i = 0; i < in->p; i++)
        m[(size_t)i * in->p] = in->elems;
    return 0;
}

/* hot-sender: the transpose of incast: rank 0 sends elems to every rank. */
static int hot_sender(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap)
{
    for (int j = 0; j < in->p; j++)
        m[j] = in->elems;
    return 0;
}

/* hot-receivers: k = min(4, max(1, p / 4)) hot ranks t * p / k; every rank sends half its
 * elements evenly to the hot ranks and the other half uniformly to all. */
static int hot_receivers(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap)
{
    int p = in->p, k = p / 4 < 1 ? 1 : p / 4 > 4 ? 4 : p / 4;
    uint64_t *w = calloc((size_t)p, sizeof *w), *share = calloc((size_t)p, sizeof *share);
    if (!w || !share) {
        free(w);
        free(share);
        return -1;
    }
    for (int t = 0; t < k; t++)
        w[t * p / k] = 1;
    for (int i = 0; i < p; i++) {
        uint64_t hot = in->elems / 2;
        bench_split(hot, w, p, i, share);
        for (int j = 0; j < p; j++)
            m[(size_t)i * p + j] = share[j];
        add_uniform(m, p, i, in->elems - hot);
    }
    free(w);
    free(share);
    return 0;
}

/* three-cycles: ranks 3t -> 3t+1 -> 3t+2 -> 3t each send elems (ranks past the last whole
 * cycle idle). */
static int three_cycles(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap)
{
    int p = in->p;
    if (p < 3) {
        snprintf(why, cap, "needs at least 3 ranks");
        return 1;
    }
    for (int t = 0; t + 3 <= p; t += 3)
        for (int k = 0; k < 3; k++)
            m[(size_t)(t + k) * p + t + (k + 1) % 3] = in->elems;
    return 0;
}

/* alltoall: every rank sends elems / p to every rank (itself included), the same count to
 * each, so that the candidates call MPI_Alltoall. */
static int alltoall(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap)
{
    uint64_t count = in->elems / (uint64_t)in->p;
    if (count == 0) {
        snprintf(why, cap, "fewer than one 8-byte element per pair");
        return 1;
    }
    for (size_t e = 0; e < (size_t)in->p * (size_t)in->p; e++)
        m[e] = count;
    return 0;
}

/* permutation: every rank sends elems to its image under a random p-cycle (Sattolo's
 * algorithm: no rank sends to itself). */
static int permutation(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap)
{
    int p = in->p;
    int *perm = malloc(sizeof *perm * (size_t)p);
    if (!perm)
        return -1;
    for (int i = 0; i < p; i++)
        perm[i] = i;
    uint64_t s = row_state(in->seed, 3, 0);
    for (int i = p - 1; i > 0; i--) {
        int j = (int)(bench_random(&s) % (uint64_t)i), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int i = 0; i < p; i++)
        m[(size_t)i * p + perm[i]] = in->elems;
    free(perm);
    return 0;
}

/* name, summary, fill, drift, sweep, alltoall */
const bench_pattern bench_patterns[] = {
    {"uniform", "every rank sends S/P to every rank", uniform, 0, 0, 0},
    {"sparse", "each rank sends S to ~1/4 of the others, random sizes", sparse, 0, 0, 0},
    {"incast", "every rank sends S to rank 0", incast, 0, 0, 0},
    {"hot-receivers", "S/2 to min(4, P/4) hot ranks, S/2 uniform", hot_receivers, 0, 0, 0},
    {"hot-sender", "rank 0 sends S to every rank (incast transposed)", hot_sender, 0, 0, 0},
    {"samplesort", "sample sort of S/8 Zipf(1.1) keys per rank", bench_pattern_samplesort, 0, 0,
     0},
    {"powerlaw", "each rank sends S to all others, Pareto(1.2) sizes", powerlaw, 0, 0, 0},
    {"walker-otto", "cyclic(r) -> cyclic(K r) (--wo-k), S per rank", bench_pattern_walker_otto, 0,
     0, 0},
    {"cyclic-pq", "cyclic(R) on P -> cyclic(S') on Q (--redist)", bench_pattern_cyclic_pq, 0, 0,
     0},
    {"three-cycles", "disjoint 3-cycles 3t->3t+1->3t+2->3t, S each", three_cycles, 0, 0, 0},
    {"permutation", "every rank sends S along a random P-cycle", permutation, 0, 0, 0},
    {"alltoall", "MPI_Alltoall of S/P per pair (uniform, every candidate)", alltoall, 0, 0, 1},
    {"fft-xy", "3-D FFT pencils, X->Y transpose on an R x C grid", bench_pattern_fft_xy, 0, 0, 0},
    {"fft-yz", "3-D FFT pencils, Y->Z transpose on an R x C grid", bench_pattern_fft_yz, 0, 0, 0},
    {"drift-samplesort", "samplesort, new keys and splitters every call", bench_pattern_samplesort,
     1, 0, 0},
    {"drift-bfs", "BFS levels: 8 B to --bfs-max per rank and back", bench_pattern_bfs, 1, 1, 0},
    {"drift-moe", "top-k routing of S/(k B) tokens, new gate every call", bench_pattern_moe, 1, 0,
     0},
    {"drift-particles", "3-D halo of 26 neighbours, counts +-30% per call",
     bench_pattern_particles, 1, 0, 0},
};
const int bench_npatterns = (int)(sizeof bench_patterns / sizeof *bench_patterns);

int bench_pattern_find(const char *name)
{
    for (int k = 0; k < bench_npatterns; k++)
        if (!strcmp(name, bench_patterns[k].name))
            return k;
    return -1;
}
