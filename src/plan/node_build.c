/* Node families: which rank-level family plans the node matrix, and the expansion that turns
 * the node plan into a plan of the ranks with its topology recorded. */
#include <stdlib.h>
#include <string.h>

#include "plan/node.h"

plan_algo plan_node_base(plan_algo algo)
{
    switch (algo) {
    case PLAN_ALGO_NODE_TRANSPOSE: return PLAN_ALGO_TRANSPOSE;
    case PLAN_ALGO_NODE_FORWARD: return PLAN_ALGO_FORWARD;
    default: return PLAN_ALGO_DIRECT;
    }
}

int plan_node_expand(plan_algo algo, const plan *np, const plan_matrix *m, const plan_matrix *nm,
                     const plan_topo *t, size_t max_segments, plan *pl, plan_error *err)
{
    if (!plan_algo_is_node(algo))
        return plan_error_set(err, 0, "%s is not a node family", plan_algo_name(algo));
    int rc = algo == PLAN_ALGO_NODE_AGGREGATE
                 ? plan_node_expand_aggregate(np, m, nm, t, max_segments, pl, err)
                 : plan_node_expand_own(np, m, nm, t, max_segments, pl, err);
    if (rc)
        return -1;
    pl->node_of = malloc((size_t)t->p * sizeof *pl->node_of);
    if (!pl->node_of) {
        plan_free(pl);
        return plan_error_set(err, 0, "out of memory for a node plan's topology");
    }
    memcpy(pl->node_of, t->node_of, (size_t)t->p * sizeof *pl->node_of);
    pl->nnodes = t->n;
    pl->nic_peers = 1;
    pl->algo = algo;
    pl->duplex = np->duplex;
    pl->min_step_bytes = np->min_step_bytes;
    pl->packet_bytes = np->packet_bytes;
    return 0;
}
