/* One rank's part of an own-messages node plan, from the node plan, the node matrix and the
 * rank's own row and column: what a rank can build without the P x P matrix. */
#include <stdlib.h>
#include <string.h>

#include "plan/node.h"
#include "plan/node_pieces.h"

/* Operations of one side (sends or receives) being built; an operation's segments are first
 * an index into segs (fixed up into pointers at the end). */
typedef struct side {
    plan_local_op *op;
    size_t n, cap;
    plan_segment *segs;
    size_t nsegs, cap_segs;
} side;

/* Appends to d the operation of step `step` with peer `peer` carrying pieces v[0 .. n).
 * Returns 0, or -1 (out of memory). */
static int add_op(side *d, size_t step, int peer, const node_piece *v, size_t n)
{
    if (d->n == d->cap) {
        size_t cap = 2 * d->cap + 16;
        plan_local_op *op = realloc(d->op, cap * sizeof *op);
        if (!op)
            return -1;
        d->op = op;
        d->cap = cap;
    }
    if (d->nsegs + n > d->cap_segs) {
        size_t cap = 2 * (d->nsegs + n) + 16;
        plan_segment *sg = realloc(d->segs, cap * sizeof *sg);
        if (!sg)
            return -1;
        d->segs = sg;
        d->cap_segs = cap;
    }
    uint64_t bytes = 0;
    for (size_t k = 0; k < n; k++) {
        d->segs[d->nsegs + k] = (plan_segment){v[k].origin, v[k].target, v[k].offset, v[k].bytes};
        bytes += v[k].bytes;
    }
    d->op[d->n++] = (plan_local_op){.step = step, .peer = peer, .segs = NULL,
                                    .nsegs = n, .bytes = bytes};
    d->nsegs += n;
    return 0;
}

/* Turns the pieces of step `step` (rank's only, in plan order) into its operations. */
static int add_step(const node_pieces *b, int rank, size_t step, side *sends, side *recvs)
{
    for (size_t k = 0, e; k < b->n; k = e) {
        for (e = k + 1; e < b->n && b->v[e].src == b->v[k].src && b->v[e].dst == b->v[k].dst;)
            e++;
        int is_send = b->v[k].src == rank;
        if (add_op(is_send ? sends : recvs, step, is_send ? b->v[k].dst : b->v[k].src,
                   b->v + k, e - k))
            return -1;
    }
    return 0;
}

/* Pushes rank's pieces of node transfer tr (node step s) as plan_node_expand_own makes them. */
static int push_transfer(node_pieces *b, const plan *np, const plan_transfer *tr,
                         const plan_matrix *nm, const plan_topo *t, const plan_node_view *v,
                         plan_error *err)
{
    int a = t->node_of[v->rank], sending = tr->src == a;
    if (!sending && tr->dst != a)
        return 0;
    size_t from = b->n;
    for (uint32_t g = 0; g < tr->nsegs; g++) {
        const plan_segment *sg = &np->segments[tr->seg_begin + g];
        uint64_t M = plan_matrix_at(nm, sg->origin, sg->target);
        int peer_node = sending ? sg->target : sg->origin;
        for (int k = t->first[peer_node]; k < t->first[peer_node + 1]; k++) {
            int q = t->rank_at[k];
            uint64_t x = sending ? v->row[q] : v->col[q];
            uint64_t lo = plan_node_cut(x, sg->offset, M);
            uint64_t hi = plan_node_cut(x, sg->offset + sg->bytes, M);
            int i = sending ? v->rank : q, j = sending ? q : v->rank;
            if (hi > lo && node_pieces_push(b, i, j, i, j, lo, hi - lo, err))
                return -1;
        }
    }
    node_pieces_sort(b, from);
    return 0;
}

/* Pushes rank's messages within its node (step 0), as one sorted group. */
static int push_on_node(node_pieces *b, const plan_topo *t, const plan_node_view *v,
                        plan_error *err)
{
    int a = t->node_of[v->rank];
    for (int k = t->first[a]; k < t->first[a + 1]; k++) {
        int q = t->rank_at[k], r = v->rank;
        if (q != r && v->row[q] && node_pieces_push(b, r, q, r, q, 0, v->row[q], err))
            return -1;
        if (q != r && v->col[q] && node_pieces_push(b, q, r, q, r, 0, v->col[q], err))
            return -1;
    }
    node_pieces_sort(b, 0);
    return 0;
}

/* Checks that np forwards nothing (every segment goes from its origin node to its target). */
static int check_direct(const plan *np, plan_error *err)
{
    for (size_t k = 0; k < np->ntransfers; k++)
        for (uint32_t g = 0; g < np->transfers[k].nsegs; g++) {
            const plan_segment *sg = &np->segments[np->transfers[k].seg_begin + g];
            if (sg->origin != np->transfers[k].src || sg->target != np->transfers[k].dst)
                return plan_error_set(err, 0, "the node plan forwards: a rank needs the "
                                      "messages it relays, not only its row and column");
        }
    return 0;
}

/* Moves the two sides into lo, pointing the operations at lo's own copy of the segments. */
static int finish(side *sends, side *recvs, plan_local *lo, plan_error *err)
{
    size_t n = sends->nsegs + recvs->nsegs;
    lo->owned = malloc((n ? n : 1) * sizeof *lo->owned);
    if (!lo->owned)
        return plan_error_set(err, 0, "out of memory for %zu segments of rank %d", n, lo->rank);
    if (sends->nsegs)
        memcpy(lo->owned, sends->segs, sends->nsegs * sizeof *lo->owned);
    if (recvs->nsegs)
        memcpy(lo->owned + sends->nsegs, recvs->segs, recvs->nsegs * sizeof *lo->owned);
    plan_segment *at = lo->owned;
    for (size_t k = 0; k < sends->n; at += sends->op[k++].nsegs)
        sends->op[k].segs = at;
    for (size_t k = 0; k < recvs->n; at += recvs->op[k++].nsegs)
        recvs->op[k].segs = at;
    lo->sends = sends->op;
    lo->nsends = sends->n;
    lo->recvs = recvs->op;
    lo->nrecvs = recvs->n;
    sends->op = recvs->op = NULL;
    return 0;
}

int plan_node_local_own(const plan *np, const plan_matrix *nm, const plan_topo *t,
                        const plan_node_view *v, plan_local *lo, plan_error *err)
{
    memset(lo, 0, sizeof *lo);
    lo->rank = v->rank;
    if (v->rank < 0 || v->rank >= t->p || np->p != t->n || nm->p != t->n)
        return plan_error_set(err, 0, "rank %d, node plan of %d nodes, topology of %d ranks on "
                              "%d nodes", v->rank, np->p, t->p, t->n);
    if (check_direct(np, err))
        return -1;
    size_t nsteps = np->nsteps;
    for (int a = 0; a < t->n && nsteps == 0; a++)
        nsteps = plan_matrix_at(nm, a, a) != 0; /* a step for on-node messages alone */
    side sends = {0}, recvs = {0};
    node_pieces b = {0};
    int rc = 0;
    for (size_t s = 0; s < nsteps && rc == 0; s++) {
        if (s == 0)
            rc = push_on_node(&b, t, v, err);
        for (size_t k = s < np->nsteps ? np->step_begin[s] : 0;
             rc == 0 && s < np->nsteps && k < np->step_begin[s + 1]; k++)
            rc = push_transfer(&b, np, &np->transfers[k], nm, t, v, err);
        if (rc == 0 && add_step(&b, v->rank, s, &sends, &recvs))
            rc = plan_error_set(err, 0, "out of memory for rank %d's operations", v->rank);
        b.n = 0;
    }
    if (rc == 0)
        rc = finish(&sends, &recvs, lo, err);
    free(sends.op);
    free(sends.segs);
    free(recvs.op);
    free(recvs.segs);
    node_pieces_free(&b);
    return rc;
}
