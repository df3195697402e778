/* Desprez et al.'s greedy strategy: each step a heaviest-first matching of whole messages, in
 * the full-duplex model (a rank sends one and receives one message per step) or the half-duplex
 * one (a rank sends or receives one message per step). */
#include <stdlib.h>

#include "plan/plan.h"

/* A message still to be scheduled. */
typedef struct message {
    uint64_t bytes;
    int32_t src, dst;
} message;

/* Heaviest first; ties by sender, then receiver, so the order (and the plan) is the same on
 * every rank. */
static int heavier_first(const void *a, const void *b)
{
    const message *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return (x->dst > y->dst) - (x->dst < y->dst);
}

/* The greedy schedule of m under duplex (see plan_greedy and plan_greedy_half). */
static int greedy(const plan_matrix *m, plan_duplex duplex, plan *pl, plan_error *err)
{
    int p = m->p;
    size_t n = plan_matrix_messages(m), left = 0;
    message *msgs = malloc((n ? n : 1) * sizeof *msgs);
    size_t *busy_send = calloc((size_t)p, sizeof *busy_send);
    size_t *busy_recv = calloc((size_t)p, sizeof *busy_recv);
    int rc = 0;
    if (!msgs || !busy_send || !busy_recv) {
        rc = plan_error_set(err, 0, "out of memory planning %d ranks", p);
        goto out;
    }
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++)
            if (i != j && plan_matrix_at(m, i, j))
                msgs[left++] = (message){plan_matrix_at(m, i, j), i, j};
    qsort(msgs, left, sizeof *msgs, heavier_first);
    if (plan_init(pl, p, PLAN_ALGO_GREEDY, duplex, err) ||
        plan_reserve(pl, n, n, err)) {
        plan_free(pl);
        rc = -1;
        goto out;
    }
    /* each pass takes a maximal heaviest-first matching and keeps the rest, still sorted;
     * stamps are step + 1 so zero means free; in half duplex a rank's sending and receiving
     * share one stamp */
    size_t *busy_in = duplex == PLAN_DUPLEX_HALF ? busy_send : busy_recv;
    for (size_t step = 1; left > 0 && rc == 0; step++) {
        rc = plan_begin_step(pl, err);
        size_t kept = 0;
        for (size_t k = 0; k < left && rc == 0; k++) {
            message g = msgs[k];
            if (busy_send[g.src] == step || busy_in[g.dst] == step) {
                msgs[kept++] = g;
                continue;
            }
            busy_send[g.src] = busy_in[g.dst] = step;
            rc = plan_add_transfer(pl, g.src, g.dst, err) ||
                 plan_add_segment(pl, g.src, g.dst, 0, g.bytes, err);
        }
        left = kept;
    }
    if (rc)
        plan_free(pl);
out:
    free(msgs);
    free(busy_send);
    free(busy_recv);
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
