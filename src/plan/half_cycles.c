/* The components of one 2-relation of the half-duplex engine - paths, cycles and idle ranks, as
 * the covering matching gives them - and the deferred pieces of odd P (Sec. 2.4 of "How Helpers
 * Hasten h-Relations"): when an odd cycle is left without a partner and no idle rank or path
 * can help it, one edge of a cycle is removed into a matching of deferred pieces. When no edge
 * of a later 2-relation fits beside the deferred pieces, one step sends the smallest deferred
 * size of each (so every such step serves at least p / 4 pieces, Lemma 1). */
#include <string.h>

#include "plan/half_state.h"

void half_build_components(half_state *st)
{
    int p = st->p, nv = 0;
    st->ncomps = 0;
    memset(st->onpath, 0, (size_t)p * sizeof *st->onpath);
    for (int pass = 0; pass < 2; pass++)
        for (int x = 0; x < p; x++) {
            if (st->onpath[x] || (pass == 0 && lm_mate(&st->g, LM_RECV, x) >= 0))
                continue; /* pass 0: starts of paths and idle ranks; pass 1: cycles */
            half_comp *c = &st->comps[st->ncomps++];
            *c = (half_comp){.start = nv, .n = 0, .kind = pass ? K_CYCLE : K_PATH};
            for (int y = x; y >= 0 && !st->onpath[y]; y = lm_mate(&st->g, LM_SEND, y)) {
                st->onpath[y] = 1;
                st->verts[nv] = y;
                st->lk[nv++] = lm_mate(&st->g, LM_SEND, y) >= 0 ? y : -1;
                c->n++;
            }
            if (c->n == 1 && pass == 0)
                c->kind = K_IDLE;
        }
}

/* Turns cycle c into a path by dropping its edge k (the path starts after it). */
static void open_cycle(half_state *st, half_comp *c, int k)
{
    int n = c->n, *verts = st->verts + c->start, *lk = st->lk + c->start;
    /* rotate left by k + 1 (in place, three reversals) */
    int shift = (k + 1) % n;
    for (int pass = 0; pass < 3; pass++) {
        int lo = pass == 0 ? 0 : pass == 1 ? shift : 0, hi = pass == 0 ? shift : n;
        for (int a = lo, b = hi - 1; a < b; a++, b--) {
            int t = verts[a];
            verts[a] = verts[b];
            verts[b] = t;
            t = lk[a];
            lk[a] = lk[b];
            lk[b] = t;
        }
    }
    lk[n - 1] = -1;
    c->kind = K_PATH;
}

void half_orient_cycle(half_state *st, half_comp *c)
{
    int n = c->n, *verts = st->verts + c->start, *lk = st->lk + c->start;
    if (st->links[lk[n - 1]].src == verts[n - 1])
        return;
    /* reverse the ranks; the edge between new k and k + 1 was old n - 2 - k */
    for (int a = 0, b = n - 1; a < b; a++, b--) {
        int t = verts[a];
        verts[a] = verts[b];
        verts[b] = t;
    }
    for (int a = 0, b = n - 2; a < b; a++, b--) {
        int t = lk[a];
        lk[a] = lk[b];
        lk[b] = t;
    }
}

int half_flush_debts(half_state *st, plan *pl, uint64_t tau, plan_error *err)
{
    if (st->ndebts == 0)
        return 0;
    if (plan_begin_step(pl, err))
        return -1;
    int kept = 0;
    for (int d = 0; d < st->ndebts; d++) {
        half_debt *b = &st->debts[d];
        uint64_t n = tau && tau < b->left ? tau : b->left;
        if (half_emit(pl, b->origin, b->target, b->origin, b->target, b->off, b->off + n, err))
            return -1;
        b->off += n;
        b->left -= n;
        if (b->left)
            st->debts[kept++] = *b;
        else
            st->busy[b->origin] = st->busy[b->target] = 0;
    }
    st->ndebts = kept;
    plan_end_step(pl);
    return 0;
}

half_comp *half_defer_edge(half_state *st, plan *pl, plan_error *err)
{
    for (;;) {
        for (int want_odd = 1; want_odd >= 0; want_odd--)
            for (int ci = 0; ci < st->ncomps; ci++) {
                half_comp *c = &st->comps[ci];
                if (c->kind != K_CYCLE || c->n % 2 != want_odd)
                    continue;
                for (int k = 0; k < c->n; k++) {
                    int a = st->verts[c->start + k], b = st->verts[c->start + (k + 1) % c->n];
                    if (st->busy[a] || st->busy[b])
                        continue;
                    const half_link *l = &st->links[st->lk[c->start + k]];
                    st->debts[st->ndebts++] = (half_debt){l->src, l->dst, l->lo, l->hi - l->lo};
                    st->busy[a] = st->busy[b] = 1;
                    open_cycle(st, c, k);
                    return c;
                }
            }
        uint64_t tau = UINT64_MAX;
        for (int d = 0; d < st->ndebts; d++)
            tau = st->debts[d].left < tau ? st->debts[d].left : tau;
        if (st->ndebts == 0 || half_flush_debts(st, pl, tau, err)) {
            if (st->ndebts == 0)
                plan_error_set(err, 0, "internal error: no edge to defer");
            return NULL;
        }
    }
}

half_comp *half_pick_helper(half_state *st)
{
    half_comp *best = NULL;
    int best_rank = 4;
    for (int ci = 0; ci < st->ncomps; ci++) {
        half_comp *c = &st->comps[ci];
        int r = c->kind == K_IDLE ? 0 : c->kind != K_PATH ? 4 : c->n % 2 ? 1 : c->n >= 4 ? 2 : 3;
        if (r < best_rank) {
            best_rank = r;
            best = c;
        }
    }
    return best;
}

int half_needs_deferral(half_state *st)
{
    int nodd = 0;
    for (int ci = 0; ci < st->ncomps; ci++)
        nodd += half_full_odd(&st->comps[ci]);
    return nodd % 2 && !half_pick_helper(st);
}
