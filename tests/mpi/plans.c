/* Random plans for the exec test (see plans.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plans.h"

/* Aborts on a failure of the plan builder (see plans.h). */
void tp_need(int cond, const char *what, const plan_error *err)
{
    if (!cond) {
        fprintf(stderr, "FAIL: %s: %s\n", what, err ? err->text : "");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* One message and its cut points: piece k is [cut[k], cut[k + 1]). */
typedef struct msg_cuts {
    int src, dst;
    int npieces, next; /* pieces, and the next one to schedule (tp_random_direct) */
    uint64_t cut[6];
} msg_cuts;

/* Cuts message i -> j of b > 0 bytes into 1..5 pieces at distinct random offsets. */
static void cut_message(tl_rng *rng, int i, int j, uint64_t b, msg_cuts *s)
{
    s->src = i;
    s->dst = j;
    s->next = 0;
    int want = 1 + tl_below(rng, 5), n = 1;
    s->cut[0] = 0;
    for (int k = 1; k < want && (uint64_t)k < b; k++) {
        uint64_t c = 1 + tl_next(rng) % (b - 1);
        int dup = 0;
        for (int q = 0; q < n; q++)
            dup |= s->cut[q] == c;
        if (!dup)
            s->cut[n++] = c;
    }
    for (int a = 1; a < n; a++) /* insertion sort */
        for (int q = a; q > 0 && s->cut[q - 1] > s->cut[q]; q--) {
            uint64_t t = s->cut[q];
            s->cut[q] = s->cut[q - 1];
            s->cut[q - 1] = t;
        }
    s->cut[n] = b;
    s->npieces = n;
}

/* The off-diagonal non-empty messages of m, cut at random; *n receives how many. */
static msg_cuts *cut_all(const plan_matrix *m, tl_rng *rng, int *n)
{
    int p = m->p;
    msg_cuts *msgs = malloc(((size_t)p * p + 1) * sizeof *msgs);
    *n = 0;
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++)
            if (i != j && plan_matrix_at(m, i, j) > 0)
                cut_message(rng, i, j, plan_matrix_at(m, i, j), &msgs[(*n)++]);
    return msgs;
}

/* Random direct plan (see plans.h). */
void tp_random_direct(const plan_matrix *m, tl_rng *rng, plan *pl)
{
    int p = m->p, nmsg;
    plan_error err;
    msg_cuts *msgs = cut_all(m, rng, &nmsg);

    tp_need(plan_init(pl, p, PLAN_ALGO_DIRECT, PLAN_DUPLEX_FULL, &err) == 0, "plan_init", &err);
    char *sending = calloc((size_t)p, 1), *receiving = calloc((size_t)p, 1);
    int left = nmsg, open = 0;
    while (left > 0) {
        int k = tl_below(rng, nmsg);
        while (msgs[k].next == msgs[k].npieces)
            k = (k + 1) % nmsg;
        msg_cuts *s = &msgs[k];
        if (!open || sending[s->src] || receiving[s->dst] || tl_below(rng, 4) == 0) {
            if (open)
                plan_end_step(pl);
            tp_need(plan_begin_step(pl, &err) == 0, "plan_begin_step", &err);
            memset(sending, 0, (size_t)p);
            memset(receiving, 0, (size_t)p);
            open = 1;
        }
        sending[s->src] = receiving[s->dst] = 1;
        tp_need(plan_add_transfer(pl, s->src, s->dst, &err) == 0, "plan_add_transfer", &err);
        int take = 1 + tl_below(rng, 2);
        for (int t = 0; t < take && s->next < s->npieces; t++, s->next++)
            tp_need(plan_add_segment(pl, s->src, s->dst, s->cut[s->next],
                                     s->cut[s->next + 1] - s->cut[s->next], &err) == 0,
                    "plan_add_segment", &err);
        left -= s->next == s->npieces;
    }
    if (open)
        plan_end_step(pl);
    tp_need(plan_verify(m, pl, &err) == 0, "plan_verify of the random direct plan", &err);
    free(sending);
    free(receiving);
    free(msgs);
}

/* A piece on its way: [off, off + len) of message origin -> target, going through `via` (-1:
 * directly), at hop `hop` (0: at its origin, 1: at via, 2: delivered), movable from step
 * `ready` on. */
typedef struct route {
    int origin, target, via, hop;
    uint64_t off, len;
    size_t ready;
    uint64_t order; /* scheduling priority: larger offsets first, ties at random */
} route;

/* Orders routes by decreasing priority. */
static int cmp_route(const void *a, const void *b)
{
    const route *x = a, *y = b;
    return x->order > y->order ? -1 : x->order < y->order;
}

/* The routes of every piece of every message. */
static route *make_routes(const plan_matrix *m, tl_rng *rng, size_t *n)
{
    int p = m->p, nmsg;
    msg_cuts *msgs = cut_all(m, rng, &nmsg);
    route *r = malloc(((size_t)nmsg * 5 + 1) * sizeof *r);
    *n = 0;
    for (int k = 0; k < nmsg; k++)
        for (int q = 0; q < msgs[k].npieces; q++) {
            route *x = &r[(*n)++];
            x->origin = msgs[k].src;
            x->target = msgs[k].dst;
            x->off = msgs[k].cut[q];
            x->len = msgs[k].cut[q + 1] - msgs[k].cut[q];
            x->via = -1;
            if (p >= 3 && tl_below(rng, 4) != 0)
                do
                    x->via = tl_below(rng, p);
                while (x->via == x->origin || x->via == x->target);
            x->hop = 0;
            x->ready = 0;
            x->order = (x->off << 16) | (uint64_t)tl_below(rng, 1 << 16);
        }
    free(msgs);
    qsort(r, *n, sizeof *r, cmp_route);
    return r;
}

/* One transfer being assembled for the current step: its routes (indices into the route list). */
typedef struct group {
    int src, dst;
    size_t n;
    size_t *route;
} group;

/* Emits the groups of a step as transfers, each one's segments in random order. */
static void emit_step(plan *pl, group *g, size_t ng, const route *r, tl_rng *rng)
{
    plan_error err;
    tp_need(plan_begin_step(pl, &err) == 0, "plan_begin_step", &err);
    for (size_t k = 0; k < ng; k++) {
        tp_need(plan_add_transfer(pl, g[k].src, g[k].dst, &err) == 0, "plan_add_transfer", &err);
        for (size_t a = g[k].n; a > 1; a--) { /* shuffle */
            size_t b = (size_t)tl_below(rng, (int)a), t = g[k].route[a - 1];
            g[k].route[a - 1] = g[k].route[b];
            g[k].route[b] = t;
        }
        for (size_t a = 0; a < g[k].n; a++) {
            const route *x = &r[g[k].route[a]];
            tp_need(plan_add_segment(pl, x->origin, x->target, x->off, x->len, &err) == 0,
                    "plan_add_segment", &err);
        }
    }
    plan_end_step(pl);
}

/* Gives every group of the step its routes: chosen[k] is the group of route k or -1;
 * slots receives the route indices group by group. */
static void fill_groups(group *g, size_t ng, const int *chosen, size_t n, size_t *slots)
{
    size_t at = 0;
    for (size_t q = 0; q < ng; q++) {
        g[q].route = slots + at;
        at += g[q].n;
        g[q].n = 0;
    }
    for (size_t k = 0; k < n; k++)
        if (chosen[k] >= 0) {
            group *x = &g[chosen[k]];
            x->route[x->n++] = k;
        }
}

/* Random forwarding plan (see plans.h). */
void tp_random_forward(const plan_matrix *m, tl_rng *rng, plan_duplex duplex, plan *pl)
{
    int p = m->p;
    size_t n, left;
    plan_error err;
    route *r = make_routes(m, rng, &n);
    group *g = malloc(((size_t)p * p + 1) * sizeof *g);
    size_t *slots = malloc((n + 1) * sizeof *slots);
    int *chosen = malloc((n + 1) * sizeof *chosen);
    char *sends = calloc((size_t)p, 1), *recvs = calloc((size_t)p, 1);

    tp_need(plan_init(pl, p, PLAN_ALGO_DIRECT, duplex, &err) == 0, "plan_init", &err);
    left = n;
    for (size_t step = 0; left > 0; step++) {
        size_t ng = 0;
        memset(sends, 0, (size_t)p);
        memset(recvs, 0, (size_t)p);
        for (size_t k = 0; k < n; k++) {
            route *x = &r[k];
            chosen[k] = -1;
            if (x->hop == 2 || x->ready > step || (ng > 0 && tl_below(rng, 5) == 0))
                continue;
            int src = x->hop == 0 ? x->origin : x->via;
            int dst = x->hop == 0 && x->via >= 0 ? x->via : x->target;
            size_t at = 0;
            while (at < ng && (g[at].src != src || g[at].dst != dst))
                at++;
            if (at == ng) { /* a new transfer: src and dst must be free in this step */
                int busy = sends[src] || recvs[dst];
                if (duplex == PLAN_DUPLEX_HALF)
                    busy = busy || recvs[src] || sends[dst];
                if (busy)
                    continue;
                sends[src] = recvs[dst] = 1;
                g[ng++] = (group){src, dst, 0, NULL};
            }
            g[at].n++;
            chosen[k] = (int)at;
            x->hop = dst == x->target ? 2 : 1;
            x->ready = step + 1;
            left -= x->hop == 2;
        }
        fill_groups(g, ng, chosen, n, slots);
        emit_step(pl, g, ng, r, rng);
    }
    tp_need(plan_verify(m, pl, &err) == 0, "plan_verify of the random forwarding plan", &err);
    free(sends);
    free(recvs);
    free(chosen);
    free(slots);
    free(g);
    free(r);
}

/* Replays a rank's forwarding peak (see plans.h). */
uint64_t tp_forward_peak(const plan *pl, int rank)
{
    uint64_t held = 0, peak = 0;
    for (size_t s = 0; s < pl->nsteps; s++) {
        uint64_t in = 0, out = 0;
        for (size_t t = pl->step_begin[s]; t < pl->step_begin[s + 1]; t++) {
            const plan_transfer *tr = &pl->transfers[t];
            for (size_t g = tr->seg_begin; g < tr->seg_begin + tr->nsegs; g++) {
                const plan_segment *sg = &pl->segments[g];
                if (tr->dst == rank && sg->target != rank)
                    in += sg->bytes;
                if (tr->src == rank && sg->origin != rank)
                    out += sg->bytes;
            }
        }
        held += in;
        if (held > peak)
            peak = held;
        held -= out;
    }
    return peak;
}
