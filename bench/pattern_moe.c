/* drift-moe: the token dispatch of a mixture-of-experts layer with expert parallelism, one
 * expert per rank: top-k gating as in GShard (Lepikhin et al., ICLR 2021) and the Switch
 * Transformer (Fedus, Zoph and Shazeer, JMLR 23, 2022). Every rank holds T = S / (k B) tokens
 * of B bytes (--moe-token-bytes, --moe-k); the gate sends each token to k distinct experts,
 * chosen at random with probabilities that are re-drawn on every call (a new batch): the
 * experts' popularity is log-normal (exp of a standard normal, the same on every rank) times a
 * per-rank factor (exp of a normal of deviation 1/2: each rank's tokens differ). With a
 * capacity factor F (--moe-capacity, default 1.25 as in the Switch Transformer) a rank sends an
 * expert at most ceil(F k T / P) tokens and drops the rest (GShard's expert capacity per
 * group); F = 0 sends them all (dropless routing, as in MegaBlocks: Gale et al., MLSys 2023).
 * Tokens for the rank's own expert stay local (the diagonal). */
#include <math.h>
#include <stdlib.h>

#include "bench/bench.h"

/* A standard normal draw (Box-Muller). */
static double normal(uint64_t *s)
{
    double u = 1.0 - bench_uniform(s), v = bench_uniform(s);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* Fills row i (p entries, tokens per expert) for T tokens of k experts each; z: the experts'
 * log-popularity of this call; cum, chosen and taken (zeroed): scratch of p entries. */
static void route_row(const bench_pattern_in *in, int i, uint64_t tokens, int k, const double *z,
                      double *cum, int *chosen, unsigned char *taken, uint64_t *row)
{
    int p = in->p;
    uint64_t s = bench_state(in->seed, 12, in->call, i);
    double sum = 0;
    for (int e = 0; e < p; e++)
        cum[e] = sum += exp(z[e] + 0.5 * normal(&s));
    for (uint64_t t = 0; t < tokens; t++) {
        for (int c = 0; c < k; c++) {
            int e = bench_draw(cum, p, &s);
            for (int tries = 0; taken[e] && tries < 64; tries++)
                e = bench_draw(cum, p, &s);
            while (taken[e]) /* k near p: the next free expert */
                e = (e + 1) % p;
            taken[e] = 1;
            chosen[c] = e;
            row[e]++;
        }
        for (int c = 0; c < k; c++)
            taken[chosen[c]] = 0;
    }
}

int bench_pattern_moe(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap)
{
    int p = in->p, k = in->opts->moe_k < p ? in->opts->moe_k : p;
    uint64_t token = in->opts->moe_token_bytes / BENCH_ELEM,
             tokens = in->elems / ((uint64_t)k * token);
    if (tokens == 0) {
        snprintf(why, cap, "fewer than one token per rank (S < k x %llu bytes)",
                 (unsigned long long)in->opts->moe_token_bytes);
        return 1;
    }
    double *z = malloc(sizeof *z * (size_t)p * 2);
    int *chosen = malloc(sizeof *chosen * (size_t)p);
    unsigned char *taken = calloc((size_t)p, 1);
    if (!z || !chosen || !taken) {
        free(z);
        free(chosen);
        free(taken);
        return -1;
    }
    uint64_t s = bench_state(in->seed, 12, in->call, -1), limit = UINT64_MAX;
    for (int e = 0; e < p; e++)
        z[e] = normal(&s);
    if (in->opts->moe_capacity > 0)
        limit = (uint64_t)ceil(in->opts->moe_capacity * (double)k * (double)tokens / p);
    for (int i = 0; i < p; i++) {
        uint64_t *row = m + (size_t)i * p;
        route_row(in, i, tokens, k, z, z + p, chosen, taken, row);
        for (int e = 0; e < p; e++)
            row[e] = (row[e] < limit ? row[e] : limit) * token;
    }
    free(z);
    free(chosen);
    free(taken);
    return 0;
}
