/* The exploration budget (see budget.h). */
#include "plan/budget.h"
#include "plan/cost_math.h"

/* Calls of per_ps each that take the communicator's total from total_ps to at least need
 * (0 if it is there; UINT64_MAX if per_ps is 0 or the count does not fit). */
static uint64_t calls_to(unsigned __int128 need, uint64_t total_ps, uint64_t per_ps)
{
    if (need <= total_ps)
        return 0;
    if (!per_ps)
        return UINT64_MAX;
    unsigned __int128 k = (need - total_ps + per_ps - 1) / per_ps;
    return k > UINT64_MAX ? UINT64_MAX : (uint64_t)k;
}

int plan_budget_allows(const plan_budget *b, uint64_t predicted_ps, uint32_t budget_pct)
{
    unsigned __int128 need = (unsigned __int128)sat_add(b->explore_ps, predicted_ps) * 100u;
    return need <= (unsigned __int128)b->total_ps * budget_pct;
}

/* payback_total's answer where exploring never pays back. */
#define PAYBACK_NEVER (~(unsigned __int128)0)

/* The communicator's total time from which exploring predicted_ps more, estimated at est_ps
 * against the best estimate best_ps, pays back: the saving per call of best_ps, over the total,
 * covers PLAN_FORECAST_PAYBACK_SHARE times what exploring has cost and would cost
 * (plan_budget_pays_back); PAYBACK_NEVER where est_ps is not clearly below best_ps. */
static unsigned __int128 payback_total(const plan_budget *b, uint64_t predicted_ps,
                                       uint64_t best_ps, uint64_t est_ps)
{
    if (plus_pct(est_ps, PLAN_FORECAST_SAFETY) >= best_ps)
        return PAYBACK_NEVER;
    unsigned __int128 spent = (unsigned __int128)sat_add(b->explore_ps, predicted_ps) * best_ps *
                              PLAN_FORECAST_PAYBACK_SHARE,
                      saved = best_ps - est_ps;
    return (spent + saved - 1) / saved;
}

int plan_budget_pays_back(const plan_budget *b, uint64_t predicted_ps, uint64_t best_ps,
                          uint64_t est_ps)
{
    unsigned __int128 need = payback_total(b, predicted_ps, best_ps, est_ps);
    return need != PAYBACK_NEVER && b->total_ps >= need;
}

uint64_t plan_budget_calls_until(const plan_budget *b, uint64_t predicted_ps, uint32_t budget_pct)
{
    if (plan_budget_allows(b, predicted_ps, budget_pct))
        return 0;
    if (!budget_pct)
        return UINT64_MAX;
    unsigned __int128 need =
        ((unsigned __int128)sat_add(b->explore_ps, predicted_ps) * 100u + budget_pct - 1) /
        budget_pct;
    return calls_to(need, b->total_ps, b->last_native_ps);
}

/* What exploring w risks whatever it saves, with what MPI's calls so far cost beyond their
 * exchange: what must fit PLAN_FORECAST_RISK_PCT. */
static uint64_t risk_with_overhead(const plan_budget *b, const plan_wait *w)
{
    return sat_add(w->risk_ps, b->overhead_ps);
}

int plan_wait_allows(const plan_budget *b, const plan_wait *w, uint32_t budget_pct)
{
    if (budget_pct == 0) /* HRELAY_EXPLORE_BUDGET=0: never explore */
        return 0;
    return plan_budget_allows(b, w->pred_ps, budget_pct) ||
           (plan_budget_pays_back(b, w->pred_ps, w->best_ps, w->est_ps) &&
            (!w->risk_ps ||
             plan_budget_allows(b, risk_with_overhead(b, w), PLAN_FORECAST_RISK_PCT)));
}

uint64_t plan_wait_calls_until(const plan_budget *b, const plan_wait *w, uint32_t budget_pct)
{
    if (!budget_pct) /* never explores */
        return UINT64_MAX;
    uint64_t by_budget = plan_budget_calls_until(b, w->pred_ps, budget_pct);
    unsigned __int128 need = payback_total(b, w->pred_ps, w->best_ps, w->est_ps);
    if (need == PAYBACK_NEVER)
        return by_budget;
    /* pays back, and its risk fits as plan_wait_allows asks */
    uint64_t by_estimate = calls_to(need, b->total_ps, b->last_native_ps);
    if (w->risk_ps) {
        uint64_t by_risk = plan_budget_calls_until(b, risk_with_overhead(b, w),
                                                   PLAN_FORECAST_RISK_PCT);
        by_estimate = by_risk > by_estimate ? by_risk : by_estimate;
    }
    return by_estimate < by_budget ? by_estimate : by_budget;
}

uint64_t plan_run_floor(uint64_t agree_ps, uint64_t native_ps)
{
    if (!agree_ps || !native_ps)
        return 0;
    unsigned __int128 n = ((unsigned __int128)agree_ps * PLAN_RUN_SHARE + native_ps - 1) /
                          native_ps;
    return n < PLAN_RUN_MAX ? (uint64_t)n : PLAN_RUN_MAX;
}

uint64_t plan_budget_predicted(uint64_t est_ps, uint64_t best_ps)
{
    uint64_t floor = best_ps / 10, d = est_ps > best_ps ? est_ps - best_ps : 0;
    return d > floor ? d : floor;
}

void plan_budget_unchecked(plan_budget *b, uint64_t unchecked)
{
    unsigned __int128 t = (unsigned __int128)unchecked * b->last_native_ps;
    b->total_ps = sat_add(b->total_ps, t > UINT64_MAX ? UINT64_MAX : (uint64_t)t);
}

void plan_budget_cost(plan_budget *b, uint64_t cost_ps, uint64_t native_ps, int explored,
                      uint64_t best_ps)
{
    b->total_ps = sat_add(b->total_ps, cost_ps);
    if (explored && cost_ps > best_ps)
        b->explore_ps = sat_add(b->explore_ps, cost_ps - best_ps);
    if (native_ps) {
        b->last_native_ps = native_ps;
        if (cost_ps > native_ps)
            b->overhead_ps = sat_add(b->overhead_ps, cost_ps - native_ps);
    }
}
