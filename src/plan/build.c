/* plan_build: the one dispatch from a family and its options to the family's planner. */
#include "plan/families.h"
#include "plan/node.h"
#include "plan/plan.h"

/* Plans m with family algo in the full-duplex model (forward: half duplex). */
static int build_full(plan_algo algo, const plan_matrix *m, const plan_options *o,
                      const plan_direct_opts *direct, plan *pl, plan_error *err)
{
    switch (algo) {
    case PLAN_ALGO_DIRECT: return plan_direct(m, direct, pl, err);
    case PLAN_ALGO_STEPWISE: return plan_stepwise(m, pl, err);
    case PLAN_ALGO_GREEDY: return plan_greedy(m, pl, err);
    case PLAN_ALGO_WALKER_OTTO: return plan_walker_otto(m, pl, err);
    case PLAN_ALGO_TRANSPOSE:
        return plan_transpose(m, o->grain_bytes ? o->grain_bytes : 1, pl, err);
    case PLAN_ALGO_FORWARD:
        return plan_forward_capped(m, o->packet_bytes ? o->packet_bytes : PLAN_DEFAULT_PACKET_BYTES,
                                   o->max_segments, pl, err);
    default: return plan_error_set(err, 0, "%s is not a schedule family", plan_algo_name(algo));
    }
}

/* Plans m with family algo in the half-duplex model. */
static int build_half(plan_algo algo, const plan_matrix *m, const plan_options *o,
                      const plan_direct_opts *direct, plan *pl, plan_error *err)
{
    switch (algo) {
    case PLAN_ALGO_DIRECT: return plan_direct_half(m, direct, pl, err);
    case PLAN_ALGO_STEPWISE: return plan_stepwise_half(m, pl, err);
    case PLAN_ALGO_GREEDY: return plan_greedy_half(m, pl, err);
    case PLAN_ALGO_WALKER_OTTO:
        if (plan_walker_otto(m, pl, err))
            return -1;
        if (plan_split_half(pl, err)) {
            plan_free(pl);
            return -1;
        }
        return 0;
    case PLAN_ALGO_TRANSPOSE:
        return plan_transpose_half(m, o->grain_bytes ? o->grain_bytes : 1, pl, err);
    default: return build_full(algo, m, o, direct, pl, err);
    }
}

/* The minimum step min_step (a plan_options.min_step_bytes) stands for on matrix m:
 * plan_auto_min_step for PLAN_MIN_STEP_AUTO, else itself. */
static uint64_t min_step_on(const plan_matrix *m, uint64_t min_step)
{
    return min_step == PLAN_MIN_STEP_AUTO ? plan_auto_min_step(m) : min_step;
}

/* Plans m with rank-level family algo and options o; direct with step_price
 * (plan_direct_opts). */
static int build_rank(plan_algo algo, const plan_matrix *m, const plan_options *o,
                      uint64_t step_price, plan *pl, plan_error *err)
{
    plan_direct_opts direct = {.min_step_bytes = o->min_step_bytes,
                               .max_segments = o->max_segments,
                               .step_price = step_price};
    if (algo == PLAN_ALGO_DIRECT)
        direct.min_step_bytes = min_step_on(m, o->min_step_bytes);
    if (o->duplex == PLAN_DUPLEX_HALF)
        return build_half(algo, m, o, &direct, pl, err);
    if (o->duplex != PLAN_DUPLEX_FULL)
        return plan_error_set(err, 0, "unknown duplex mode %d", (int)o->duplex);
    return build_full(algo, m, o, &direct, pl, err);
}

int plan_build_node_matrix(plan_algo algo, const plan_matrix *nm, const plan_options *o,
                           plan *np, plan_error *err)
{
    plan_options no = *o;
    no.topo = NULL;
    uint64_t price = o->node_step_bytes ? o->node_step_bytes : min_step_on(nm, o->min_step_bytes);
    return build_rank(plan_node_base(algo), nm, &no, price, np, err);
}

/* Plans m with node family algo: the node matrix under o->topo (NULL: one rank per node)
 * planned by plan_build_node_matrix (the size limit applies to the node plan and to its
 * expansion), expanded over the ranks (plan/node.h). */
static int build_node(plan_algo algo, const plan_matrix *m, const plan_options *o, plan *pl,
                      plan_error *err)
{
    plan_topo one = {0};
    const plan_topo *t = o->topo;
    if (!t && plan_topo_consecutive(&one, m->p, 1, err))
        return -1;
    t = t ? t : &one;
    plan_matrix nm = {0};
    plan np = {0};
    int rc = plan_topo_node_matrix(t, m, &nm, err);
    if (rc == 0)
        rc = plan_build_node_matrix(algo, &nm, o, &np, err);
    if (rc == 0) {
        rc = plan_node_expand(algo, &np, m, &nm, t, o->max_segments, pl, err);
        plan_free(&np);
    }
    plan_matrix_free(&nm);
    plan_topo_free(&one);
    return rc;
}

int plan_build(plan_algo algo, const plan_matrix *m, const plan_options *o, plan *pl,
               plan_error *err)
{
    plan_options none = {0};
    o = o ? o : &none;
    if (plan_algo_is_node(algo))
        return build_node(algo, m, o, pl, err);
    return build_rank(algo, m, o, 0, pl, err);
}

uint64_t plan_auto_min_step(const plan_matrix *m)
{
    uint64_t relative = plan_matrix_lower_bound(m, PLAN_DUPLEX_FULL) / (4 * (uint64_t)m->p);
    return relative > PLAN_DEFAULT_MIN_STEP_BYTES ? relative : PLAN_DEFAULT_MIN_STEP_BYTES;
}
