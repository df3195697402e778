/* The direct schedule (plan_direct, plan_direct_half): the exact decomposition of the
 * transfer matrix into matchings (plan_decompose, plan/decompose.c: Sanders–Solis-Oba Sec. 3
 * super-packets; Desprez et al.'s stepwise strategy with weights), or with a minimum step a
 * schedule of whole messages where it stays within it, and with a step price on small
 * matrices the widest-step plan (plan/widest.c, plan/widest_tail.c) where it costs less. The
 * half-duplex form is the half-duplex engine's (plan/half_engine.c) without forwarding. */
#include "plan/families.h"
#include "plan/half_engine.h"
#include "plan/plan.h"

/* Matrices of at most this many ranks also try the stepwise schedule of whole messages (its
 * planning is O(P^3) on dense matrices: 0.5 ms at P = 64, 23 ms at P = 256, docs/planning-time.md);
 * node matrices are this small. */
#define STEPWISE_WHOLE_MAX_P 128

/* 1 if pl, a whole-message plan, stays within bound + min_step per step and max_segments. */
static int whole_qualifies(const plan *pl, uint64_t bound, const plan_direct_opts *opts)
{
    if (opts->max_segments && pl->nsegments > opts->max_segments)
        return 0;
    return plan_priced(pl, 0) <= bound ||
           (unsigned __int128)opts->min_step_bytes * pl->nsteps >= plan_priced(pl, 0) - bound;
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
            (!have ||
             plan_priced(&sw, opts->min_step_bytes) < plan_priced(pl, opts->min_step_bytes))) {
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

/* With a step price, on small matrices: replaces pl by the widest-step decomposition (with a
 * minimum step, with its priced whole-message tail: plan_direct_widest_priced) when that costs
 * less (bandwidth term plus step_price per step). A widest plan that cannot be built (too many
 * segments, no memory) leaves pl as it was. */
static void try_widest(const plan_matrix *m, const plan_direct_opts *opts, plan *pl)
{
    if (!opts->step_price || m->p > PLAN_WIDEST_MAX_P)
        return;
    plan wd;
    plan_error wd_err;
    /* an exact plan (no minimum step) keeps the widest steps to the end */
    uint64_t tail_price = opts->min_step_bytes ? opts->step_price : 0;
    if (plan_direct_widest_priced(m, tail_price, opts->max_segments, &wd, &wd_err))
        return;
    if (plan_priced(&wd, opts->step_price) < plan_priced(pl, opts->step_price)) {
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
        plan_decompose(m, 0, opts->min_step_bytes, opts->max_segments, PLAN_ALGO_DIRECT, pl, err))
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
