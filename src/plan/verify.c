/* The plan verifier. It shares nothing with the planners but the plan and matrix types: it
 * replays the plan byte range by byte range and checks where every byte is at every step. */
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"

/* A byte range [start, end) of one message and the rank holding it. */
typedef struct held {
    uint64_t start, end;
    int holder;
} held;

/* One segment in plan order, bucketed by message. */
typedef struct seg_event {
    size_t step;
    int src, dst;
    uint64_t offset, bytes;
} seg_event;

/* A transfer between two nodes: (sending node, receiving node). */
typedef struct node_pair {
    int32_t from, to;
} node_pair;

/* qsort order of node pairs. */
static int pair_order(const void *x, const void *y)
{
    const node_pair *a = x, *b = y;
    if (a->from != b->from)
        return a->from < b->from ? -1 : 1;
    return (a->to > b->to) - (a->to < b->to);
}

/* The NIC rule of node plans: in step s each node sends to at most nic_peers other nodes and
 * receives from at most nic_peers (half duplex: and not both). v is scratch for the step's
 * transfers, stamp for 2 * nnodes entries (s + 1 marks a node sending, then receiving). */
static int check_nic_step(const plan *pl, size_t s, node_pair *v, size_t *stamp,
                          plan_error *err)
{
    size_t n = 0, *sending = stamp, *receiving = stamp + pl->nnodes;
    for (size_t t = pl->step_begin[s]; t < pl->step_begin[s + 1]; t++) {
        int a = pl->node_of[pl->transfers[t].src], b = pl->node_of[pl->transfers[t].dst];
        if (a == b)
            continue;
        v[n++] = (node_pair){a, b};
        sending[a] = receiving[b] = s + 1;
    }
    for (size_t k = 0; pl->duplex == PLAN_DUPLEX_HALF && k < n; k++)
        if (receiving[v[k].from] == s + 1)
            return plan_error_set(err, 0, "step %zu: node %d sends and receives (half duplex)",
                                  s, (int)v[k].from);
    for (int pass = 0; pass < 2; pass++) { /* peers of senders, then of receivers */
        for (size_t k = 0; pass && k < n; k++)
            v[k] = (node_pair){v[k].to, v[k].from};
        qsort(v, n, sizeof *v, pair_order);
        for (size_t k = 0, peers = 0; k < n; k++) {
            peers = k && v[k].from == v[k - 1].from ? peers + (v[k].to != v[k - 1].to) : 1;
            if (peers > pl->nic_peers)
                return plan_error_set(err, 0, "step %zu: node %d %s more than %u other nodes",
                                      s, (int)v[k].from, pass ? "receives from" : "sends to",
                                      (unsigned)pl->nic_peers);
        }
    }
    return 0;
}

/* Checks a node plan's recorded placement and its NIC rule in every step. */
static int check_nics(const plan *pl, plan_error *err)
{
    if (!pl->node_of || pl->nic_peers < 1)
        return plan_error_set(err, 0, "node plan without a placement or NIC rule");
    for (int r = 0; r < pl->p; r++)
        if (pl->node_of[r] < 0 || pl->node_of[r] >= pl->nnodes)
            return plan_error_set(err, 0, "rank %d on node %d of %d", r, (int)pl->node_of[r],
                                  pl->nnodes);
    size_t most = 1;
    for (size_t s = 0; s < pl->nsteps; s++)
        if (pl->step_begin[s + 1] - pl->step_begin[s] > most)
            most = pl->step_begin[s + 1] - pl->step_begin[s];
    node_pair *v = malloc(most * sizeof *v);
    size_t *stamp = calloc(2 * (size_t)pl->nnodes, sizeof *stamp);
    int rc = v && stamp ? 0 : plan_error_set(err, 0, "out of memory verifying");
    for (size_t s = 0; s < pl->nsteps && rc == 0; s++)
        rc = check_nic_step(pl, s, v, stamp, err);
    free(v);
    free(stamp);
    return rc;
}

/* Checks ranks, self-transfers, byte totals and the per-step duplex constraint (for ranks; for
 * nodes in node plans, whose ranks may take part in several transfers of a step). */
static int check_steps(const plan *pl, plan_error *err)
{
    int p = pl->p;
    size_t *sent = calloc((size_t)p, sizeof *sent), *recvd = calloc((size_t)p, sizeof *recvd);
    if (!sent || !recvd) {
        free(sent);
        free(recvd);
        return plan_error_set(err, 0, "out of memory verifying");
    }
    int rc = 0;
    if (pl->step_begin[0] != 0 || pl->step_begin[pl->nsteps] != pl->ntransfers)
        rc = plan_error_set(err, 0, "step table does not cover the transfers");
    for (size_t s = 0; s < pl->nsteps && rc == 0; s++) {
        if (pl->step_begin[s + 1] < pl->step_begin[s])
            rc = plan_error_set(err, 0, "step %zu: negative number of transfers", s);
        for (size_t t = pl->step_begin[s]; t < pl->step_begin[s + 1] && rc == 0; t++) {
            const plan_transfer *tr = &pl->transfers[t];
            if (tr->src < 0 || tr->src >= p || tr->dst < 0 || tr->dst >= p)
                rc = plan_error_set(err, 0, "step %zu: transfer %d -> %d outside %d ranks", s,
                                    tr->src, tr->dst, p);
            else if (tr->src == tr->dst)
                rc = plan_error_set(err, 0, "step %zu: rank %d sends to itself", s, tr->src);
            else if (tr->nsegs == 0 || tr->seg_begin + tr->nsegs > pl->nsegments)
                rc = plan_error_set(err, 0, "step %zu: transfer %d -> %d has bad segments", s,
                                    tr->src, tr->dst);
            if (rc)
                break;
            uint64_t sum = 0;
            for (size_t g = 0; g < tr->nsegs; g++)
                sum += pl->segments[tr->seg_begin + g].bytes;
            if (sum != tr->bytes || sum == 0)
                rc = plan_error_set(err, 0, "step %zu: transfer %d -> %d says %llu bytes, carries %llu",
                                    s, tr->src, tr->dst, (unsigned long long)tr->bytes,
                                    (unsigned long long)sum);
            /* stamps are step + 1 so that zero means "not in this step" */
            int busy_src = sent[tr->src] == s + 1, busy_dst = recvd[tr->dst] == s + 1;
            if (pl->duplex == PLAN_DUPLEX_HALF) {
                busy_src = busy_src || recvd[tr->src] == s + 1;
                busy_dst = busy_dst || sent[tr->dst] == s + 1;
            }
            if (rc == 0 && pl->nnodes == 0 && (busy_src || busy_dst))
                rc = plan_error_set(err, 0, "step %zu: rank %d takes part in two transfers (%s duplex)",
                                    s, busy_src ? tr->src : tr->dst,
                                    pl->duplex == PLAN_DUPLEX_HALF ? "half" : "full");
            sent[tr->src] = s + 1;
            recvd[tr->dst] = s + 1;
        }
    }
    free(sent);
    free(recvd);
    return rc;
}

/* Removes [start, end) from what `holder` holds; it must lie within one held range. */
static int take(held *h, size_t *n, int holder, uint64_t start, uint64_t end)
{
    for (size_t k = 0; k < *n; k++) {
        if (h[k].holder != holder || start < h[k].start || end > h[k].end)
            continue;
        held right = {end, h[k].end, holder};
        h[k].end = start;
        size_t at = k;
        if (h[k].start == h[k].end) { /* left part empty: drop it */
            memmove(h + k, h + k + 1, (*n - k - 1) * sizeof *h);
            (*n)--;
        } else {
            at = k + 1;
        }
        if (right.start < right.end) {
            memmove(h + at + 1, h + at, (*n - at) * sizeof *h);
            h[at] = right;
            (*n)++;
        }
        return 0;
    }
    return -1;
}

/* Gives [start, end) to `holder`, keeping h sorted by start (ranges never overlap because
 * every byte has exactly one holder). */
static void give(held *h, size_t *n, int holder, uint64_t start, uint64_t end)
{
    size_t k = 0;
    while (k < *n && h[k].start < start)
        k++;
    memmove(h + k + 1, h + k, (*n - k) * sizeof *h);
    h[k] = (held){start, end, holder};
    (*n)++;
}

/* Replays the events of the message origin -> target (in step order) and checks that every
 * byte moves from a rank that holds it, is never sent on by its target, and ends at the
 * target. h is scratch for 2 * nev + 1 ranges. */
static int replay(const seg_event *ev, size_t nev, int origin, int target, uint64_t size,
                  held *h, plan_error *err)
{
    size_t n = 0;
    if (size > 0)
        h[n++] = (held){0, size, origin};
    for (size_t a = 0; a < nev;) {
        size_t b = a;
        while (b < nev && ev[b].step == ev[a].step)
            b++;
        for (size_t k = a; k < b; k++) { /* all of a step's sends leave before arrivals */
            const seg_event *e = &ev[k];
            if (e->bytes == 0 || e->offset > size || e->bytes > size - e->offset)
                return plan_error_set(err, 0,
                                      "step %zu: segment [%llu, +%llu) of message %d -> %d is "
                                      "outside its %llu bytes",
                                      e->step, (unsigned long long)e->offset,
                                      (unsigned long long)e->bytes, origin, target,
                                      (unsigned long long)size);
            if (e->src == target)
                return plan_error_set(err, 0, "step %zu: rank %d sends on data already delivered "
                                      "to it (message %d -> %d)", e->step, e->src, origin, target);
            if (take(h, &n, e->src, e->offset, e->offset + e->bytes))
                return plan_error_set(err, 0,
                                      "step %zu: rank %d sends bytes [%llu, %llu) of message "
                                      "%d -> %d that it does not hold",
                                      e->step, e->src, (unsigned long long)e->offset,
                                      (unsigned long long)(e->offset + e->bytes), origin, target);
        }
        for (size_t k = a; k < b; k++)
            give(h, &n, ev[k].dst, ev[k].offset, ev[k].offset + ev[k].bytes);
        a = b;
    }
    for (size_t k = 0; k < n; k++)
        if (h[k].holder != target)
            return plan_error_set(err, 0, "bytes [%llu, %llu) of message %d -> %d end at rank %d, "
                                  "not delivered", (unsigned long long)h[k].start,
                                  (unsigned long long)h[k].end, origin, target, h[k].holder);
    return 0;
}

/* Buckets all segments by message (counting sort, plan order kept) and replays each. */
static int check_delivery(const plan_matrix *m, const plan *pl, plan_error *err)
{
    int p = pl->p;
    size_t pp = (size_t)p * p;
    size_t *first = calloc(pp + 1, sizeof *first);
    seg_event *ev = malloc((pl->nsegments ? pl->nsegments : 1) * sizeof *ev);
    held *h = malloc((2 * pl->nsegments + 1) * sizeof *h);
    int rc = 0;
    if (!first || !ev || !h) {
        rc = plan_error_set(err, 0, "out of memory verifying");
        goto out;
    }
    for (size_t g = 0; g < pl->nsegments && rc == 0; g++) {
        const plan_segment *sg = &pl->segments[g];
        if (sg->origin < 0 || sg->origin >= p || sg->target < 0 || sg->target >= p ||
            sg->origin == sg->target)
            rc = plan_error_set(err, 0, "segment %zu: message %d -> %d is not an off-diagonal "
                                "message of %d ranks", g, sg->origin, sg->target, p);
        else
            first[(size_t)sg->origin * p + sg->target + 1]++;
    }
    if (rc)
        goto out;
    for (size_t k = 0; k < pp; k++)
        first[k + 1] += first[k];
    for (size_t s = 0; s < pl->nsteps; s++)
        for (size_t t = pl->step_begin[s]; t < pl->step_begin[s + 1]; t++) {
            const plan_transfer *tr = &pl->transfers[t];
            for (size_t g = tr->seg_begin; g < tr->seg_begin + tr->nsegs; g++) {
                const plan_segment *sg = &pl->segments[g];
                size_t key = (size_t)sg->origin * p + sg->target;
                ev[first[key]++] = (seg_event){s, tr->src, tr->dst, sg->offset, sg->bytes};
            }
        }
    /* first[key] now ends bucket key; bucket key starts where bucket key - 1 ends */
    for (int o = 0; o < p && rc == 0; o++)
        for (int t = 0; t < p && rc == 0; t++) {
            if (o == t)
                continue;
            size_t key = (size_t)o * p + t, begin = key ? first[key - 1] : 0;
            rc = replay(ev + begin, first[key] - begin, o, t, plan_matrix_at(m, o, t), h, err);
        }
out:
    free(first);
    free(ev);
    free(h);
    return rc;
}

int plan_verify(const plan_matrix *m, const plan *pl, plan_error *err)
{
    if (pl->p != m->p)
        return plan_error_set(err, 0, "plan for %d ranks, matrix of %d", pl->p, m->p);
    if (!pl->step_begin)
        return plan_error_set(err, 0, "plan has no step table");
    if (check_steps(pl, err) || (pl->nnodes > 0 && check_nics(pl, err)))
        return -1;
    return check_delivery(m, pl, err);
}
