/* Desprez et al.'s greedy strategy: each step a heaviest-first matching of whole messages, in
 * the full-duplex model (a rank sends one and receives one message per step) or the half-duplex
 * one (a rank sends or receives one message per step).
 *
 * Taking, step after step, the maximal matching that the heaviest-first order builds over the
 * messages left is the same as giving each message, in heaviest-first order, the first step in
 * which its ranks are still free (first fit): a message is kept out of step s exactly by the
 * heavier messages that took step s before it. So the plan is built in one pass over the sorted
 * messages, with a bitmap of the steps each rank is busy in. */
#include <stdlib.h>
#include <string.h>

#include "plan/bigmem.h"
#include "plan/plan.h"

enum { RADIX_BITS = 11, RADIX = 1 << RADIX_BITS };

/* Sorts the messages idx[0 .. n) (indices into m's entries) heaviest first, keeping the given
 * order among equal sizes (an LSD radix sort, as many passes of RADIX_BITS as the largest
 * size, most, needs); tmp holds n indices. The result is in *idx (the two buffers may be
 * swapped). Returns 0 or -1 (out of memory). */
static int sort_heaviest_first(const plan_matrix *m, uint32_t **idx, uint32_t **tmp, size_t n,
                               uint64_t most)
{
    size_t *count = malloc(RADIX * sizeof *count);
    if (!count)
        return -1;
    int bits = most ? 64 - __builtin_clzll(most) : 0;
    for (int shift = 0; shift < bits; shift += RADIX_BITS) {
        memset(count, 0, RADIX * sizeof *count);
        for (size_t k = 0; k < n; k++)
            count[m->bytes[(*idx)[k]] >> shift & (RADIX - 1)]++;
        /* positions from the largest digit down: a stable pass in decreasing digit order */
        size_t at = 0;
        for (int d = RADIX - 1; d >= 0; d--) {
            size_t c = count[d];
            count[d] = at;
            at += c;
        }
        for (size_t k = 0; k < n; k++)
            (*tmp)[count[m->bytes[(*idx)[k]] >> shift & (RADIX - 1)]++] = (*idx)[k];
        uint32_t *swap = *idx;
        *idx = *tmp;
        *tmp = swap;
    }
    free(count);
    return 0;
}

/* The busy steps of every rank (as sender, and as receiver or, in half duplex, the same
 * bitmap), words 64-bit words of them per rank; low[v]: below this word every step is taken. */
typedef struct busy_map {
    uint64_t *send, *recv;
    int *low_send, *low_recv;
    size_t words;
} busy_map;

/* The first step in which both rows are free; marks it taken in both. */
static size_t first_fit(busy_map *b, int src, int dst)
{
    uint64_t *a = b->send + (size_t)src * b->words, *c = b->recv + (size_t)dst * b->words;
    int *la = &b->low_send[src], *lc = &b->low_recv[dst];
    size_t w = (size_t)(*la > *lc ? *la : *lc);
    while ((a[w] | c[w]) == ~(uint64_t)0)
        w++;
    int bit = __builtin_ctzll(~(a[w] | c[w]));
    a[w] |= (uint64_t)1 << bit;
    c[w] |= (uint64_t)1 << bit;
    while (a[*la] == ~(uint64_t)0)
        ++*la;
    while (c[*lc] == ~(uint64_t)0)
        ++*lc;
    return w * 64 + (size_t)bit;
}

/* The greedy schedule of m under duplex (see plan_greedy and plan_greedy_half). */
static int greedy(const plan_matrix *m, plan_duplex duplex, plan *pl, plan_error *err)
{
    int p = m->p, half = duplex == PLAN_DUPLEX_HALF;
    size_t pp = (size_t)p * p, n = 0, most_steps = 0, *deg = calloc(2 * (size_t)p, sizeof *deg);
    uint64_t most = 0;
    for (int i = 0; i < p && deg; i++)
        for (int j = 0; j < p; j++)
            if (i != j && plan_matrix_at(m, i, j)) {
                n++;
                deg[i]++;
                deg[(half ? 0 : p) + j]++;
                most = plan_matrix_at(m, i, j) > most ? plan_matrix_at(m, i, j) : most;
            }
    /* a message waits at most for the other messages of its two ranks: 2D - 1 steps */
    for (int v = 0; v < 2 * p && deg; v++)
        most_steps = deg[v] > most_steps ? deg[v] : most_steps;
    most_steps = 2 * most_steps + 1;
    busy_map b = {.words = most_steps / 64 + 2};
    uint32_t *idx = plan_big_alloc(n * sizeof *idx), *tmp = plan_big_alloc(n * sizeof *tmp);
    size_t *start = calloc(most_steps + 1, sizeof *start);
    b.send = calloc((size_t)p * b.words, sizeof *b.send);
    b.recv = half ? b.send : calloc((size_t)p * b.words, sizeof *b.recv);
    b.low_send = calloc((size_t)p, sizeof *b.low_send);
    b.low_recv = half ? b.low_send : calloc((size_t)p, sizeof *b.low_recv);
    int rc = 0;
    if (pp > UINT32_MAX || !deg || !idx || !tmp || !start || !b.send || !b.recv ||
        !b.low_send || !b.low_recv || plan_init(pl, p, PLAN_ALGO_GREEDY, duplex, err)) {
        rc = plan_error_set(err, 0, "out of memory planning %d ranks", p);
        goto out;
    }
    n = 0;
    for (size_t ij = 0; ij < pp; ij++)
        if (ij / (size_t)p != ij % (size_t)p && m->bytes[ij])
            idx[n++] = (uint32_t)ij;
    /* heaviest first; ties by sender, then receiver (the order they were collected in), so
     * the order (and the plan) is the same on every rank */
    if (sort_heaviest_first(m, &idx, &tmp, n, most) || plan_reserve(pl, n, n, err)) {
        rc = plan_error_set(err, 0, "out of memory planning %d ranks", p);
        goto out;
    }
    uint32_t *step_of = tmp; /* free after the sort */
    size_t nsteps = 0;
    for (size_t k = 0; k < n; k++) {
        size_t s = first_fit(&b, (int)(idx[k] / (uint32_t)p), (int)(idx[k] % (uint32_t)p));
        step_of[k] = (uint32_t)s;
        start[s + 1]++;
        nsteps = s + 1 > nsteps ? s + 1 : nsteps;
    }
    for (size_t s = 0; s < nsteps; s++)
        start[s + 1] += start[s];
    /* the messages of each step, in heaviest-first order, straight into the plan's segments */
    plan_segment *segs = pl->segments;
    for (size_t k = 0; k < n; k++) {
        int i = (int)(idx[k] / (uint32_t)p), j = (int)(idx[k] % (uint32_t)p);
        segs[start[step_of[k]]++] = (plan_segment){i, j, 0, m->bytes[idx[k]]};
    }
    for (size_t s = 0, from = 0; s < nsteps && rc == 0; from = start[s++])
        rc = plan_begin_step(pl, err) ||
             plan_add_direct_transfers(pl, segs + from, start[s] - from, err);
    if (rc)
        plan_free(pl);
out:
    free(deg);
    free(idx);
    free(tmp);
    free(start);
    free(b.send);
    if (!half)
        free(b.recv);
    free(b.low_send);
    if (!half)
        free(b.low_recv);
    return rc ? -1 : 0;
}

int plan_greedy(const plan_matrix *m, plan *pl, plan_error *err)
{
    return greedy(m, PLAN_DUPLEX_FULL, pl, err);
}

int plan_greedy_half(const plan_matrix *m, plan *pl, plan_error *err)
{
    return greedy(m, PLAN_DUPLEX_HALF, pl, err);
}
