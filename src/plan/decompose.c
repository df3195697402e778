/* The weighted bipartite decomposition behind plan_direct and plan_stepwise
 * (plan_decompose, plan/families.h): senders are side 0, receivers side 1 of a bipartite graph
 * whose edge (i, j) weighs the bytes i still has to send to j (stepwise: the messages). Each
 * step takes a matching that covers every vertex whose remaining load equals the current
 * maximum L and moves t bytes over each matched edge, where t is the smallest matched weight
 * and no uncovered vertex may end above L - t. So L falls by exactly t per step (bandwidth
 * term == lower bound), and every step either empties an edge or makes one more vertex
 * critical for good (steps <= edges + 2P). The graph and the matching are
 * plan/load_matching.c's (shared with the half-duplex engine); this file turns steps into plan
 * entries. */
#include "plan/families.h"
#include "plan/half_engine.h"
#include "plan/load_matching.h"
#include "plan/plan.h"

/* Appends a step of one transfer per move (sender to receiver, the move's byte range of the
 * message). Returns 0 or -1 (out of memory, err set). */
static int emit_step(plan *pl, const lm_move *mv, size_t n, plan_error *err)
{
    if (plan_begin_step(pl, err))
        return -1;
    for (size_t k = 0; k < n; k++)
        if (plan_add_transfer(pl, mv[k].i, mv[k].j, err) ||
            plan_add_segment(pl, mv[k].i, mv[k].j, mv[k].from, mv[k].amount, err))
            return -1;
    return 0;
}

/* Bytes every matched edge moves in this step: the matching's limit (the smallest matched
 * weight, so that no uncovered vertex ends above the new maximum), raised to min_step (capped
 * per edge by the edge's remaining weight when the step is emitted). Stepwise: every matched
 * message goes whole. */
static uint64_t step_bytes(const lm_graph *g, int by_messages, uint64_t L, uint64_t min_step)
{
    if (by_messages)
        return UINT64_MAX;
    uint64_t t = lm_step_limit(g, L);
    return t < min_step ? min_step : t;
}

/* Emits the steps of the decomposition into pl (initialised, empty) until every load is zero,
 * failing once pl holds more than max_segments segments (0: no limit). Returns 0, or -1 with
 * err set. */
static int emit_steps(lm_graph *g, int by_messages, uint64_t min_step, size_t max_segments,
                      plan *pl, plan_error *err)
{
    for (uint64_t L = lm_max_load(g); L > 0; L = lm_max_load(g)) {
        int stuck;
        if (lm_cover_max(g, L, &stuck))
            return plan_error_set(err, 0, "internal error: no matching covers rank %d", stuck);
        size_t n;
        const lm_move *mv = lm_consume(g, step_bytes(g, by_messages, L, min_step), &n);
        if (emit_step(pl, mv, n, err))
            return -1;
        if (max_segments && pl->nsegments > max_segments)
            return plan_error_set(err, 0, "the plan would exceed %zu segments", max_segments);
    }
    return 0;
}

int plan_decompose(const plan_matrix *m, int by_messages, uint64_t min_step, size_t max_segments,
                   plan_algo algo, plan *pl, plan_error *err)
{
    lm_graph g;
    if (lm_init(&g, m->p, m->bytes, NULL, by_messages ? LM_LOAD_EDGES : LM_LOAD_WEIGHT,
                by_messages ? LM_HEAVIEST : LM_SPREAD))
        return plan_error_set(err, 0, "out of memory planning %d ranks", m->p);
    if (plan_init(pl, m->p, algo, PLAN_DUPLEX_FULL, err)) {
        lm_free(&g);
        return -1;
    }
    pl->min_step_bytes = min_step;
    /* every message is at least one transfer of one segment */
    size_t nnz = plan_matrix_messages(m);
    int rc = plan_reserve(pl, nnz, nnz, err);
    if (rc == 0)
        rc = emit_steps(&g, by_messages, min_step, max_segments, pl, err);
    lm_free(&g);
    if (rc)
        plan_free(pl);
    return rc;
}

int plan_stepwise(const plan_matrix *m, plan *pl, plan_error *err)
{
    return plan_decompose(m, 1, 0, 0, PLAN_ALGO_STEPWISE, pl, err);
}

int plan_stepwise_half(const plan_matrix *m, plan *pl, plan_error *err)
{
    half_mode mode = {.algo = PLAN_ALGO_STEPWISE};
    return half_engine_plan(m, &mode, pl, err);
}
