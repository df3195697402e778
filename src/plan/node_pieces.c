/* Pieces of rank messages collected for one step of a node plan. */
#include <stdlib.h>

#include "plan/node_pieces.h"

int node_pieces_push(node_pieces *b, int src, int dst, int origin, int target, uint64_t offset,
                     uint64_t bytes, plan_error *err)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 64;
        node_piece *v = realloc(b->v, cap * sizeof *v);
        if (!v)
            return plan_error_set(err, 0, "out of memory for %zu pieces of a node plan", cap);
        b->v = v;
        b->cap = cap;
    }
    b->v[b->n++] = (node_piece){src, dst, origin, target, offset, bytes};
    return 0;
}

/* qsort order of pieces: by src, dst, origin, target, offset. */
static int piece_order(const void *x, const void *y)
{
    const node_piece *a = x, *b = y;
    if (a->src != b->src)
        return a->src < b->src ? -1 : 1;
    if (a->dst != b->dst)
        return a->dst < b->dst ? -1 : 1;
    if (a->origin != b->origin)
        return a->origin < b->origin ? -1 : 1;
    if (a->target != b->target)
        return a->target < b->target ? -1 : 1;
    return (a->offset > b->offset) - (a->offset < b->offset);
}

void node_pieces_sort(node_pieces *b, size_t from)
{
    if (b->n - from < 2)
        return;
    qsort(b->v + from, b->n - from, sizeof *b->v, piece_order);
    size_t w = from;
    for (size_t k = from + 1; k < b->n; k++) {
        node_piece *last = &b->v[w], *x = &b->v[k];
        if (x->src == last->src && x->dst == last->dst && x->origin == last->origin &&
            x->target == last->target && last->offset + last->bytes == x->offset &&
            x->origin == x->src)
            last->bytes += x->bytes;
        else
            b->v[++w] = *x;
    }
    b->n = w + 1;
}

int node_pieces_emit(plan *pl, node_pieces *b, size_t max_segments, plan_error *err)
{
    if (max_segments && pl->nsegments + b->n > max_segments) {
        b->n = 0;
        return plan_error_set(err, 0, "the node plan would exceed %zu segments",
                              max_segments);
    }
    int rc = plan_reserve(pl, pl->ntransfers + b->n, pl->nsegments + b->n, err);
    for (size_t k = 0; k < b->n && rc == 0; k++) {
        const node_piece *x = &b->v[k];
        if (k == 0 || x->src != b->v[k - 1].src || x->dst != b->v[k - 1].dst)
            rc = plan_add_transfer(pl, x->src, x->dst, err);
        if (rc == 0)
            rc = plan_add_segment(pl, x->origin, x->target, x->offset, x->bytes, err);
    }
    b->n = 0;
    return rc;
}

int node_pieces_on_node(node_pieces *b, const plan_matrix *m, const plan_topo *t,
                        plan_error *err)
{
    size_t from = b->n;
    for (int i = 0; i < m->p; i++)
        for (int k = t->first[t->node_of[i]]; k < t->first[t->node_of[i] + 1]; k++) {
            int j = t->rank_at[k];
            uint64_t x = plan_matrix_at(m, i, j);
            if (j != i && x && node_pieces_push(b, i, j, i, j, 0, x, err))
                return -1;
        }
    node_pieces_sort(b, from);
    return 0;
}

void node_pieces_free(node_pieces *b)
{
    free(b->v);
    b->v = NULL;
    b->n = b->cap = 0;
}
