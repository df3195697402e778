/* Deciding how a new pattern runs: the candidate families with their modeled times, planned
 * and kept in the cache slot, and the choice among them (plan/choose.c) that the call flow
 * follows and refines by measurement. Everything here depends only on the agreed matrix and
 * configuration, so every rank decides the same (planning can still fail on one rank when
 * memory runs out: the caller agrees on that). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/node.h"
#include "plan/walker_otto.h"
#include "shim/decide.h"
#include "shim/dump.h"
#include "shim/log.h"
#include "shim/state.h"
#include "shim/topo.h"

uint64_t shim_grain(uint64_t cfg_grain, uint64_t size_gcd, int dense)
{
    if (cfg_grain)
        return cfg_grain;
    if (size_gcd == 0)
        return 1;
    if (!dense || size_gcd >= SHIM_DEFAULT_GRAIN)
        return size_gcd;
    return SHIM_DEFAULT_GRAIN / size_gcd * size_gcd;
}

/* Writes pl to HRELAY_DUMP (rank 0 of the communicator; one warning per process on failure). */
static void dump(const shim_comm *rec, const plan *pl, const plan_matrix *m)
{
    shim_world *w = shim_g.world;
    if (!shim_g.cfg.dump[0] || rec->rank != 0)
        return;
    if (shim_dump_plan(w, shim_g.cfg.dump, pl, m, &shim_g.cfg.cost) != 0) {
        shim_world_lock(w);
        int first = !w->dump_warned;
        w->dump_warned = 1;
        shim_world_unlock(w);
        if (first)
            shim_warn("cannot write plans to %s", shim_g.cfg.dump);
    }
}

int shim_slot_prog(shim_comm *rec, shim_slot *s, plan_algo algo, const plan_matrix *m,
                   const plan_options *o, int *planned)
{
    *planned = 0;
    if (algo == PLAN_ALGO_NATIVE || s->prog[algo])
        return 0;
    plan pl;
    plan_error err;
    if (plan_build(algo, m, o, &pl, &err) != 0) {
        shim_log(2, "%s cannot plan this pattern: %s", plan_algo_name(algo), err.text);
        return -1;
    }
    *planned = 1;
    shim_prog *prog = calloc(1, sizeof *prog);
    if (!prog || plan_local_extract(&pl, rec->rank, &prog->lo, &err) != 0) {
        free(prog);
        plan_free(&pl);
        return -1;
    }
    prog->refs = 1;
    prog->algo = algo;
    prog->nsteps = pl.nsteps;
    prog->nsegments = pl.nsegments;
    prog->model_ps = plan_cost_plan(&pl, &shim_g.cfg.cost);
    prog->steps = shim_topo_steps(algo); /* node-shim: node plans' steps in flight */
    dump(rec, &pl, m);
    int rc = plan_local_detach(&prog->lo, &err);
    plan_free(&pl);
    if (rc != 0) {
        prog->lo.nsends = prog->lo.nrecvs = 0; /* its segments pointed into the freed plan */
        shim_prog_release(prog);
        return -1;
    }
    s->prog[algo] = prog;
    return 0;
}

/* Modeled latency of one agreement (an allreduce: a round trip per level of a tree). */
static uint64_t agree_ps(int p)
{
    uint64_t levels = 0;
    while ((1ull << levels) < (uint64_t)p)
        levels++;
    return 2 * levels * shim_g.cfg.cost.alpha_ps;
}

/* HRELAY_TUNE_SLACK in picoseconds. */
static uint64_t slack_ps(void)
{
    return (uint64_t)shim_g.cfg.slack_us * 1000000u;
}

/* Families auto considers, in planning order (the usual winner first). */
static const plan_algo auto_families[] = {PLAN_ALGO_DIRECT,    PLAN_ALGO_WALKER_OTTO,
                                          PLAN_ALGO_GREEDY,    PLAN_ALGO_STEPWISE,
                                          PLAN_ALGO_FORWARD,   PLAN_ALGO_TRANSPOSE};
enum { NAUTO = sizeof auto_families / sizeof auto_families[0] };

/* Prints the decision for a new pattern (HRELAY_VERBOSE >= 1). */
static void log_decision(const shim_comm *rec, const shim_slot *s, const plan_matrix *m)
{
    char line[768];
    size_t n = 0;
    for (int i = 0; i < s->choice.n && n < sizeof line; i++)
        n += (size_t)snprintf(line + n, sizeof line - n, "%s%s %.3g ms%s", i ? ", " : "",
                              plan_algo_name(s->choice.cand[i].algo),
                              (double)s->choice.cand[i].model_ps * 1e-9,
                              i < s->choice.explore && !s->choice.settled ? " (measured next)"
                                                                          : "");
    shim_log(1, "new pattern on %d ranks (%llu bytes at most per rank, bound %.3g ms): %s; runs %s",
             rec->p, (unsigned long long)plan_matrix_lower_bound(m, shim_g.cfg.duplex),
             (double)plan_cost_bound(m, shim_g.cfg.duplex, &shim_g.cfg.cost) * 1e-9, line,
             plan_algo_name(plan_choice_next(&s->choice)));
}

/* The most optimistic modeled schedule time of family a on m (P ranks), given the bound of
 * the links' duplex mode and the time of a step per message of the busiest rank (sent and
 * received ones together under half duplex: no schedule of whole or split messages has fewer
 * steps). forward's steps are half duplex whatever the links: under full-duplex links its
 * bytes are bounded as plan_cost_plan counts a half-duplex plan there (plan_cost_overlap_bound)
 * and its steps by the half-duplex degree; for transpose's two rounds twice the bound less the
 * share that stays, and 2 (P - 1) steps. */
static uint64_t optimistic_ps(plan_algo a, const plan_matrix *m, int p, uint64_t bound,
                              uint64_t steps, const plan_cost_params *cost)
{
    if (a == PLAN_ALGO_TRANSPOSE)
        return 2 * (bound / (uint64_t)p) * (uint64_t)(p - 1) +
               2 * (uint64_t)(p - 1) * cost->step_ps;
    if (a == PLAN_ALGO_FORWARD && shim_g.cfg.duplex != PLAN_DUPLEX_HALF)
        return plan_cost_overlap_bound(m, cost) +
               (uint64_t)plan_matrix_max_degree(m, PLAN_DUPLEX_HALF) * cost->step_ps;
    return bound + steps;
}

/* Modeled planning time of family a on m, its plan having nsegments segments (before
 * planning: as many as messages); forward's planner does far more work per byte moved, so its
 * time is modeled from its packets alone (nsegments unused: the same before and after
 * planning). */
static uint64_t planning_ps(plan_algo a, const plan_matrix *m, const plan_options *o,
                            size_t nsegments, const plan_cost_params *cost)
{
    if (a == PLAN_ALGO_FORWARD)
        return plan_cost_planning_forward(m, o->packet_bytes, cost);
    return plan_cost_planning(m, nsegments, cost);
}

/* Records candidate algo with modeled time t in s (its plan, if any, is in s->prog). */
static void add_candidate(shim_slot *s, plan_algo algo, uint64_t t)
{
    s->cand[s->ncand++] = (plan_candidate){.algo = algo, .model_ps = t};
}

/* Plans family algo into s; on failure marks it failed (s->failed). Returns 0 or -1. */
static int plan_into(shim_comm *rec, shim_slot *s, plan_algo algo, const plan_matrix *m,
                     const plan_options *o)
{
    int planned;
    if (shim_slot_prog(rec, s, algo, m, o, &planned) == 0) {
        s->planned += planned;
        return 0;
    }
    s->failed |= 1u << algo;
    return -1;
}

/* A fixed family (HRELAY_ALGO or hrelay_set_algorithm names one): that family, then direct
 * (node-direct for the node-level families) where the family needs staging (planned only if
 * the staging is over the limit), then native (if planning fails). */
static void decide_fixed(shim_comm *rec, shim_slot *s, plan_algo fixed, const plan_matrix *m,
                         const plan_options *o)
{
    if (fixed != PLAN_ALGO_NATIVE && plan_into(rec, s, fixed, m, o) == 0)
        add_candidate(s, fixed, 0);
    if (fixed == PLAN_ALGO_TRANSPOSE || fixed == PLAN_ALGO_FORWARD)
        add_candidate(s, PLAN_ALGO_DIRECT, 1);
    if (plan_algo_is_node(fixed) && fixed != PLAN_ALGO_NODE_DIRECT) /* node-shim */
        add_candidate(s, PLAN_ALGO_NODE_DIRECT, 1);
    add_candidate(s, PLAN_ALGO_NATIVE, 2);
}

/* Whether a candidate already in s has a plan of pg's shape: the same steps, segments and
 * modeled time (families that build the same schedule, as direct, stepwise and greedy do for
 * small P). Exploration then measures one of them and leaves room for a different one. */
static int same_shape_planned(const shim_slot *s, const shim_prog *pg)
{
    for (int i = 0; i < s->ncand; i++) {
        const shim_prog *q = s->prog[s->cand[i].algo];
        if (q && q != pg && q->nsteps == pg->nsteps && q->nsegments == pg->nsegments &&
            q->model_ps == pg->model_ps)
            return 1;
    }
    return 0;
}

void shim_decide(shim_comm *rec, shim_slot *s, const plan_matrix *m, const plan_options *o,
                 plan_native_kind kind)
{
    const plan_cost_params *cost = &shim_g.cfg.cost;
    s->ncand = 0;
    s->failed = 0;
    s->planned = 0;
    s->model_native_ps = plan_cost_native(m, kind, cost);
    if (s->facts.request != SHIM_AUTO) {
        decide_fixed(rec, s, (plan_algo)s->facts.request, m, o);
        return;
    }

    /* calls per pattern so far on this communicator: what a plan's set-up is spread over */
    uint64_t reuse = rec->patterns ? rec->calls / rec->patterns : 1;
    reuse = reuse ? reuse : 1;
    plan_duplex duplex = shim_g.cfg.duplex;
    uint64_t per_call = agree_ps(rec->p), bound = plan_cost_bound(m, duplex, cost);
    uint64_t steps = (uint64_t)plan_matrix_max_degree(m, duplex) * cost->step_ps;
    size_t messages = plan_matrix_messages(m);
    /* before anything is measured, a plan must be modeled SHIM_MODEL_SAFETY percent faster
     * than native to be preferred: native is modeled that much faster */
    uint64_t native =
        (uint64_t)((unsigned __int128)s->model_native_ps * 100 / (100 + SHIM_MODEL_SAFETY));
    add_candidate(s, PLAN_ALGO_NATIVE, native);
    uint64_t best = native;
    for (int f = 0; f < NAUTO; f++) {
        plan_algo a = auto_families[f];
        int wo_k;
        uint64_t wo_unit;
        if (a == PLAN_ALGO_WALKER_OTTO && !plan_wo_recognise(m, &wo_k, &wo_unit))
            continue;
        /* planned only if its most optimistic time, with the agreement and the planning
         * spread over the expected calls, could come within the exploration margin or slack
         * of the best so far */
        uint64_t optimistic = optimistic_ps(a, m, rec->p, bound, steps, cost);
        uint64_t planning = planning_ps(a, m, o, messages, cost);
        optimistic += per_call + planning / reuse;
        if (!plan_choice_close(optimistic, best, (uint32_t)shim_g.cfg.margin, slack_ps()))
            continue;
        if (plan_into(rec, s, a, m, o) != 0)
            continue;
        const shim_prog *pg = s->prog[a];
        if (same_shape_planned(s, pg)) { /* measuring it again would tell nothing new */
            shim_prog_release(s->prog[a]);
            s->prog[a] = NULL;
            continue;
        }
        if (a != PLAN_ALGO_FORWARD) /* now from the plan's own segments */
            planning = planning_ps(a, m, o, pg->nsegments, cost);
        uint64_t t = pg->model_ps + per_call + planning / reuse;
        add_candidate(s, a, t);
        best = t < best ? t : best;
    }
}

void shim_decide_choose(shim_slot *s, uint32_t drop)
{
    plan_candidate c[PLAN_ALGO_COUNT];
    int n = 0, fixed = s->facts.request != SHIM_AUTO;
    for (int i = 0; i < s->ncand; i++)
        if (!(drop & (1u << s->cand[i].algo)) || s->cand[i].algo == PLAN_ALGO_NATIVE)
            c[n++] = s->cand[i];
    plan_choice_init(&s->choice, c, n, fixed ? 0 : (uint32_t)shim_g.cfg.margin,
                     fixed ? 0 : slack_ps(), fixed ? 0 : (uint32_t)shim_g.cfg.tune);
}

void shim_decide_trim(shim_comm *rec, shim_slot *s, const plan_matrix *m, uint32_t drop)
{
    int fixed = s->facts.request != SHIM_AUTO;
    for (int a = 0; a < PLAN_ALGO_COUNT; a++)
        if (drop & (1u << a)) {
            shim_prog_release(s->prog[a]);
            s->prog[a] = NULL;
        }
    if (!fixed)
        log_decision(rec, s, m);
    /* candidates that will never run (not measured, not the first) go, with their plans */
    for (int i = s->choice.n - 1; i >= s->choice.explore; i--) {
        plan_algo a = s->choice.cand[i].algo;
        if (i == s->choice.next || (fixed && a != PLAN_ALGO_NATIVE))
            continue;
        shim_prog_release(s->prog[a]);
        s->prog[a] = NULL;
        if (!fixed)
            plan_choice_drop(&s->choice, a);
    }
}
