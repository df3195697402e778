/* Deciding a new pattern before gathering it (see forecast.h). */
#include <string.h>

#include "plan/cost_math.h"
#include "plan/forecast.h"
#include "plan/node.h"

/* The corrections of class cls into v: per key the site's where it has samples within reach,
 * else the communicator's (neither: PLAN_LEARN_ONE, unknown). */
static void corrections(const plan_forecast_in *in, int cls, plan_learn_view *v)
{
    plan_learn_view_of(in->comm ? &in->comm->learn : NULL, cls, v);
    if (!in->site)
        return;
    plan_learn_view site;
    plan_learn_view_of(&in->site->learn, cls, &site);
    for (int k = 0; k < PLAN_LEARN_KEYS; k++)
        if (site.samples[k]) {
            v->ratio[k] = site.ratio[k];
            v->spread[k] = site.spread[k];
            v->state[k] = site.state[k];
            v->samples[k] = site.samples[k];
        }
}

/* f's correction of key into *ratio, and its state. */
static plan_learn_state correction(const plan_forecast *f, int key, uint32_t *ratio)
{
    *ratio = f->learned.ratio[key];
    return (plan_learn_state)f->learned.state[key];
}

/* Whether node-direct's node-level metadata is modeled cheaper than the gather of the matrix
 * (from a few hundred ranks on). */
static int node_path_cheaper(const plan_forecast_in *in)
{
    return in->node_gather_ps && in->node_gather_ps < in->gather_ps;
}

/* The modeled gather of a new pattern for family a: node-direct's node-level metadata where
 * that is cheaper, else the matrix. */
static uint64_t gather_of(const plan_forecast_in *in, plan_algo a)
{
    return a == PLAN_ALGO_NODE_DIRECT && node_path_cheaper(in) ? in->node_gather_ps
                                                               : in->gather_ps;
}

/* A new pattern's set-up: the agreement, the gather and planning_ps, corrected as f's
 * gathers. */
static uint64_t setup_cost(const plan_forecast *f, uint64_t planning_ps, uint64_t agree_ps,
                           uint64_t gather_ps)
{
    return plan_learn_apply(sat_add(sat_add(agree_ps, gather_ps), planning_ps), f->ratio_miss);
}

/* The agreements (as corrected in f) of the 2 in->trials calls that measure a candidate against
 * MPI's algorithm. */
static uint64_t measuring_agreements(const plan_forecast_in *in, const plan_forecast *f)
{
    unsigned __int128 t = (unsigned __int128)plan_learn_apply(in->agree_ps, f->ratio_hit) * 2u *
                          in->trials;
    return t > UINT64_MAX ? UINT64_MAX : (uint64_t)t;
}

/* Family a's whole set-up for a new pattern, corrected as f's gathers. */
static uint64_t family_setup(const plan_forecast_in *in, const plan_forecast *f, plan_algo a)
{
    return setup_cost(f, plan_summary_planning(in->s, a, in->c), in->agree_ps, gather_of(in, a));
}

uint64_t plan_forecast_explore_cost(const plan_forecast_in *in, const plan_forecast *f,
                                    plan_algo a, uint64_t est_ps, uint64_t best_ps)
{
    /* the set-up est_ps spreads over the calls per pattern, all paid by the exploring call */
    uint64_t unspread =
        (uint64_t)((unsigned __int128)family_setup(in, f, a) * (f->reuse - 1) / f->reuse);
    return sat_add(plan_budget_predicted(est_ps, best_ps),
                   sat_add(measuring_agreements(in, f), unspread));
}

uint64_t plan_forecast_explore_risk(const plan_forecast_in *in, const plan_forecast *f, plan_algo a)
{
    return sat_add(measuring_agreements(in, f), family_setup(in, f, a));
}

void plan_history_calls(plan_history *h, int news, uint64_t unchecked)
{
    h->calls++;
    h->news += news != 0;
    h->learn.now += 1 + unchecked;
}

void plan_history_gathered(plan_history *h)
{
    h->gathered = h->calls;
}

void plan_history_gather_result(plan_history *h, int ran_plan, int explored)
{
    if (ran_plan)
        h->futile = 0;
    else if (!explored)
        h->futile += h->futile < UINT32_MAX;
    h->plan_streak += ran_plan && h->plan_streak < UINT32_MAX;
}

/* The plans history h runs before it measures MPI's algorithm beside them again. */
static uint32_t beside_gap(const plan_history *h)
{
    return h->beside_gap ? h->beside_gap : PLAN_HISTORY_BESIDE;
}

void plan_history_native_measured(plan_history *h, int beside, uint64_t whole_ps, uint64_t plan_ps,
                                  uint32_t budget_pct)
{
    h->plan_streak = 0;
    if (!beside)
        return;
    if (whole_ps <= plan_ps) {
        h->beside_gap = PLAN_HISTORY_BESIDE;
        return;
    }
    /* the plans whose budget share pays for the excess: excess / (plan_ps * budget_pct / 100) */
    uint64_t gap = beside_gap(h);
    unsigned __int128 excess = whole_ps - plan_ps,
                      share = (unsigned __int128)plan_ps * (budget_pct ? budget_pct : 1);
    share = share ? share : 1;
    unsigned __int128 paid = (excess * 100 + share - 1) / share;
    uint64_t next = 2 * gap;
    if (paid > next)
        next = paid < 4 * gap ? (uint64_t)paid : 4 * gap;
    h->beside_gap = next < PLAN_HISTORY_BESIDE_MAX ? (uint32_t)next : PLAN_HISTORY_BESIDE_MAX;
}

/* Whether the plans that history h ran since MPI's algorithm was last measured are enough to
 * measure it again beside them (beside_gap). */
static int beside_due(const plan_history *h)
{
    return h->plan_streak >= beside_gap(h);
}

/* The history that tells how patterns repeat: the site's once it has seen two patterns, else
 * the communicator's (a site's first pattern says nothing yet). */
static const plan_history *patterns_of(const plan_forecast_in *in)
{
    if (in->site && (in->site->news >= 2 || !in->comm))
        return in->site;
    return in->comm;
}

/* The calls the site (or the communicator) makes per pattern, at least 1. */
static uint64_t reuse_of(const plan_forecast_in *in)
{
    const plan_history *h = patterns_of(in);
    if (!h || h->news == 0)
        return 1;
    uint64_t r = h->calls / h->news;
    return r ? r : 1;
}

/* Whether none of the site's (or the communicator's) patterns has repeated so far: fewer than
 * two calls per pattern, however few patterns (a drifting site, or one just begun). */
static int unrepeated(const plan_forecast_in *in)
{
    const plan_history *h = patterns_of(in);
    return h && h->calls < 2 * h->news;
}

/* Whether the site's (or the communicator's) patterns are known not to repeat: unrepeated, over
 * at least four new patterns. */
static int drifting(const plan_forecast_in *in)
{
    return unrepeated(in) && patterns_of(in)->news >= 4;
}

/* Whether the samples the correction of key in f rests on agree within num/den. */
static int spread_within(const plan_forecast *f, int key, uint64_t num, uint64_t den)
{
    return (uint64_t)f->learned.spread[key] * den <= (uint64_t)PLAN_LEARN_ONE * num;
}

/* Whether the correction of key in f rests on at least PLAN_FORECAST_STEADY_SAMPLES calls that
 * agree within 5/4. */
static int steady_key(const plan_forecast *f, int key)
{
    return f->learned.samples[key] >= PLAN_FORECAST_STEADY_SAMPLES && spread_within(f, key, 5, 4);
}

/* Whether the samples the correction of key in f rests on disagree by more than 3/2. */
static int disagrees(const plan_forecast *f, int key)
{
    return !spread_within(f, key, 3, 2);
}

/* Whether the samples of MPI's correction in f disagree by more than 3/2 (its calls stall, or
 * the model misjudges some patterns). */
static int native_disagrees(const plan_forecast_in *in, const plan_forecast *f)
{
    return disagrees(f, plan_learn_key(PLAN_ALGO_NATIVE, in->native_variant));
}

/* The families whose small-window variant runs a new pattern's first call ahead of them (see
 * plan_forecast.small_first): none where the site's patterns have repeated; every family where
 * MPI's calls disagree (native_disagrees); else those whose own plans' calls, measured against
 * their models, disagree by more than 3/2. */
static uint32_t small_first_of(const plan_forecast_in *in, const plan_forecast *f)
{
    if (!in->learn || !unrepeated(in))
        return 0;
    uint32_t m = 0;
    int native_stalls = native_disagrees(in, f);
    for (int a = 0; a < PLAN_ALGO_COUNT; a++)
        if (a != PLAN_ALGO_NATIVE &&
            (native_stalls || disagrees(f, plan_learn_key((plan_algo)a, PLAN_VARIANT_BASE))))
            m |= 1u << a;
    return m;
}

/* The agreement, the gather and planning_ps spread over f's calls per pattern: the time a
 * plan's call costs beyond its exchange, corrected. */
static uint64_t extras(const plan_forecast *f, uint64_t planning_ps, uint64_t agree_ps,
                       uint64_t gather_ps)
{
    uint64_t miss = setup_cost(f, planning_ps, agree_ps, gather_ps);
    uint64_t hit = plan_learn_apply(agree_ps, f->ratio_hit);
    unsigned __int128 x =
        ((unsigned __int128)miss + (unsigned __int128)hit * (f->reuse - 1)) / f->reuse;
    return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

/* Every considered family's corrections of key variant into ratio[] and state[]: measured
 * ones their own; one not measured yet at this size starts from the largest of native's
 * (native_ratio, learned against the matching model of MPI's algorithm) and the measured
 * families' (a plan model found 30 times too optimistic for one family is assumed as wrong
 * for the others until they are measured themselves). */
static void family_ratios(const plan_forecast_in *in, const plan_forecast *f, int variant,
                          uint32_t native_ratio, uint32_t *ratio, plan_learn_state *state)
{
    uint32_t prior = native_ratio;
    for (int a = 1; a < PLAN_ALGO_COUNT; a++) {
        ratio[a] = PLAN_LEARN_ONE;
        state[a] = PLAN_LEARN_UNKNOWN;
        if (!in->learn || !(in->families & (1u << a)))
            continue;
        state[a] = correction(f, plan_learn_key((plan_algo)a, variant), &ratio[a]);
        if (state[a] != PLAN_LEARN_UNKNOWN && ratio[a] > prior)
            prior = ratio[a];
    }
    for (int a = 1; a < PLAN_ALGO_COUNT; a++)
        if (state[a] == PLAN_LEARN_UNKNOWN)
            ratio[a] = prior;
}

/* The correction of family a's variant v (not PLAN_VARIANT_BASE) into *ratio and *state, the
 * family's own plan correction where v is not measured yet (or a is not in `plan`). */
static void variant_ratio(const plan_forecast_in *in, plan_forecast *f, plan_algo a, int v,
                          uint32_t *ratio, plan_learn_state *state)
{
    uint32_t r;
    *ratio = f->ratio_plan[a];
    *state = PLAN_LEARN_UNKNOWN;
    if (in->learn && (f->plan & (1u << a)) &&
        (*state = correction(f, plan_learn_key(a, v), &r)) != PLAN_LEARN_UNKNOWN)
        *ratio = r;
}

/* The corrections of the variants of the families in `plan`, once the call gathers. */
static void variant_ratios(const plan_forecast_in *in, plan_forecast *f)
{
    for (int a = 1; a < PLAN_ALGO_COUNT; a++)
        variant_ratio(in, f, (plan_algo)a, PLAN_VARIANT_SMALL_WINDOW, &f->ratio_small[a],
                      &f->state_small[a]);
    variant_ratio(in, f, PLAN_ALGO_NODE_AGGREGATE, PLAN_VARIANT_NODE_WINDOW, &f->ratio_node_window,
                  &f->state_node_window);
}

/* Family a's variant's correction (*ratio) and its state. */
static plan_learn_state variant_correction(const plan_forecast *f, plan_algo a, int variant,
                                           uint32_t *ratio)
{
    switch (variant) {
    case PLAN_VARIANT_SMALL_WINDOW: *ratio = f->ratio_small[a]; return f->state_small[a];
    case PLAN_VARIANT_NODE_WINDOW:
        *ratio = a == PLAN_ALGO_NODE_AGGREGATE ? f->ratio_node_window : f->ratio_plan[a];
        return a == PLAN_ALGO_NODE_AGGREGATE ? f->state_node_window : PLAN_LEARN_UNKNOWN;
    default: *ratio = f->ratio_plan[a]; return f->state_plan[a];
    }
}

uint64_t plan_forecast_plan(const plan_forecast *f, plan_algo a, int variant, uint64_t model_ps,
                            uint64_t planning_ps, uint64_t agree_ps, uint64_t gather_ps)
{
    uint32_t r;
    if (variant == PLAN_VARIANT_SMALL_WINDOW && (f->small_first & (1u << a)) &&
        f->state_small[a] == PLAN_LEARN_UNKNOWN) {
        uint64_t family = plan_forecast_plan(f, a, PLAN_VARIANT_BASE, model_ps, planning_ps,
                                             agree_ps, gather_ps);
        return family ? family - 1 : 0; /* ahead of its family */
    }
    plan_learn_state st = variant_correction(f, a, variant, &r);
    uint64_t t = sat_add(plan_learn_apply(model_ps, r), extras(f, planning_ps, agree_ps, gather_ps));
    return st == PLAN_LEARN_UNKNOWN ? plus_pct(t, PLAN_FORECAST_SAFETY) : t;
}

int plan_forecast_borrowed(const plan_forecast *f, plan_algo a, int variant)
{
    uint32_t r;
    return f->state_plan[a] == PLAN_LEARN_UNKNOWN &&
           (variant == PLAN_VARIANT_BASE ||
            variant_correction(f, a, variant, &r) == PLAN_LEARN_UNKNOWN);
}

/* Family a's time per call before gathering (see plan_forecast.est_ps). */
static uint64_t family_estimate(const plan_forecast_in *in, plan_forecast *f, plan_algo a)
{
    uint64_t run =
        plan_learn_apply(plan_summary_optimistic(in->s, a, in->duplex, in->c), f->ratio[a]);
    return sat_add(run, extras(f, plan_summary_planning(in->s, a, in->c), in->agree_ps,
                               gather_of(in, a)));
}

/* Whether family a's correction in f is steady (steady_key). */
static int steady(const plan_forecast *f, plan_algo a)
{
    return steady_key(f, plan_learn_key(a, PLAN_LEARN_BEFORE));
}

/* Whether family a, estimated at f->est_ps[a], beats native by the rule of its state. */
static int wins(const plan_forecast_in *in, const plan_forecast *f, plan_algo a)
{
    uint64_t t = f->est_ps[a];
    if (in->learn && f->state[a] == PLAN_LEARN_UNKNOWN)
        return 0; /* never measured at this size: explored within the budget */
    /* measured (long ago for a stale one: measured again when it runs), or with learn == 0
     * the raw model: by the safety margin, which a single call's noise must not cross; where
     * patterns do not repeat, by the edge of a round's measured candidates once the family's
     * calls agree and MPI's last measured call was no faster than its correction says (not
     * where that correction still holds older, slower calls) */
    int nk = plan_learn_key(PLAN_ALGO_NATIVE, in->native_variant);
    uint32_t edge = in->learn && f->state[a] == PLAN_LEARN_KNOWN && drifting(in) && steady(f, a) &&
                            f->learned.latest[nk] >= f->ratio[PLAN_ALGO_NATIVE]
                        ? PLAN_FORECAST_DRIFT_EDGE
                        : PLAN_FORECAST_SAFETY;
    return plus_pct(t, edge) < f->native_ps;
}

/* The family measured at this size (not long ago) with the lowest estimate below MPI's
 * algorithm's, as a bit (0: none). */
static uint32_t measured_below_native(const plan_forecast *f)
{
    int best = 0;
    for (int a = 1; a < PLAN_ALGO_COUNT; a++)
        if (f->state[a] == PLAN_LEARN_KNOWN && f->est_ps[a] < f->native_ps &&
            (!best || f->est_ps[a] < f->est_ps[best]))
            best = a;
    return best ? 1u << best : 0;
}

/* Whether some family would beat native by its rule (wins) on a pattern repeated for ever:
 * its corrected optimistic time with one agreement per call. */
static int would_win_repeated(const plan_forecast_in *in, const plan_forecast *f)
{
    for (int a = 1; a < PLAN_ALGO_COUNT; a++) {
        if (f->est_ps[a] == UINT64_MAX || (in->learn && f->tiny && f->state[a] == PLAN_LEARN_UNKNOWN))
            continue;
        uint64_t t = sat_add(
            plan_learn_apply(plan_summary_optimistic(in->s, (plan_algo)a, in->duplex, in->c),
                             f->ratio[a]),
            plan_learn_apply(in->agree_ps, f->ratio_hit));
        if (in->learn && f->state[a] != PLAN_LEARN_UNKNOWN ? t < f->native_ps
                                                           : plus_pct(t, PLAN_FORECAST_SAFETY) <
                                                                 f->native_ps)
            return 1;
    }
    return 0;
}

/* Whether t is within margin_pct of best. */
static int close_to(uint64_t t, uint64_t best, uint32_t margin_pct)
{
    return t <= best || (unsigned __int128)t * 100 <= (unsigned __int128)best * (100u + margin_pct);
}

/* Whether family a, estimated at f->est_ps[a], goes before family b (a plan, or native for
 * none yet): a lower estimate, or an equal one where a is node-level and b rank-level on ranks
 * that share nodes. The two-level model gives both the NIC's bound (plan_summary_optimistic),
 * which only a node plan's steps schedule; a rank-level plan puts a node's ranks' messages on
 * its NIC together, as MPI's algorithm does (on 8 emulated hosts x 4 ranks a permutation of
 * 2 MiB per rank, one message each, ran in 1.04 x the node-level bound under node-direct and
 * 1.2 - 1.8 x under MPI's algorithm and rank-level direct, which were estimated alike). */
static int goes_before(const plan_forecast_in *in, const plan_forecast *f, plan_algo a, plan_algo b)
{
    if (f->est_ps[a] != f->est_ps[b] || b == PLAN_ALGO_NATIVE)
        return f->est_ps[a] < f->est_ps[b];
    return in->s->nodes > 0 && in->s->nodes < in->s->p && plan_algo_is_node(a) &&
           !plan_algo_is_node(b);
}

/* After the families are estimated, no family wins: the family to measure whose exploring is
 * predicted to cost least (of equal predictions, the one that goes_before the others: families
 * estimated below native are all predicted at a tenth of it), if that fits the budget or pays for itself
 * (plan_budget_pays_back) with its risk (plan_forecast_explore_risk) within
 * PLAN_FORECAST_RISK_PCT of the time so far: one not measured yet within the margin of native,
 * or one measured long ago whatever it was then (a single unlucky measurement must not exclude
 * a family for good). */
static void consider_exploring(const plan_forecast_in *in, plan_forecast *f)
{
    const plan_budget *b = in->budget;
    uint64_t best_pred = UINT64_MAX;
    for (int a = 1; a < PLAN_ALGO_COUNT; a++) {
        if (f->est_ps[a] == UINT64_MAX || f->state[a] == PLAN_LEARN_KNOWN ||
            (f->state[a] == PLAN_LEARN_UNKNOWN &&
             !close_to(f->est_ps[a], f->native_ps, in->margin_pct)))
            continue;
        plan_wait w = {
            .pred_ps = plan_forecast_explore_cost(in, f, (plan_algo)a, f->est_ps[a], f->native_ps),
            .risk_ps = plan_forecast_explore_risk(in, f, (plan_algo)a),
            .est_ps = f->est_ps[a],
            .best_ps = f->native_ps};
        uint64_t pred = w.pred_ps;
        int better = pred < best_pred ||
                     (pred == best_pred && goes_before(in, f, (plan_algo)a, f->explore));
        if (better && b && plan_wait_allows(b, &w, in->budget_pct)) {
            best_pred = pred;
            f->explore = (plan_algo)a;
        } else if (pred < best_pred && (!f->waiting || pred < f->wait.pred_ps)) {
            f->waiting = 1;
            f->wait = w;
        }
    }
}

/* MPI's algorithm's model, correction and state, and the overheads' corrections, into f. */
static void native_figures(const plan_forecast_in *in, plan_forecast *f)
{
    uint32_t rn = PLAN_LEARN_ONE;
    f->native_model = plan_summary_native_at(in->s, in->kind, in->duplex, in->c);
    f->native_state = PLAN_LEARN_UNKNOWN;
    f->ratio_hit = f->ratio_miss = PLAN_LEARN_ONE;
    f->native_variant = in->native_variant;
    f->ratio_native_gathered = PLAN_LEARN_ONE;
    f->native_steady = 0;
    if (in->learn) {
        int nk = plan_learn_key(PLAN_ALGO_NATIVE, in->native_variant);
        f->native_state = correction(f, nk, &rn);
        f->native_steady = steady_key(f, nk);
        uint32_t r0;
        f->ratio_native_gathered =
            in->native_variant &&
                    correction(f, plan_learn_key(PLAN_ALGO_NATIVE, 0), &r0) != PLAN_LEARN_UNKNOWN
                ? r0
                : rn;
        correction(f, PLAN_LEARN_HIT, &f->ratio_hit);
        /* no gather measured yet: the smaller of the agreement's correction and MPI's
         * exchange's (a gather is a collective that moves bytes: the ratio of a sum lies between
         * its parts'; on 16 emulated hosts the model is 60 times off for both) */
        if (correction(f, PLAN_LEARN_MISS, &f->ratio_miss) == PLAN_LEARN_UNKNOWN)
            f->ratio_miss = f->ratio_hit < rn ? f->ratio_hit : rn;
    }
    f->ratio[PLAN_ALGO_NATIVE] = rn;
    f->state[PLAN_ALGO_NATIVE] = f->native_state;
    f->native_ps = plan_learn_apply(f->native_model, rn);
    f->best_ps = f->native_ps;
}

/* Some family wins (f->win, the best estimate best): MPI's algorithm measured again if stale
 * and the budget allows, else gather for the winners (and the close ones where patterns may
 * repeat), exploring after a futile gather, or waiting for the budget. */
static void decide_win(const plan_forecast_in *in, plan_forecast *f, uint64_t best)
{
    const plan_budget *b = in->budget;
    uint64_t pred = plan_budget_predicted(f->native_ps, best);
    if (in->learn && f->native_state == PLAN_LEARN_STALE && b &&
        plan_budget_allows(b, pred, in->budget_pct)) {
        f->measure_native = f->exploring = 1;
        f->why = "MPI's algorithm measured long ago: measured again";
        return;
    }
    /* one call of MPI's algorithm (a pattern's first, on cold connections) must not condemn
     * it: measured once more, which costs nothing over MPI */
    if (in->learn &&
        f->learned.samples[plan_learn_key(PLAN_ALGO_NATIVE, in->native_variant)] == 1) {
        f->measure_native = 1;
        f->why = "MPI's algorithm measured once at this size: measured again";
        return;
    }
    const plan_history *h = in->site ? in->site : in->comm;
    /* patterns that do not repeat: MPI's correction, which plans win against, is measured
     * beside them while its calls disagree (costs nothing over MPI) */
    if (in->learn && h && drifting(in) && beside_due(h) && native_disagrees(in, f)) {
        f->measure_native = f->beside = 1;
        f->why = "plans ran the last new patterns: MPI's algorithm measured beside them";
        return;
    }
    int first = 0;
    for (int a = 1; a < PLAN_ALGO_COUNT; a++) {
        if (f->est_ps[a] != UINT64_MAX && close_to(f->est_ps[a], best, in->margin_pct))
            f->plan |= 1u << a;
        if ((f->win & (1u << a)) && (!first || goes_before(in, f, (plan_algo)a, (plan_algo)first)))
            first = a;
    }
    /* candidates to measure only where patterns may repeat: else the best one */
    f->plan = drifting(in) ? 1u << first : f->plan | f->win;
    if (in->learn && h && h->futile) {
        /* the last gathered pattern ran MPI's algorithm after all: gathering is exploring */
        uint64_t cost = plan_forecast_explore_cost(in, f, (plan_algo)first, best, f->native_ps);
        if (!b || !plan_budget_allows(b, cost, in->budget_pct)) {
            f->plan = f->win = 0;
            f->best_ps = f->native_ps;
            f->waiting = f->settled = 1;
            /* the budget alone: a gather after a futile one does not pay back by estimate */
            f->wait = (plan_wait){.pred_ps = cost, .est_ps = f->native_ps, .best_ps = f->native_ps};
            f->why = "a plan can win, but the last gathered pattern ran MPI's algorithm: "
                     "gathering waits for the budget";
            return;
        }
        f->exploring = 1;
        f->best_ps = f->native_ps;
    }
    variant_ratios(in, f);
    f->action = PLAN_FORECAST_GATHER;
    f->why = f->exploring ? "a plan can win (gathering explores)" : "a plan can win";
}

/* No family wins: explore one within the budget, else MPI's algorithm, settled or not. */
static void decide_no_win(const plan_forecast_in *in, plan_forecast *f)
{
    if (in->learn && !f->tiny && !f->on_node)
        consider_exploring(in, f);
    if (f->explore != PLAN_ALGO_NATIVE) {
        /* with the measured family that beats MPI's algorithm by less than the margin, if any:
         * the gather is paid, and the pattern must not run MPI's algorithm where the explored
         * family turns out slower once planned (a futile gather makes the next ones wait) */
        f->plan = 1u << f->explore | measured_below_native(f);
        variant_ratios(in, f);
        f->exploring = 1;
        f->action = PLAN_FORECAST_GATHER;
        f->why = "exploring a family not measured at this size";
        return;
    }
    /* a plan that would win once the pattern repeats keeps the calls checked (unless the
     * site's patterns are known not to repeat) */
    const plan_history *h = patterns_of(in);
    int recent = h && h->gathered && h->calls - h->gathered < PLAN_HISTORY_RECENT;
    /* an agreement that costs more than 2 % of MPI's call (measured) is not paid on every
     * call just because a pattern was gathered lately */
    uint64_t agree = plan_learn_apply(in->agree_ps, f->ratio_hit);
    int costly = (unsigned __int128)agree * 50 > f->native_ps;
    f->settled =
        f->waiting || ((!recent || costly) && (drifting(in) || !would_win_repeated(in, f)));
    f->why = f->on_node             ? "no byte leaves its node: no NIC to schedule"
             : f->tiny && in->learn ? "too small to try plans"
             : f->waiting           ? "a family to explore waits for the budget"
             : in->lost             ? "its plans lost to MPI's algorithm on an earlier communicator"
             : in->drift_settled    ? "its site's drifting calls of its size settled on MPI's "
                                      "algorithm on an earlier communicator"
                                    : "no plan can win";
}

/* Whether some family considered has a correction of its optimistic time within reach of
 * f's class (measured at about this size). */
static int family_measured(const plan_forecast_in *in, const plan_forecast *f)
{
    for (int a = 1; a < PLAN_ALGO_COUNT; a++)
        if ((in->families & (1u << a)) &&
            f->learned.state[plan_learn_key((plan_algo)a, PLAN_LEARN_BEFORE)] !=
                PLAN_LEARN_UNKNOWN)
            return 1;
    return 0;
}

void plan_forecast_make(const plan_forecast_in *given, plan_forecast *f)
{
    plan_forecast_in none;
    const plan_forecast_in *in = given;
    if (given->lost || given->drift_settled) { /* no family at all */
        none = *given;
        none.families = 0;
        in = &none;
    }
    memset(f, 0, sizeof *f);
    f->explore = PLAN_ALGO_NATIVE;
    for (int a = 0; a < PLAN_ALGO_COUNT; a++)
        f->est_ps[a] = UINT64_MAX;
    f->bound = plan_summary_bound(in->s, in->duplex);
    f->cls = plan_learn_class(f->bound);
    f->reuse = reuse_of(in);
    corrections(in, f->cls, &f->learned);
    native_figures(in, f);
    f->tiny = f->bound < in->explore_min_bytes || f->native_ps < in->explore_min_ps;
    f->on_node = plan_summary_on_node(in->s);
    f->small_first = small_first_of(in, f);
    if (in->learn && f->native_state == PLAN_LEARN_UNKNOWN) {
        f->measure_native = 1;
        /* too few bytes to try plans, or no NIC to schedule, whatever MPI's algorithm
         * measures */
        f->settled = f->bound < in->explore_min_bytes || f->on_node;
        f->why = "MPI's algorithm not measured yet at this size";
        return;
    }
    uint64_t best = f->native_ps;
    f->est_ps[PLAN_ALGO_NATIVE] = f->native_ps;
    /* nothing crosses a NIC: a plan could only reorder on-node messages, which MPI's
     * shared-memory transport moves as well (node-direct measured 1.10 - 1.26 x MPI's time on
     * an FFT's Y -> Z transpose, 8 emulated hosts x 4 ranks) */
    if (f->on_node || (in->learn && f->tiny && !family_measured(in, f))) {
        /* too small to explore, and no family measured: none can win (decide_no_win gives
         * what estimating every family would give) */
        decide_no_win(in, f);
        return;
    }
    family_ratios(in, f, PLAN_LEARN_BEFORE, f->ratio[PLAN_ALGO_NATIVE], f->ratio, f->state);
    family_ratios(in, f, 0, f->ratio_native_gathered, f->ratio_plan, f->state_plan);
    for (int a = 0; a < PLAN_ALGO_COUNT; a++) {
        if (a == PLAN_ALGO_NATIVE || !(in->families & (1u << a)))
            continue;
        f->est_ps[a] = family_estimate(in, f, (plan_algo)a);
        if (wins(in, f, (plan_algo)a)) {
            f->win |= 1u << a;
            best = f->est_ps[a] < best ? f->est_ps[a] : best;
        }
    }
    f->best_ps = best;
    if (f->win)
        decide_win(in, f, best);
    else
        decide_no_win(in, f);
    f->node_path = f->action == PLAN_FORECAST_GATHER && node_path_cheaper(in) &&
                   f->plan == 1u << PLAN_ALGO_NODE_DIRECT;
}
