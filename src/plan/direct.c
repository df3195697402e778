/* The direct schedule: a weighted bipartite decomposition of the transfer matrix into
 * matchings (Sanders–Solis-Oba Sec. 3 super-packets; Desprez et al.'s stepwise strategy with
 * weights). Senders are side 0, receivers side 1 of a bipartite graph whose edge (i, j) weighs
 * the bytes i still has to send to j. Each step takes a matching that covers every vertex whose
 * remaining load equals the current maximum L and moves t bytes over each matched edge, where t
 * is the smallest matched weight and no uncovered vertex may end above L - t. So L falls by
 * exactly t per step (bandwidth term == lower bound), and every step either empties an edge or
 * makes one more vertex critical for good (steps <= edges + 2P). The graph and the matching are
 * plan/load_matching.c's (shared with the half-duplex engine); this file turns steps into plan
 * entries. The half-duplex forms (plan_direct_half, plan_stepwise_half) are the half-duplex
 * engine's (plan/half_engine.c) without forwarding. */
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

/* The decomposition behind plan_direct (loads in bytes) and plan_stepwise (loads in
 * messages, whole messages per step, heaviest partners). */
static int decompose(const plan_matrix *m, int by_messages, uint64_t min_step,
                     size_t max_segments, plan_algo algo, plan *pl, plan_error *err)
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

/* Matrices of at most this many ranks also try the stepwise schedule of whole messages (its
 * planning is O(P^3) on dense matrices: 0.5 ms at P = 64, 23 ms at P = 256, docs/planning-time.md);
 * node matrices are this small. */
#define STEPWISE_WHOLE_MAX_P 128

/* What a plan costs against another: its bandwidth term plus `price` bytes per step (min_step
 * or the step price: the exchange rate between steps and bytes). */
static unsigned __int128 priced(const plan *pl, uint64_t price)
{
    return (unsigned __int128)plan_bandwidth_term(pl) + (unsigned __int128)price * pl->nsteps;
}

/* 1 if pl, a whole-message plan, stays within bound + min_step per step and max_segments. */
static int whole_qualifies(const plan *pl, uint64_t bound, const plan_direct_opts *opts)
{
    if (opts->max_segments && pl->nsegments > opts->max_segments)
        return 0;
    return priced(pl, 0) <= bound ||
           (unsigned __int128)opts->min_step_bytes * pl->nsteps >= priced(pl, 0) - bound;
}

/* With a minimum step: a schedule of whole messages in the duplex mode, relabelled direct, if
 * its bandwidth term is at most bound + min_step per step (and it fits max_segments): the
 * greedy schedule (plan_greedy, plan_greedy_half) or, on matrices of at most
 * STEPWISE_WHOLE_MAX_P ranks, the stepwise one (plan_stepwise, plan_stepwise_half: the fewest
 * steps), whichever qualifying one has the smaller bandwidth term plus min_step per step (greedy
 * on a tie). Returns 1 with pl set, 0 (pl holds no memory) when neither qualifies, or -1 with err
 * set. */
static int try_whole_messages(const plan_matrix *m, plan_duplex duplex, uint64_t bound,
                              const plan_direct_opts *opts, plan *pl, plan_error *err)
{
    int half = duplex == PLAN_DUPLEX_HALF;
    if ((half ? plan_greedy_half : plan_greedy)(m, pl, err))
        return -1;
    int have = whole_qualifies(pl, bound, opts);
    if (!have)
        plan_free(pl);
    if (m->p <= STEPWISE_WHOLE_MAX_P) {
        plan sw;
        if ((half ? plan_stepwise_half : plan_stepwise)(m, &sw, err)) {
            if (have)
                plan_free(pl);
            return -1;
        }
        if (whole_qualifies(&sw, bound, opts) &&
            (!have || priced(&sw, opts->min_step_bytes) <
                          priced(pl, opts->min_step_bytes))) {
            if (have)
                plan_free(pl);
            *pl = sw;
            have = 1;
        } else {
            plan_free(&sw);
        }
    }
    if (!have)
        return 0;
    pl->algo = PLAN_ALGO_DIRECT;
    pl->min_step_bytes = opts->min_step_bytes;
    return 1;
}

/* The decomposition behind plan_direct_half: the half-duplex engine without forwarding, messages
 * halved by bytes, always the 2-relations (never the greedy schedule or the regular exchange).
 * Returns 0, or -1 with err set (pl then holds no memory). */
static int decompose_half(const plan_matrix *m, const plan_direct_opts *opts, plan *pl,
                          plan_error *err)
{
    half_mode mode = {.algo = PLAN_ALGO_DIRECT, .packet = 1,
                      .min_step = opts ? opts->min_step_bytes : 0,
                      .max_segments = opts ? opts->max_segments : 0};
    if (half_engine_plan(m, &mode, pl, err))
        return -1;
    pl->min_step_bytes = mode.min_step;
    return 0;
}

/* With a step price, on small matrices: replaces pl by the widest-step decomposition when that
 * costs less (bandwidth term plus step_price per step). A widest plan that cannot be built
 * (too many segments, no memory) leaves pl as it was. */
static void try_widest(const plan_matrix *m, const plan_direct_opts *opts, plan *pl)
{
    if (!opts->step_price || m->p > PLAN_WIDEST_MAX_P)
        return;
    plan wd;
    plan_error wd_err;
    if (plan_direct_widest(m, opts->max_segments, &wd, &wd_err))
        return;
    if (priced(&wd, opts->step_price) < priced(pl, opts->step_price)) {
        plan_free(pl);
        *pl = wd;
    } else {
        plan_free(&wd);
    }
}

int plan_direct(const plan_matrix *m, const plan_direct_opts *opts, plan *pl, plan_error *err)
{
    if (plan_matrix_is_uniform(m, NULL))
        return plan_regular(m, PLAN_DUPLEX_FULL, PLAN_ALGO_DIRECT, pl, err);
    plan_direct_opts none = {0};
    opts = opts ? opts : &none;
    int rc = 0;
    if (opts->min_step_bytes) {
        uint64_t bound = plan_matrix_lower_bound(m, PLAN_DUPLEX_FULL);
        rc = try_whole_messages(m, PLAN_DUPLEX_FULL, bound, opts, pl, err);
        if (rc < 0)
            return -1;
    }
    if (rc == 0 &&
        decompose(m, 0, opts->min_step_bytes, opts->max_segments, PLAN_ALGO_DIRECT, pl, err))
        return -1;
    try_widest(m, opts, pl);
    return 0;
}

int plan_direct_half(const plan_matrix *m, const plan_direct_opts *opts, plan *pl,
                     plan_error *err)
{
    if (plan_matrix_is_uniform(m, NULL))
        return plan_regular(m, PLAN_DUPLEX_HALF, PLAN_ALGO_DIRECT, pl, err);
    if (opts && opts->min_step_bytes) {
        uint64_t h = plan_matrix_lower_bound(m, PLAN_DUPLEX_HALF);
        int rc = try_whole_messages(m, PLAN_DUPLEX_HALF, 3 * (h / 2 + h % 2), opts, pl, err);
        if (rc)
            return rc < 0 ? -1 : 0;
    }
    return decompose_half(m, opts, pl, err);
}

int plan_stepwise(const plan_matrix *m, plan *pl, plan_error *err)
{
    return decompose(m, 1, 0, 0, PLAN_ALGO_STEPWISE, pl, err);
}

int plan_stepwise_half(const plan_matrix *m, plan *pl, plan_error *err)
{
    half_mode mode = {.algo = PLAN_ALGO_STEPWISE};
    return half_engine_plan(m, &mode, pl, err);
}
