/* Aggregated node plans (plan_node_expand_aggregate): node message a -> b is the concatenation
 * of its rank messages; each range the node plan moves is split evenly over lanes, gathered to
 * the sending lanes before and scattered from the receiving lanes after. */
#include <stdlib.h>
#include <string.h>

#include "plan/node.h"
#include "plan/node_pieces.h"

/* Who holds a node message's bytes: [start, next start) (the last up to M) held by rank. */
typedef struct hold {
    uint64_t start;
    int32_t rank;
} hold;

/* The holders of one node message, sorted by start. */
typedef struct holds {
    hold *v;
    size_t n, cap;
} holds;

/* A range that reached its target node: the scatter of the next on-node step. */
typedef struct arrival {
    int32_t a, b, rank;
    uint64_t q1, q2;
} arrival;

/* The state of one expansion. */
typedef struct agg {
    const plan_matrix *m, *nm;
    const plan_topo *t;
    uint64_t **pre;  /* per node pair (a * N + b): L_a * L_b + 1 offsets of its rank messages */
    holds *hold;     /* per node pair */
    arrival *arr;    /* arrivals since the last on-node step */
    size_t narr, cap_arr;
    node_pieces on, nic; /* the on-node step and the NIC step being built */
} agg;

/* Fills g->pre for pair (a, b) and its first holders: each sender holds its row's block.
 * Returns 0, or -1 (out of memory). */
static int init_pair(agg *g, int a, int b)
{
    const plan_topo *t = g->t;
    size_t k = (size_t)a * (size_t)t->n + (size_t)b;
    int la = plan_topo_lanes(t, a), lb = plan_topo_lanes(t, b);
    uint64_t *pre = malloc(((size_t)la * (size_t)lb + 1) * sizeof *pre);
    hold *h = malloc(((size_t)la + 2) * sizeof *h);
    g->pre[k] = pre;
    g->hold[k] = (holds){h, 0, (size_t)la + 2};
    if (!pre || !h)
        return -1;
    pre[0] = 0;
    for (int x = 0; x < la; x++) {
        int i = plan_topo_rank(t, a, x);
        size_t e0 = (size_t)x * (size_t)lb;
        for (int y = 0; y < lb; y++)
            pre[e0 + y + 1] = pre[e0 + y] + plan_matrix_at(g->m, i, plan_topo_rank(t, b, y));
        if (pre[e0 + lb] > pre[e0]) /* an empty row holds nothing */
            h[g->hold[k].n++] = (hold){pre[e0], i};
    }
    return 0;
}

/* Pushes onto b, moving from src to dst, the rank-message pieces of bytes [q1, q2) of node
 * message a -> b; with to_target, each piece goes to its target rank instead of dst (pieces
 * src already targets are left out). */
static int push_range(agg *g, node_pieces *pb, int a, int b, uint64_t q1, uint64_t q2, int src,
                      int dst, int to_target, plan_error *err)
{
    const plan_topo *t = g->t;
    int lb = plan_topo_lanes(t, b);
    size_t n = (size_t)plan_topo_lanes(t, a) * (size_t)lb;
    const uint64_t *pre = g->pre[(size_t)a * (size_t)t->n + (size_t)b];
    size_t lo = 0, hi = n; /* the last message starting at or before q1 */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        *(pre[mid] <= q1 ? &lo : &hi) = mid;
    }
    for (size_t e = lo; e < n && pre[e] < q2; e++) {
        uint64_t s = pre[e] > q1 ? pre[e] : q1, f = pre[e + 1] < q2 ? pre[e + 1] : q2;
        if (f <= s)
            continue;
        int i = plan_topo_rank(t, a, (int)(e / (size_t)lb));
        int j = plan_topo_rank(t, b, (int)(e % (size_t)lb));
        int to = to_target ? j : dst;
        if (to != src && node_pieces_push(pb, src, to, i, j, s - pre[e], f - s, err))
            return -1;
    }
    return 0;
}

/* The index of the holder interval containing byte q of h (q within the message). */
static size_t find_hold(const holds *h, uint64_t q)
{
    size_t lo = 0, hi = h->n;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        *(h->v[mid].start <= q ? &lo : &hi) = mid;
    }
    return lo;
}

/* Makes rank the holder of [q1, q2) of h (a message of M bytes). Returns 0, or -1 (out of
 * memory). */
static int assign(holds *h, uint64_t q1, uint64_t q2, uint64_t M, int32_t rank)
{
    if (h->n + 2 > h->cap) {
        size_t cap = 2 * h->cap + 4;
        hold *v = realloc(h->v, cap * sizeof *v);
        if (!v)
            return -1;
        h->v = v;
        h->cap = cap;
    }
    size_t k = find_hold(h, q1), end = find_hold(h, q2 - 1);
    int32_t after = h->v[end].rank; /* who holds q2 onwards, if q2 starts no interval */
    int keep_left = h->v[k].start < q1;
    size_t first = k + (size_t)keep_left; /* where the new interval goes */
    int tail = q2 < M && (end + 1 == h->n || h->v[end + 1].start > q2);
    size_t rest = end + 1; /* the intervals kept after the range */
    size_t add = 1 + (size_t)tail;
    memmove(h->v + first + add, h->v + rest, (h->n - rest) * sizeof *h->v);
    h->n = first + add + (h->n - rest);
    h->v[first] = (hold){q1, rank};
    if (tail)
        h->v[first + 1] = (hold){q2, after};
    return 0;
}

/* Records that [q1, q2) of node message a -> b reached its target node at rank. Returns 0, or
 * -1 (out of memory). */
static int arrive(agg *g, int a, int b, uint64_t q1, uint64_t q2, int rank)
{
    if (g->narr == g->cap_arr) {
        size_t cap = 2 * g->cap_arr + 16;
        arrival *x = realloc(g->arr, cap * sizeof *x);
        if (!x)
            return -1;
        g->arr = x;
        g->cap_arr = cap;
    }
    g->arr[g->narr++] = (arrival){a, b, rank, q1, q2};
    return 0;
}

/* Plans the lane part [q1, q2) of node message a -> b moving from lane l of node u to lane l
 * of node v, piece by piece of what its holders hold (so every forwarded piece stays within
 * one piece its sender received): the gather to the sending lane (on-node step), the transfer
 * (NIC step), the new holder, and the arrival when v is the target node. cut is scratch for
 * the boundaries. Returns 0, or -1 with err set. */
static int move_part(agg *g, int a, int b, uint64_t q1, uint64_t q2, int u, int v, int l,
                     plan_error *err)
{
    const plan_topo *t = g->t;
    holds *h = &g->hold[(size_t)a * (size_t)t->n + (size_t)b];
    int s = plan_topo_rank(t, u, l), d = plan_topo_rank(t, v, l);
    size_t k0 = find_hold(h, q1), k1 = k0;
    while (k1 < h->n && h->v[k1].start < q2)
        k1++;
    hold *cut = malloc((k1 - k0 + 1) * sizeof *cut); /* the pieces' starts and holders */
    if (!cut)
        return plan_error_set(err, 0, "out of memory expanding a node plan");
    for (size_t k = k0; k < k1; k++)
        cut[k - k0] = (hold){h->v[k].start > q1 ? h->v[k].start : q1, h->v[k].rank};
    cut[k1 - k0] = (hold){q2, -1};
    int rc = 0;
    for (size_t k = 0; k < k1 - k0 && rc == 0; k++) {
        uint64_t h1 = cut[k].start, h2 = cut[k + 1].start;
        if ((cut[k].rank != s &&
             push_range(g, &g->on, a, b, h1, h2, cut[k].rank, s, 0, err)) ||
            push_range(g, &g->nic, a, b, h1, h2, s, d, 0, err) ||
            assign(h, h1, h2, plan_matrix_at(g->nm, a, b), d) ||
            (v == b && arrive(g, a, b, h1, h2, d)))
            rc = plan_error_set(err, 0, "out of memory expanding a node plan");
    }
    free(cut);
    return rc;
}

/* Pushes the scatter of every arrival since the last on-node step (to the on-node step). */
static int scatter(agg *g, plan_error *err)
{
    for (size_t k = 0; k < g->narr; k++) {
        const arrival *x = &g->arr[k];
        if (push_range(g, &g->on, x->a, x->b, x->q1, x->q2, x->rank, 0, 1, err))
            return -1;
    }
    g->narr = 0;
    return 0;
}

/* Appends the on-node step (messages within nodes first when first_step, then the scatter of
 * earlier arrivals) and then the NIC step of node step s (none when s == np->nsteps); empty
 * steps are left out. Returns 0, or -1 with err set. */
static int expand_step(agg *g, const plan *np, size_t s, size_t max_segments, plan *pl,
                       plan_error *err)
{
    const plan_topo *t = g->t;
    if ((s == 0 && node_pieces_on_node(&g->on, g->m, t, err)) || scatter(g, err))
        return -1;
    size_t k1 = s < np->nsteps ? np->step_begin[s + 1] : 0;
    for (size_t k = s < np->nsteps ? np->step_begin[s] : 0; k < k1; k++) {
        const plan_transfer *tr = &np->transfers[k];
        int lanes = plan_topo_lanes(t, tr->src) < plan_topo_lanes(t, tr->dst)
                        ? plan_topo_lanes(t, tr->src) : plan_topo_lanes(t, tr->dst);
        size_t from = g->nic.n;
        for (uint32_t x = 0; x < tr->nsegs; x++) {
            const plan_segment *sg = &np->segments[tr->seg_begin + x];
            for (int l = 0; l < lanes; l++) {
                uint64_t q1 = sg->offset + sg->bytes * (uint64_t)l / (uint64_t)lanes;
                uint64_t q2 = sg->offset + sg->bytes * (uint64_t)(l + 1) / (uint64_t)lanes;
                if (q2 > q1 &&
                    move_part(g, sg->origin, sg->target, q1, q2, tr->src, tr->dst, l, err))
                    return -1;
            }
        }
        node_pieces_sort(&g->nic, from);
    }
    node_pieces_sort(&g->on, 0);
    if (plan_begin_step(pl, err) || node_pieces_emit(pl, &g->on, max_segments, err))
        return -1;
    plan_end_step(pl);
    if (plan_begin_step(pl, err) || node_pieces_emit(pl, &g->nic, max_segments, err))
        return -1;
    plan_end_step(pl);
    return 0;
}

/* Releases what an expansion allocated. */
static void agg_free(agg *g)
{
    size_t nn = (size_t)g->t->n * (size_t)g->t->n;
    for (size_t k = 0; g->pre && k < nn; k++)
        free(g->pre[k]);
    for (size_t k = 0; g->hold && k < nn; k++)
        free(g->hold[k].v);
    free(g->pre);
    free(g->hold);
    free(g->arr);
    node_pieces_free(&g->on);
    node_pieces_free(&g->nic);
}

int plan_node_expand_aggregate(const plan *np, const plan_matrix *m, const plan_matrix *nm,
                               const plan_topo *t, size_t max_segments, plan *pl,
                               plan_error *err)
{
    if (m->p != t->p || nm->p != t->n || np->p != t->n)
        return plan_error_set(err, 0, "node plan of %d nodes, matrix of %d ranks, topology of "
                              "%d ranks on %d nodes", np->p, m->p, t->p, t->n);
    size_t nn = (size_t)t->n * (size_t)t->n;
    agg g = {.m = m, .nm = nm, .t = t};
    g.pre = calloc(nn, sizeof *g.pre);
    g.hold = calloc(nn, sizeof *g.hold);
    int rc = g.pre && g.hold ? 0 : -1;
    for (int a = 0; a < t->n && rc == 0; a++)
        for (int b = 0; b < t->n && rc == 0; b++)
            if (a != b && plan_matrix_at(nm, a, b))
                rc = init_pair(&g, a, b);
    if (rc)
        plan_error_set(err, 0, "out of memory expanding a node plan on %d nodes", t->n);
    if (rc == 0)
        rc = plan_init(pl, m->p, np->algo, np->duplex, err);
    for (size_t s = 0; s <= np->nsteps && rc == 0; s++)
        rc = expand_step(&g, np, s, max_segments, pl, err);
    if (rc && pl->step_begin)
        plan_free(pl);
    agg_free(&g);
    return rc;
}
