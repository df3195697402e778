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
#include "shim/history.h"
#include "shim/log.h"
#include "shim/run.h"
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
    const plan_topo *nodes = shim_topo_nodes(&rec->topo); /* several ranks per node: the
                                                               two-level model */
    prog->model_ps = nodes ? plan_cost_topo_plan(&pl, nodes, &shim_g.cfg.cost)
                           : plan_cost_plan(&pl, &shim_g.cfg.cost);
    uint64_t bytes = 0;
    uint32_t *ops = calloc((size_t)pl.p, sizeof *ops); /* sends and receives per rank */
    for (size_t t = 0; t < pl.ntransfers; t++) {
        bytes += pl.transfers[t].bytes;
        if (ops) {
            ops[pl.transfers[t].src]++;
            ops[pl.transfers[t].dst]++;
        }
    }
    prog->mean_transfer = pl.ntransfers ? bytes / pl.ntransfers : 0;
    for (int r = 0; r < pl.p; r++)
        prog->max_ops = ops && ops[r] > prog->max_ops ? ops[r] : prog->max_ops;
    if (!ops) /* unknown: as if the window mattered */
        prog->max_ops = UINT32_MAX;
    free(ops);
    shim_prog_set_run(prog, &rec->topo, rec->p, pl.node_of ? &pl : NULL, pl.node_of);
    if (algo == PLAN_ALGO_NODE_AGGREGATE && shim_g.cfg.node_shm && pl.node_of &&
        plan_shm_build(&pl, rec->rank, &prog->lo, &prog->shm, &err) != 0)
        shim_log(2, "node-aggregate: no shared-memory layout (%s): messages", err.text);
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

/* The name of candidate c for verbose lines. */
static const char *candidate_name(const plan_candidate *c, char *buf, size_t cap)
{
    return shim_run_name(c->algo, c->variant, buf, cap);
}

/* Whether MPI's algorithm for calls of facts f posts its messages in blocks, as the plans
 * do (MPI_Alltoallv without MPI_IN_PLACE). */
static int posts_blocks(const shim_facts *f)
{
    return !f->inplace && (f->kind == SHIM_ALLTOALLV || f->kind == SHIM_ALLTOALLV_C);
}

/* MPI's algorithm's modeled time among the candidates of s (UINT64_MAX: none). */
static uint64_t native_model(const shim_slot *s)
{
    for (int i = 0; i < s->ncand; i++)
        if (s->cand[i].algo == PLAN_ALGO_NATIVE)
            return s->cand[i].model_ps;
    return UINT64_MAX;
}

/* Prints the decision for a new pattern (HRELAY_VERBOSE >= 1); with several ranks per node
 * the nodes and the node-level bound (plan_cost_topo_bound). */
static void log_decision(const shim_comm *rec, const shim_slot *s, const plan_matrix *m)
{
    char line[1024], name[48], where[64] = ",";
    const plan_topo *nodes = shim_topo_nodes(&rec->topo);
    if (nodes)
        snprintf(where, sizeof where, ", %d nodes, node-level", nodes->n);
    size_t n = 0;
    for (int i = 0; i < s->choice.n && n < sizeof line; i++)
        n += (size_t)snprintf(line + n, sizeof line - n, "%s%s %.3g ms%s", i ? ", " : "",
                              candidate_name(&s->choice.cand[i], name, sizeof name),
                              (double)s->choice.cand[i].model_ps * 1e-9,
                              i < s->choice.explore && !s->choice.settled ? " (measured next)"
                                                                          : "");
    shim_log(1,
             "new pattern on %d ranks (%llu bytes at most per rank%s bound %.3g ms): %s; runs "
             "%s%s",
             rec->p, (unsigned long long)plan_matrix_lower_bound(m, shim_g.cfg.duplex), where,
             (double)plan_cost_topo_bound(m, nodes, shim_g.cfg.duplex, &shim_g.cfg.cost) * 1e-9,
             line, candidate_name(plan_choice_opening(&s->choice), name, sizeof name),
             s->worth_only ? " (MPI's calls steady: no plan modeled within 3 % of them)" : "");
}

/* Records candidate algo (its variant) with modeled time t in s (its plan, if any, is in
 * s->prog), corrected by a ratio not its own if borrowed. */
static void add_candidate(shim_slot *s, plan_algo algo, int variant, uint64_t t, int borrowed)
{
    if (s->ncand < PLAN_CHOICE_MAX)
        s->cand[s->ncand++] =
            (plan_candidate){.algo = algo, .variant = variant, .model_ps = t, .borrowed = borrowed};
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

/* A fixed family (HRELAY_ALGO or hrelay_set_algorithm names one): that family (node-aggregate
 * under HRELAY_NODE_SHM=auto also through the node's window, both measured by HRELAY_TUNE calls
 * where exploring is allowed, the faster kept), then direct (node-direct for the node-level
 * families) where the family needs staging (planned only if the staging is over the limit),
 * then native (if planning fails). */
static void decide_fixed(shim_comm *rec, shim_slot *s, plan_algo fixed, const plan_matrix *m,
                         const plan_options *o)
{
    if (fixed != PLAN_ALGO_NATIVE && plan_into(rec, s, fixed, m, o) == 0) {
        add_candidate(s, fixed, PLAN_VARIANT_BASE, 0, 0);
        if (fixed == PLAN_ALGO_NODE_AGGREGATE && shim_g.cfg.node_shm == SHIM_NODE_SHM_AUTO &&
            shim_g.cfg.budget > 0 && shim_g.cfg.tune > 0) {
            add_candidate(s, fixed, PLAN_VARIANT_NODE_WINDOW, 0, 0);
            s->trials = (uint32_t)shim_g.cfg.tune;
        }
    }
    if (fixed == PLAN_ALGO_TRANSPOSE || fixed == PLAN_ALGO_FORWARD)
        add_candidate(s, PLAN_ALGO_DIRECT, 0, 1, 0);
    if (plan_algo_is_node(fixed) && fixed != PLAN_ALGO_NODE_DIRECT)
        add_candidate(s, PLAN_ALGO_NODE_DIRECT, 0, 1, 0);
    add_candidate(s, PLAN_ALGO_NATIVE, 0, 2, 0);
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

/* Modeled planning time of family a on m, its plan having nsegments segments; forward's
 * from its packets (the same before and after planning). */
static uint64_t planning_ps(plan_algo a, const plan_matrix *m, const plan_options *o,
                            size_t nsegments, const plan_cost_params *cost)
{
    if (a == PLAN_ALGO_FORWARD)
        return plan_cost_planning_forward(m, o->packet_bytes, cost);
    return plan_cost_planning(m, nsegments, cost);
}

/* Families auto plans, in planning order (the usual winner first); the node-level ones only
 * where some node holds several ranks (else they are their base families). */
static const plan_algo auto_families[] = {
    PLAN_ALGO_DIRECT,      PLAN_ALGO_WALKER_OTTO,    PLAN_ALGO_GREEDY,
    PLAN_ALGO_STEPWISE,    PLAN_ALGO_FORWARD,        PLAN_ALGO_TRANSPOSE,
    PLAN_ALGO_NODE_DIRECT, PLAN_ALGO_NODE_AGGREGATE, PLAN_ALGO_NODE_TRANSPOSE,
    PLAN_ALGO_NODE_FORWARD};
enum { NAUTO = sizeof auto_families / sizeof auto_families[0] };
/* native, every family, the window variant of the best and node-aggregate's through the node's
 * window */
_Static_assert(1 + NAUTO + 2 <= PLAN_CHOICE_MAX, "auto's candidates fit a choice");

/* auto: the best plan candidate of s also runs with a small window when its transfers are
 * large enough for the window to matter and some rank has more operations than the small
 * window holds (measuring may tell them apart); not a node plan run by node steps in flight
 * (HRELAY_NODE_STEPS), which the window does not limit (plan_forecast_plan may estimate it just
 * below its family, so that it runs first: plan_forecast.small_first). */
static void add_window_variant(shim_slot *s, const plan_forecast *fc, const uint64_t *planning,
                               uint64_t agree, uint64_t gather)
{
    int best = -1;
    for (int i = 0; i < s->ncand; i++)
        if (s->cand[i].algo != PLAN_ALGO_NATIVE &&
            (best < 0 || s->cand[i].model_ps < s->cand[best].model_ps))
            best = i;
    if (best < 0 || s->trials == 0 || shim_g.cfg.window <= SHIM_SMALL_WINDOW)
        return;
    plan_algo a = s->cand[best].algo;
    const shim_prog *pg = s->prog[a];
    if (pg->mean_transfer < SHIM_WINDOW_MIN_TRANSFER || pg->max_ops <= SHIM_SMALL_WINDOW ||
        pg->steps)
        return; /* small transfers, no rank has more operations than the small window, or a
                   node plan whose node steps in flight bound it instead of the window */
    add_candidate(s, a, PLAN_VARIANT_SMALL_WINDOW,
                  plan_forecast_plan(fc, a, PLAN_VARIANT_SMALL_WINDOW, pg->model_ps, planning[a],
                                     agree, gather),
                  plan_forecast_borrowed(fc, a, PLAN_VARIANT_SMALL_WINDOW));
}

/* auto under HRELAY_NODE_SHM=auto: node-aggregate, where it is a candidate, also runs with its
 * transfers within a node through the node's window (the model is the same; measuring tells
 * them apart: on 8 emulated hosts x 4 ranks the window was slower at 64 B - 4 KiB per pair, on
 * one node faster at 32 KiB and slower from 512 KiB). Its plan, made on every rank, decides
 * (a rank that failed to plan node-aggregate drops both with the family). */
static void add_node_window_variant(shim_slot *s, const plan_forecast *fc, const uint64_t *planning,
                                    uint64_t agree, uint64_t gather)
{
    plan_algo a = PLAN_ALGO_NODE_AGGREGATE;
    int found = 0;
    for (int i = 0; i < s->ncand; i++)
        found |= s->cand[i].algo == a && s->cand[i].variant == PLAN_VARIANT_BASE;
    if (!found || s->trials == 0 || shim_g.cfg.node_shm != SHIM_NODE_SHM_AUTO)
        return;
    add_candidate(s, a, PLAN_VARIANT_NODE_WINDOW,
                  plan_forecast_plan(fc, a, PLAN_VARIANT_NODE_WINDOW, s->prog[a]->model_ps,
                                     planning[a], agree, gather),
                  plan_forecast_borrowed(fc, a, PLAN_VARIANT_NODE_WINDOW));
}

void shim_decide(shim_comm *rec, shim_slot *s, const plan_matrix *m, const plan_options *o,
                 plan_native_kind kind, const plan_forecast *fc)
{
    const plan_cost_params *cost = &shim_g.cfg.cost;
    uint64_t agree = shim_agree_model(rec->p), gather = plan_cost_gather(rec->p, cost);
    uint64_t planning[PLAN_ALGO_COUNT] = {0};
    s->ncand = 0;
    s->failed = 0;
    s->planned = 0;
    const plan_topo *nodes = shim_topo_nodes(&rec->topo);
    s->model_native_ps =
        nodes ? plan_cost_topo_native(m, kind, nodes, cost) : plan_cost_native(m, kind, cost);
    s->overhead_ps = 2 * agree + gather;
    s->window_make_ps = shim_window_make_estimate(rec);
    s->bound_ps = shim_g.cfg.calibrated
                      ? plan_cost_topo_bound(m, nodes, shim_g.cfg.duplex, &shim_g.cfg.cost)
                      : 0;
    s->trials = 0;
    s->worth_only = 0;
    if (s->facts.request != SHIM_AUTO || !fc) {
        decide_fixed(rec, s, s->facts.request != SHIM_AUTO ? (plan_algo)s->facts.request
                                                            : PLAN_ALGO_NATIVE,
                     m, o);
        return;
    }
    /* measured only where exploring is allowed at all */
    s->trials = fc->tiny || shim_g.cfg.budget == 0 ? 0 : (uint32_t)shim_g.cfg.tune;
    /* a plan modeled no faster than MPI's algorithm is not measured where MPI's calls are
     * steady (fc->native_steady), cross the network from one rank per node and post their
     * messages in blocks as the plans do: there the gathered models of both hold (on 16
     * emulated hosts with 20 ms buffers, direct modeled 2 - 4 % slower than MPI's algorithm
     * took 1.05 x its time on the calls that measured it); not where MPI's calls stall (with
     * 5 ms buffers, 28 - 44 % of them), nor on one node, nor for MPI_Alltoall's pairwise
     * steps, where plans modeled no faster took 0.79 - 0.87 x MPI's time, nor for the
     * node-level families, whose two-level models were not measured against it */
    s->worth_only = s->trials > 0 && rec->topo.nodes > 1 && !shim_topo_nodes(&rec->topo) &&
                    posts_blocks(&s->facts) && fc->native_steady;
    /* the gathered pattern's model of MPI's algorithm (two-level with several ranks per node)
     * by its own correction (fc->native_ps: the summary's model, by the forecast's) */
    add_candidate(s, PLAN_ALGO_NATIVE, 0,
                  plan_learn_apply(s->model_native_ps, fc->ratio_native_gathered), 0);
    for (int f = 0; f < NAUTO; f++) {
        plan_algo a = auto_families[f];
        int wo_k;
        uint64_t wo_unit;
        if (!(fc->plan & (1u << a)) || (plan_algo_is_node(a) && !nodes) ||
            (a == PLAN_ALGO_WALKER_OTTO && !plan_wo_recognise(m, &wo_k, &wo_unit)))
            continue;
        /* the model of the call's overhead counts every family tried, from agreed figures
         * (planning can fail on one rank alone) */
        s->overhead_ps += plan_summary_planning(&rec->summary, a, cost);
        if (plan_into(rec, s, a, m, o) != 0)
            continue;
        const shim_prog *pg = s->prog[a];
        planning[a] = planning_ps(a, m, o, pg->nsegments, cost);
        if (same_shape_planned(s, pg)) { /* measuring it again would tell nothing new */
            shim_prog_release(s->prog[a]);
            s->prog[a] = NULL;
            continue;
        }
        add_candidate(s, a, 0,
                      plan_forecast_plan(fc, a, 0, pg->model_ps, planning[a], agree, gather),
                      plan_forecast_borrowed(fc, a, 0));
    }
    add_window_variant(s, fc, planning, agree, gather);
    add_node_window_variant(s, fc, planning, agree, gather);
}

void shim_decide_choose(const shim_comm *rec, shim_slot *s, uint32_t drop)
{
    plan_candidate c[PLAN_CHOICE_MAX];
    int n = 0, request = s->facts.request, fixed = request != SHIM_AUTO;
    /* a fixed family measured both ways (decide_fixed) that runs: its variants alone */
    int variants = fixed && s->trials > 0 && !(drop & (1u << request));
    int worth_only = !fixed && s->worth_only;
    uint64_t mpi_ps = native_model(s);
    for (int i = 0; i < s->ncand; i++)
        if (variants ? s->cand[i].algo == (plan_algo)request
                     : s->cand[i].algo == PLAN_ALGO_NATIVE ||
                           (!(drop & (1u << s->cand[i].algo)) &&
                            (!worth_only || plan_choice_worth(&s->cand[i], mpi_ps))))
            c[n++] = s->cand[i];
    plan_choice_init(&s->choice, c, n, fixed ? 0 : (uint32_t)shim_g.cfg.margin, s->trials);
    if (rec->topo.nodes > 1)
        plan_choice_network(&s->choice);
    else if (rec->p > 1) /* every rank on one node (topo.c: nodes = p without a topology) */
        plan_choice_shared(&s->choice);
    plan_choice_bound(&s->choice, s->bound_ps);
    plan_choice_native_seen(&s->choice, rec->native_seen, rec->native_seen_n);
}

void shim_decide_trim(shim_comm *rec, shim_slot *s, const plan_matrix *m, uint32_t drop,
                      plan_algo keep)
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
        plan_candidate c = s->choice.cand[i];
        if (i == s->choice.next || (fixed && c.algo == PLAN_ALGO_NATIVE) ||
            (c.algo == keep && !c.variant))
            continue;
        if (fixed) {
            shim_prog_release(s->prog[c.algo]);
            s->prog[c.algo] = NULL;
        } else {
            plan_choice_remove(&s->choice, c.algo, c.variant);
        }
    }
    for (int a = 0; !fixed && a < PLAN_ALGO_COUNT; a++) {
        int used = 0;
        for (int i = 0; i < s->choice.n; i++)
            used |= s->choice.cand[i].algo == (plan_algo)a;
        if (!used) {
            shim_prog_release(s->prog[a]);
            s->prog[a] = NULL;
        }
    }
}
