/* Learning from measured calls and deciding before gathering (see history.h). */
#include <stdlib.h>

#include "shim/history.h"
#include "shim/state.h"
#include "shim/topo.h"

uint64_t shim_agree_model(int p)
{
    uint64_t levels = 0;
    while ((1ull << levels) < (uint64_t)p)
        levels++;
    return 2 * levels * shim_g.cfg.cost.alpha_ps;
}

int shim_history_ready(shim_comm *rec, long idx)
{
    if (idx < 0 || idx >= SHIM_HISTORY_SITES || rec->site_off[idx])
        return 1;
    if (!rec->site_hist[idx])
        rec->site_hist[idx] = calloc(1, sizeof *rec->site_hist[idx]);
    return rec->site_hist[idx] != NULL;
}

plan_history *shim_history_of(shim_comm *rec, const shim_agreement *ag)
{
    int i = ag->site;
    if (i < 0 || i >= SHIM_HISTORY_SITES || rec->site_off[i])
        return NULL;
    if (!ag->history) { /* some rank has none: nobody uses it from now on */
        rec->site_off[i] = 1;
        free(rec->site_hist[i]);
        rec->site_hist[i] = NULL;
    }
    return rec->site_hist[i];
}

/* Records one measured call into h: its exchange against its model, the rest against the
 * model of the rest, and a call of MPI's algorithm as such. */
static void learn(plan_history *h, const shim_prev *pv, uint64_t exec, uint64_t whole)
{
    if (pv->algo == PLAN_ALGO_NATIVE)
        plan_history_native_measured(h, pv->beside, whole, pv->best_ps,
                                     (uint32_t)shim_g.cfg.budget);
    plan_learn_record(&h->learn, plan_learn_key(pv->algo, pv->variant), pv->cls, exec,
                      pv->model_ps);
    plan_learn_record(&h->learn, pv->over_key, pv->cls, whole > exec ? whole - exec : 0,
                      pv->over_model_ps);
    if (pv->optimistic_ps)
        plan_learn_record(&h->learn, plan_learn_key(pv->algo, PLAN_LEARN_BEFORE), pv->cls, exec,
                          pv->optimistic_ps);
}

/* The key variant of MPI's algorithm's model on rec (plan_forecast_in.native_variant): the
 * one that knows the nodes, where every rank's node is known. */
static int native_variant(const shim_comm *rec)
{
    return shim_topo_nodes(&rec->topo) != NULL;
}

void shim_history_first(shim_comm *rec, const shim_call *c)
{
    shim_prev *pv = &rec->prev;
    if (!pv->first)
        return;
    pv->first = 0;
    int alike = pv->alike_cls >= 0 && c->cls == pv->alike_cls && c->hist >= 0;
    if (!(c->again || alike) || c->cls < 0 || !plan_summary_consistent(&rec->summary))
        return;
    const shim_config *cfg = &shim_g.cfg;
    pv->cls = c->cls;
    pv->hist = c->hist;
    pv->variant = native_variant(rec);
    pv->model_ps = plan_summary_native_at(&rec->summary, shim_args_native_kind(c->a),
                                          (plan_duplex)cfg->duplex, &cfg->cost);
}

void shim_history_update(shim_comm *rec, const shim_agreement *ag, plan_history *site,
                         int news)
{
    shim_prev *pv = &rec->prev;
    if (ag->timed && pv->cls >= 0) {
        uint64_t exec = ag->prev_exec_ps, whole = ag->prev_whole_ps;
        whole = whole > exec ? whole : exec;
        plan_history *h = pv->hist >= 0 ? rec->site_hist[pv->hist] : NULL;
        if (h)
            learn(h, pv, exec, whole);
        learn(rec->hist, pv, exec, whole);
        /* the node window's making, out of what the choice measures, is charged here */
        uint64_t cost = whole + ag->prev_setup_ps;
        plan_budget_cost(&rec->budget, cost >= whole ? cost : UINT64_MAX,
                         pv->algo == PLAN_ALGO_NATIVE ? exec : 0, pv->explored, pv->best_ps);
        if (pv->explored && whole > pv->best_ps && pv->site >= 0 &&
            (size_t)pv->site < rec->sites.n)
            rec->sites.site[pv->site].st.explore_s += (double)(whole - pv->best_ps) * 1e-12;
    }
    rec->window_made |= ag->timed && ag->prev_setup_ps > 0;
    pv->timed = 0;
    uint64_t unchecked = rec->calls - rec->last_agreed - 1;
    plan_budget_unchecked(&rec->budget, unchecked);
    plan_history_calls(rec->hist, news, unchecked);
    if (site)
        plan_history_calls(site, news, ag->unchecked);
    rec->last_agreed = rec->calls;
}

uint64_t shim_window_make_estimate(const shim_comm *rec)
{
    unsigned __int128 bytes = (unsigned __int128)rec->summary.max[PLAN_SUMMARY_LOAD_FULL] *
                              (uint64_t)(rec->topo.lanes_max > 0 ? rec->topo.lanes_max : 1),
                      ps = shim_g.cfg.cost.window_make_ps +
                           bytes * shim_g.cfg.cost.window_make_fs / 1000;
    return ps > UINT64_MAX ? UINT64_MAX : (uint64_t)ps;
}

void shim_forecast(const shim_comm *rec, const shim_call *c, const plan_history *site,
                   plan_forecast *fc)
{
    const shim_config *cfg = &shim_g.cfg;
    const plan_topo *t = shim_topo_nodes(&rec->topo);
    int nodes = t != NULL; /* native_variant(rec), without looking the nodes up again */
    plan_forecast_in in = {
        .s = &rec->summary,
        .kind = shim_args_native_kind(c->a),
        .duplex = (plan_duplex)cfg->duplex,
        .c = &cfg->cost,
        .families = SHIM_AUTO_FAMILIES | (nodes ? SHIM_NODE_FAMILIES : 0),
        .lost = c->lost,
        .drift_settled = c->drift_settled,
        .native_variant = nodes,
        .site = site,
        .comm = rec->hist,
        .budget = &rec->budget,
        .learn = cfg->tune > 0,
        .agree_ps = shim_agree_model(rec->p),
        .gather_ps = plan_cost_gather(rec->p, &cfg->cost),
        .node_gather_ps =
            nodes ? plan_cost_node_gather(rec->p, t->n, rec->topo.lanes_max, &cfg->cost) : 0,
        .margin_pct = (uint32_t)cfg->margin,
        .budget_pct = (uint32_t)cfg->budget,
        .trials = (uint32_t)cfg->tune,
        .explore_min_ps = SHIM_EXPLORE_MIN_PS,
        .explore_min_bytes = SHIM_EXPLORE_MIN_BYTES};
    plan_forecast_make(&in, fc);
}
