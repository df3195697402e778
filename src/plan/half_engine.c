/* The half-duplex engine: Sanders and Solis-Oba's schedule for half-duplex h-relations ("How
 * Helpers Hasten h-Relations", Secs. 2 and 3), behind three families: plan_forward (with
 * forwarding), plan_direct_half and plan_stepwise_half (without).
 *
 * Messages are counted in packets of S bytes and cut into two parts on the edges of a bipartite
 * graph, so that every rank's copies L_i and R_i carry at most ceil(h_i / 2) packets, h_i being
 * the packets rank i sends and receives (Sec. 2.1; half_cut.c).
 *
 * Sec. 3: each iteration takes a matching of that bipartite graph that covers every vertex of
 * the largest remaining load and moves a super-packet of s grains over every matched edge, s
 * the smallest matched part and no larger than the gap to the next load, so the largest load
 * falls by exactly s. A matching gives every rank at most one L and one R edge: a 2-relation,
 * a union of cycles, paths and idle ranks (half_cycles.c). Paths and even cycles need two units
 * (of s grains); odd cycles are paired and exchange their data in 12 rounds of s / 5 (Sec. 2.3;
 * half_rounds.c): in the first six rounds three ranks of cycle B forward three fifths of one
 * packet of cycle A while both cycles move the rest directly, in the last six the roles swap.
 * Odd cycles are paired with one another; one left over takes an idle rank or a path as its
 * helper (every path can help: its missing closing edge plays the part of the forwarded
 * packet), and for odd P with neither one edge of a cycle is removed into a matching of
 * deferred pieces (Sec. 2.4; half_cycles.c). A deferred piece may have to wait for the final
 * step alone, so an iteration that defers moves at most 1/(2p) of the initial largest load (at
 * most 2p more iterations).
 *
 * Weights are counted in whole packets (Sec. 3 with message lengths in packets; the last packet
 * of a part may be short), so there are at most ceil(h / 2) iterations, each moving at least
 * one packet per matched edge, however the messages are shaped. A round moves a fifth of the
 * super-packet of n bytes: n / 5 bytes when 5 divides n; otherwise each of the 12 rounds is
 * floor(n / 5) or floor(n / 5) + 1 bytes long, choosing the fewest longer rounds that still
 * give every edge its n bytes (at most 6/5 byte more per iteration than 12 n / 5); when even
 * that is no faster, the iteration sends whole super-packets in three steps instead.
 *
 * Without forwarding (half_mode.forwarding 0) the same machinery gives the half-duplex direct
 * schedule (messages halved by bytes, weights in bytes, optionally a minimum super-packet) and
 * the half-duplex stepwise one (every message one packet sent whole, weights in messages): each
 * 2-relation in two steps, three with odd cycles (3 ceil(h / 2) in all).
 *
 * The bipartite graph, its loads and the covering matching are plan/load_matching.c's (shared
 * with the direct planner); this file runs the iterations and schedules each 2-relation. */
#include "plan/half_engine.h"
#include "plan/half_state.h"
#include "plan/plan.h"

/* Records the link of a matched edge L_u - R_v from the matching engine's move (lm_consume):
 * its grains, which lie within the edge's current part, as bytes of that part's message (the
 * last grain of a part may be short). */
static void take_link(half_state *st, const lm_move *mv)
{
    int u = mv->i, v = mv->j;
    const half_edge *e = &st->e[(size_t)u * st->p + v];
    int fwd = mv->from < e->part[0].grains;
    const half_part *pt = &e->part[fwd ? 0 : 1];
    uint64_t done = fwd ? mv->from : mv->from - e->part[0].grains, s = mv->amount;
    half_link *l = &st->links[u];
    l->src = fwd ? u : v;
    l->dst = fwd ? v : u;
    l->lo = pt->start + done * st->grain;
    l->hi = done + s == pt->grains ? pt->start + pt->bytes : l->lo + s * st->grain;
}

/* Sends link k whole (k may be -1: nothing). */
static int emit_whole(half_state *st, plan *pl, int k, plan_error *err)
{
    if (k < 0)
        return 0;
    const half_link *l = &st->links[k];
    return half_emit(pl, l->src, l->dst, l->src, l->dst, l->lo, l->hi, err);
}

/* Emits the current 2-relation without forwarding: two steps (three with odd cycles) of whole
 * super-packets - even edges of every component, odd edges, closing edges of odd cycles - so
 * that each rank takes part in at most one transfer per step. */
static int schedule_whole(half_state *st, plan *pl, plan_error *err)
{
    int rc = 0;
    for (int colour = 0; colour < 3 && rc == 0; colour++) {
        rc = plan_begin_step(pl, err);
        for (int ci = 0; ci < st->ncomps && rc == 0; ci++) {
            const half_comp *c = &st->comps[ci];
            for (int k = colour % 2; k < c->n && rc == 0; k += 2)
                if ((colour == 2) == (half_full_odd(c) && k == c->n - 1))
                    rc = emit_whole(st, pl, half_link_at(st, c, k), err);
        }
        plan_end_step(pl);
    }
    return rc;
}

/* Orients every odd cycle with all its edges and pairs them in turn (half_pair); the one left
 * over, if any, is paired with the helper half_pick_helper gives. Returns 0, or -1 with err set
 * when there is none (the caller defers an edge first so that this does not happen). */
static int pair_odd_cycles(half_state *st, plan_error *err)
{
    half_comp *waiting = NULL;
    for (int ci = 0; ci < st->ncomps; ci++) {
        half_comp *c = &st->comps[ci];
        if (!half_full_odd(c))
            continue;
        half_orient_cycle(st, c);
        if (waiting) {
            half_pair(st, waiting, c);
            waiting = NULL;
        } else {
            waiting = c;
        }
    }
    if (waiting) {
        half_comp *h = half_pick_helper(st);
        if (!h)
            return plan_error_set(err, 0, "internal error: an odd cycle without a helper");
        half_pair(st, waiting, h);
    }
    return 0;
}

/* Emits the steps of the current 2-relation of super-packets of s grains (components built,
 * links recorded): whole super-packets in at most three steps without forwarding, without odd
 * cycles, or when rounding the fifths would cost more; else the 12 rounds, after deferring an
 * edge when an odd cycle would have no helper. Returns 0 or -1 with err set. */
static int schedule(half_state *st, plan *pl, uint64_t s, plan_error *err)
{
    int nodd = 0;
    for (int ci = 0; ci < st->ncomps; ci++) {
        st->comps[ci].role = ROLE_PLAIN;
        nodd += half_full_odd(&st->comps[ci]);
    }
    if (!st->forwarding || nodd == 0)
        return schedule_whole(st, pl, err);
    /* a round moves a fifth of the super-packet of n bytes: f bytes, one more in some rounds
     * when 5 does not divide n (grain 1) */
    uint64_t n = s * st->grain, f = n / 5;
    unsigned rho = (unsigned)(n % 5);
    half_choose_round_sizes(st, f, rho, (1u << T_COUNT) - 1);
    if (3 * n <= 12 * f + (unsigned)__builtin_popcount(st->extra)) /* rounding costs more */
        return schedule_whole(st, pl, err);
    /* odd P with no idle rank and no path: defer one edge (Sec. 2.4) */
    if (nodd % 2 && !half_pick_helper(st) && !half_defer_edge(st, pl, err))
        return -1;
    if (pair_odd_cycles(st, err))
        return -1;
    half_choose_round_sizes(st, f, rho, half_present_types(st));
    return half_schedule_rounds(st, pl, err);
}

/* One iteration: covers the vertices of the largest load top, takes a super-packet over every
 * matched edge (smaller when an edge would be deferred) and emits its steps. Returns 0 or -1
 * with err set. */
static int iterate(half_state *st, plan *pl, uint64_t top, plan_error *err)
{
    int stuck;
    if (lm_cover_max(&st->g, top, &stuck))
        return plan_error_set(err, 0, "internal error: no matching covers rank %d", stuck);
    uint64_t s = lm_step_limit(&st->g, top);
    half_build_components(st);
    if (st->forwarding && s > st->defer_cap && half_needs_deferral(st))
        s = st->defer_cap;
    if (s < st->min_step)
        s = st->min_step;
    size_t n;
    const lm_move *mv = lm_consume(&st->g, s, &n);
    for (size_t k = 0; k < n; k++)
        take_link(st, &mv[k]);
    return schedule(st, pl, s, err);
}

/* Returns 0 if pl holds at most max_segments segments (0: no limit), else -1 with err set. */
static int check_size(const plan *pl, size_t max_segments, plan_error *err)
{
    if (max_segments && pl->nsegments > max_segments)
        return plan_error_set(err, 0, "the plan would exceed %zu segments", max_segments);
    return 0;
}

/* Emits every iteration and the last flush of deferred pieces into pl, failing once pl holds
 * more than max_segments segments (0: no limit). Returns 0 or -1 with err set. */
static int emit_iterations(half_state *st, plan *pl, size_t max_segments, plan_error *err)
{
    /* a deferred piece may end up in the last flush alone: keep each at most 1/(2p) of the
     * largest load (this splits at most 2p more iterations) */
    st->defer_cap = lm_max_load(&st->g) / (2 * (uint64_t)st->p);
    st->defer_cap = st->defer_cap ? st->defer_cap : 1;
    for (uint64_t top = lm_max_load(&st->g); top > 0; top = lm_max_load(&st->g))
        if (iterate(st, pl, top, err) || check_size(pl, max_segments, err))
            return -1;
    if (half_flush_debts(st, pl, 0, err))
        return -1;
    return check_size(pl, max_segments, err);
}

int half_engine_plan(const plan_matrix *m, const half_mode *mode, plan *pl, plan_error *err)
{
    half_state st;
    if (half_state_init(&st, m, mode))
        return plan_error_set(err, 0, "out of memory planning %d ranks", m->p);
    if (plan_init(pl, m->p, mode->algo, PLAN_DUPLEX_HALF, err)) {
        half_state_free(&st);
        return -1;
    }
    int rc = emit_iterations(&st, pl, mode->max_segments, err);
    half_state_free(&st);
    if (rc)
        plan_free(pl);
    return rc;
}
