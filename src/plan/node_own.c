/* Node plans carrying every rank's own messages (plan_node_expand_own): each node step moves
 * the same fraction of every rank message of the node pairs it serves. */
#include <string.h>

#include "plan/node.h"
#include "plan/node_pieces.h"

int plan_node_relay(const plan_topo *t, int c, int i, int j)
{
    if (t->node_of[i] == c)
        return i;
    if (t->node_of[j] == c)
        return j;
    return plan_topo_rank(t, c, (t->lane_of[i] + t->lane_of[j]) % plan_topo_lanes(t, c));
}

/* Pushes the pieces of node segment g (bytes of node message g->origin -> g->target) that
 * move from node u to node v: the same fraction of every rank message of the node pair, from
 * the rank holding it on u to the rank holding it on v. */
static int push_segment(node_pieces *b, const plan_matrix *m, const plan_matrix *nm,
                        const plan_topo *t, int u, int v, const plan_segment *g, plan_error *err)
{
    int oa = g->origin, ob = g->target;
    uint64_t M = plan_matrix_at(nm, oa, ob), o1 = g->offset, o2 = g->offset + g->bytes;
    for (int ka = t->first[oa]; ka < t->first[oa + 1]; ka++) {
        int i = t->rank_at[ka];
        const uint64_t *row = m->bytes + (size_t)i * (size_t)m->p;
        for (int kb = t->first[ob]; kb < t->first[ob + 1]; kb++) {
            int j = t->rank_at[kb];
            uint64_t lo = plan_node_cut(row[j], o1, M), hi = plan_node_cut(row[j], o2, M);
            if (hi > lo && node_pieces_push(b, plan_node_relay(t, u, i, j),
                                            plan_node_relay(t, v, i, j), i, j, lo, hi - lo, err))
                return -1;
        }
    }
    return 0;
}

/* Appends node step s of np to pl: step 0's on-node messages first, then each node transfer's
 * pieces as one sorted group, in np's transfer order. */
static int expand_step(const plan *np, size_t s, const plan_matrix *m, const plan_matrix *nm,
                       const plan_topo *t, node_pieces *b, size_t max_segments, plan *pl,
                       plan_error *err)
{
    if (plan_begin_step(pl, err) || (s == 0 && node_pieces_on_node(b, m, t, err)))
        return -1;
    for (size_t k = np->step_begin[s]; k < np->step_begin[s + 1]; k++) {
        const plan_transfer *tr = &np->transfers[k];
        size_t from = b->n;
        for (uint32_t g = 0; g < tr->nsegs; g++)
            if (push_segment(b, m, nm, t, tr->src, tr->dst, &np->segments[tr->seg_begin + g],
                             err))
                return -1;
        node_pieces_sort(b, from);
    }
    return node_pieces_emit(pl, b, max_segments, err);
}

int plan_node_expand_own(const plan *np, const plan_matrix *m, const plan_matrix *nm,
                         const plan_topo *t, size_t max_segments, plan *pl, plan_error *err)
{
    if (m->p != t->p || nm->p != t->n || np->p != t->n)
        return plan_error_set(err, 0, "node plan of %d nodes, matrix of %d ranks, topology of "
                              "%d ranks on %d nodes", np->p, m->p, t->p, t->n);
    if (plan_init(pl, m->p, np->algo, np->duplex, err))
        return -1;
    node_pieces b = {0};
    int rc = 0;
    size_t nsteps = np->nsteps;
    if (nsteps == 0) { /* on-node messages still need a step */
        for (int a = 0; a < t->n && !nsteps; a++)
            nsteps = plan_matrix_at(nm, a, a) != 0;
    }
    for (size_t s = 0; s < nsteps && rc == 0; s++) {
        if (s < np->nsteps)
            rc = expand_step(np, s, m, nm, t, &b, max_segments, pl, err);
        else
            rc = plan_begin_step(pl, err) || node_pieces_on_node(&b, m, t, err) ||
                 node_pieces_emit(pl, &b, max_segments, err) ? -1 : 0;
    }
    node_pieces_free(&b);
    if (rc)
        plan_free(pl);
    return rc;
}
