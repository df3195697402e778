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
#include "plan/families.h"
#include "plan/plan.h"
#include "plan/sort.h"

/* A message as sender << 16 | receiver (p <= 65536). */
#define MSG_SRC(x) ((int)((x) >> 16))
#define MSG_DST(x) ((int)((x) & 0xffff))

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

/* Lists the messages of m in l (sender-major order, sizes as keys; room for p (p - 1)) and
 * counts each rank's messages in deg (senders then receivers, or one count per rank in half
 * duplex). */
static void collect(const plan_matrix *m, int half, plan_sort_list *l, size_t *deg)
{
    int p = m->p;
    l->n = 0;
    for (int i = 0; i < p; i++) {
        const uint64_t *row = m->bytes + (size_t)i * (size_t)p;
        for (int j = 0; j < p; j++) {
            if (j == i || !row[j])
                continue;
            l->id[l->n] = (uint32_t)i << 16 | (uint32_t)j;
            l->key[l->n++] = row[j];
            deg[i]++;
            deg[(half ? 0 : p) + j]++;
        }
    }
}

/* Writes the messages of l (heaviest first) into pl (initialised, room for l->n transfers
 * and segments reserved) step by step: each in the first step in which its ranks are free
 * (b), in heaviest-first order within a step. step_of and start are scratch for l->n and b's
 * number of steps + 1 entries (start zeroed). Returns 0 or -1 with err set. */
static int emit_first_fit(const plan_sort_list *l, busy_map *b, uint32_t *step_of,
                          size_t *start, plan *pl, plan_error *err)
{
    const uint32_t *idx = l->id;
    size_t n = l->n;
    size_t nsteps = 0;
    for (size_t k = 0; k < n; k++) {
        size_t s = first_fit(b, MSG_SRC(idx[k]), MSG_DST(idx[k]));
        step_of[k] = (uint32_t)s;
        start[s + 1]++;
        nsteps = s + 1 > nsteps ? s + 1 : nsteps;
    }
    for (size_t s = 0; s < nsteps; s++)
        start[s + 1] += start[s];
    /* the messages of each step straight into the plan's segments */
    plan_segment *segs = pl->segments;
    for (size_t k = 0; k < n; k++)
        segs[start[step_of[k]]++] =
            (plan_segment){MSG_SRC(idx[k]), MSG_DST(idx[k]), 0, l->key[k]};
    for (size_t s = 0, from = 0; s < nsteps; from = start[s++])
        if (plan_begin_step(pl, err) ||
            plan_add_direct_transfers(pl, segs + from, start[s] - from, err))
            return -1;
    return 0;
}

/* The greedy schedule of m under duplex (see plan_greedy and plan_greedy_half). */
static int greedy(const plan_matrix *m, plan_duplex duplex, plan *pl, plan_error *err)
{
    int p = m->p, half = duplex == PLAN_DUPLEX_HALF, rc = -1;
    size_t room = (size_t)p * (size_t)(p - 1), most_steps = 0;
    size_t *deg = calloc(2 * (size_t)p, sizeof *deg), *start = NULL;
    plan_sort_list l = {plan_big_alloc(room * sizeof *l.id), plan_big_alloc(room * sizeof *l.id),
                        plan_big_alloc(room * sizeof *l.key), plan_big_alloc(room * sizeof *l.key),
                        0};
    busy_map b = {0};
    if (p > 65536 || !deg || !l.id || !l.tmp_id || !l.key || !l.tmp_key)
        goto out_of_memory;
    collect(m, half, &l, deg);
    /* a message waits at most for the other messages of its two ranks: 2D - 1 steps */
    for (int v = 0; v < 2 * p; v++)
        most_steps = deg[v] > most_steps ? deg[v] : most_steps;
    most_steps = 2 * most_steps + 1;
    b.words = most_steps / 64 + 2;
    start = calloc(most_steps + 1, sizeof *start);
    b.send = calloc((size_t)p * b.words, sizeof *b.send);
    b.recv = half ? b.send : calloc((size_t)p * b.words, sizeof *b.recv);
    b.low_send = calloc((size_t)p, sizeof *b.low_send);
    b.low_recv = half ? b.low_send : calloc((size_t)p, sizeof *b.low_recv);
    /* heaviest first; ties by sender, then receiver (the order they were collected in), so
     * the order (and the plan) is the same on every rank */
    if (!start || !b.send || !b.recv || !b.low_send || !b.low_recv ||
        plan_sort_largest_first(&l))
        goto out_of_memory;
    if (plan_init(pl, p, PLAN_ALGO_GREEDY, duplex, err))
        goto out;
    rc = plan_reserve(pl, l.n, l.n, err) ||
                 emit_first_fit(&l, &b, l.tmp_id, start, pl, err) /* tmp_id: free after the sort */
             ? -1
             : 0;
    if (rc)
        plan_free(pl);
    goto out;
out_of_memory:
    plan_error_set(err, 0, "out of memory planning %d ranks", p);
out:
    free(deg);
    free(l.id);
    free(l.tmp_id);
    free(l.key);
    free(l.tmp_key);
    free(start);
    free(b.send);
    if (!half)
        free(b.recv);
    free(b.low_send);
    if (!half)
        free(b.low_recv);
    return rc;
}

int plan_greedy(const plan_matrix *m, plan *pl, plan_error *err)
{
    return greedy(m, PLAN_DUPLEX_FULL, pl, err);
}

int plan_greedy_half(const plan_matrix *m, plan *pl, plan_error *err)
{
    return greedy(m, PLAN_DUPLEX_HALF, pl, err);
}
