/* The matching engine of the direct, stepwise and forward planners (see load_matching.h). The
 * matching is kept maximal (no edge has two free ends) from step to step; a vertex that loses
 * its partner is recorded in `freed` and matched again by refill. Free vertices sit in per-side
 * free lists, so LM_SPREAD scans whichever is shorter, the other side's free list or the
 * vertex's neighbour list; liveness of edges is a bitmap, and emptied edges leave neighbour
 * lists only when a scan meets them. */
#include <stdlib.h>
#include <string.h>

#include "plan/bigmem.h"
#include "plan/load_matching.h"
#include "plan/sort.h"

/* The edge from sender i to receiver j. */
static lm_edge *edge(const lm_graph *g, int i, int j)
{
    return &g->e[(size_t)i * g->p + j];
}

/* The edge between (s, v) and (1 - s, u). */
static lm_edge *edge_of(const lm_graph *g, int s, int v, int u)
{
    return s == LM_SEND ? edge(g, v, u) : edge(g, u, v);
}

/* Whether the edge between (s, v) and (1 - s, u) still has weight. */
static int is_alive(const lm_graph *g, int s, int v, int u)
{
    return (int)(g->alive[s][(size_t)v * g->words + (unsigned)u / 64] >> ((unsigned)u % 64)) & 1;
}

/* Marks the edge sender - receiver alive (on) or empty in both sides' bitmaps. */
static void set_alive(lm_graph *g, int sender, int receiver, int on)
{
    uint64_t *a = &g->alive[LM_SEND][(size_t)sender * g->words + (unsigned)receiver / 64];
    uint64_t *b = &g->alive[LM_RECV][(size_t)receiver * g->words + (unsigned)sender / 64];
    uint64_t ma = (uint64_t)1 << ((unsigned)receiver % 64), mb = (uint64_t)1 << ((unsigned)sender % 64);
    *a = on ? *a | ma : *a & ~ma;
    *b = on ? *b | mb : *b & ~mb;
}

/* Returns the first neighbour of (s, v) at list position *k or later whose edge still has
 * weight, and sets *k to its position; -1 when the list ends before. Emptied edges met on the
 * way are dropped (the list is reordered from *k on), except under LM_HEAVIEST, whose lists
 * keep their order: there only the run of emptied edges at the front is dropped (first). */
static int next_live(lm_graph *g, int s, int v, int *k)
{
    int *list = g->adj[s] + (size_t)v * g->p, sorted = g->policy == LM_HEAVIEST;
    if (sorted && *k < g->first[s][v])
        *k = g->first[s][v];
    while (*k < g->deg[s][v]) {
        if (is_alive(g, s, v, list[*k]))
            return list[*k];
        if (!sorted) {
            list[*k] = list[--g->deg[s][v]];
            continue;
        }
        if (*k == g->first[s][v])
            g->first[s][v]++;
        ++*k;
    }
    return -1;
}

/* The neighbour at list position k of (s, v) if its edge still has weight, after dropping
 * emptied edges as next_live does; -1 when the list ends before (LM_SPREAD's scan; not for
 * the ordered lists of LM_HEAVIEST). */
static int live_neighbour(lm_graph *g, int s, int v, int k)
{
    int at = k, u = next_live(g, s, v, &at);
    return at == k ? u : -1;
}

/* Puts (s, v) in its side's free list if it is unmatched, has load left and is not there. */
static void set_free(lm_graph *g, int s, int v)
{
    if (g->free_pos[s][v] < 0 && g->mate[s][v] < 0 && g->load[s][v] > 0) {
        g->free_pos[s][v] = g->nfree[s];
        g->free_list[s][g->nfree[s]++] = v;
    }
}

/* Takes (s, v) out of its side's free list if it is there. */
static void set_busy(lm_graph *g, int s, int v)
{
    int k = g->free_pos[s][v];
    if (k < 0)
        return;
    int last = g->free_list[s][--g->nfree[s]];
    g->free_list[s][k] = last;
    g->free_pos[s][last] = k;
    g->free_pos[s][v] = -1;
}

/* Matches (s, v) with (1 - s, u); neither is free afterwards. */
static void match(lm_graph *g, int s, int v, int u)
{
    g->mate[s][v] = u;
    g->mate[1 - s][u] = v;
    set_busy(g, s, v);
    set_busy(g, 1 - s, u);
}

/* Leaves (s, v) unmatched (its partner is re-matched or released by the caller) and records it
 * for the next refill. */
static void release(lm_graph *g, int s, int v)
{
    g->mate[s][v] = -1;
    set_free(g, s, v);
    g->freed[g->nfreed++] = s * g->p + v;
}

/* LM_FIRST: matches (s, v) to its first free neighbour in list order. Returns 1 if matched. */
static int match_first(lm_graph *g, int s, int v)
{
    for (int k = 0, u; (u = next_live(g, s, v, &k)) >= 0; k++)
        if (g->mate[1 - s][u] < 0) {
            match(g, s, v, u);
            return 1;
        }
    return 0;
}

/* LM_HEAVIEST: matches (s, v) to the free neighbour with the heaviest edge (ties: the lowest
 * rank). When the other side has few free vertices against (s, v)'s neighbours left, the
 * heaviest of those by current weight; otherwise the first free one of the list, ordered by
 * initial weight (the same choice while edges only ever empty whole, as in stepwise). Busy
 * neighbours passed over are moved, in order, to just before the match and emptied edges met
 * leave the list. Returns 1 if matched. */
static int match_heaviest(lm_graph *g, int s, int v)
{
    int nf = g->nfree[1 - s], f = g->first[s][v], d = g->deg[s][v];
    /* a walk of the list meets a free vertex after about (d - f) / nf entries */
    if (16 * nf < d - f) {
        const int *fl = g->free_list[1 - s];
        int best = -1;
        uint64_t most = 0;
        for (int k = 0; k < nf; k++) {
            int u = fl[k];
            if (!is_alive(g, s, v, u))
                continue;
            uint64_t w = edge_of(g, s, v, u)->left;
            if (best < 0 || w > most || (w == most && u < best)) {
                best = u;
                most = w;
            }
        }
        if (best < 0)
            return 0;
        match(g, s, v, best);
        return 1;
    }
    int *list = g->adj[s] + (size_t)v * g->p, r = f;
    const int *other = g->mate[1 - s];
    while (r < d && !(is_alive(g, s, v, list[r]) && other[list[r]] < 0))
        r++;
    int w = r;
    for (int k = r - 1; k >= f; k--)
        if (is_alive(g, s, v, list[k]))
            list[--w] = list[k];
    g->first[s][v] = w;
    if (r == d)
        return 0;
    match(g, s, v, list[r]);
    return 1;
}

/* LM_SPREAD: matches (s, v) to a free neighbour, scanning from a position that rotates with the
 * step; it walks whichever is shorter, the other side's free list or (s, v)'s neighbour list.
 * Returns 1 if matched. */
static int match_spread(lm_graph *g, int s, int v)
{
    int nf = g->nfree[1 - s];
    if (nf < g->deg[s][v]) {
        const int *fl = g->free_list[1 - s];
        int start = (int)((g->step + (uint64_t)v) % (uint64_t)nf);
        for (int pass = 0; pass < 2; pass++)
            for (int k = pass ? 0 : start, end = pass ? start : nf; k < end; k++)
                if (is_alive(g, s, v, fl[k])) {
                    match(g, s, v, fl[k]);
                    return 1;
                }
        return 0;
    }
    const int *list = g->adj[s] + (size_t)v * g->p;
    const int *other = g->mate[1 - s];
    int start = (int)((g->step + (uint64_t)v) % (uint64_t)g->deg[s][v]);
    for (int pass = 0; pass < 2; pass++)
        for (int k = pass ? 0 : start; k < g->deg[s][v] && (pass == 0 || k < start); k++) {
            /* the cheap test first: emptied edges are dropped only when met as candidates */
            if (other[list[k]] >= 0)
                continue;
            int u = live_neighbour(g, s, v, k);
            if (u < 0)
                break;
            if (other[u] < 0) {
                match(g, s, v, u);
                return 1;
            }
        }
    return 0;
}

/* Matches (s, v), if it is unmatched and has load left, to a free neighbour chosen by the
 * policy. Returns 1 if matched. */
static int match_free_neighbour(lm_graph *g, int s, int v)
{
    if (g->mate[s][v] >= 0 || g->load[s][v] == 0)
        return 0;
    if (g->policy == LM_FIRST) /* scans (and prunes) even when no vertex is free */
        return match_first(g, s, v);
    if (g->nfree[1 - s] == 0)
        return 0;
    return g->policy == LM_HEAVIEST ? match_heaviest(g, s, v) : match_spread(g, s, v);
}

/* Re-matches every vertex released since the last refill where a free neighbour exists, so
 * the matching stays maximal. */
static void refill(lm_graph *g)
{
    for (int k = 0; k < g->nfreed; k++)
        match_free_neighbour(g, g->freed[k] / g->p, g->freed[k] % g->p);
    g->nfreed = 0;
}

/* Matches x - j and flips the alternating path from r to x found by the search (parents in
 * g->parent), so that every vertex on it stays covered. */
static void flip_path(lm_graph *g, int s, int r, int j)
{
    int o = 1 - s;
    while (j >= 0) {
        int xx = g->parent[o][j], prev = g->mate[s][xx];
        match(g, s, xx, j);
        j = xx == r ? -1 : prev;
    }
}

/* Covers the unmatched critical vertex (s, r) (load == top) without uncovering any critical
 * vertex: along an alternating path either to a free vertex of the other side (augmenting) or
 * to a matched non-critical vertex of side s, which is released. Vertices of the other side
 * never lose their partner. Such a path exists whenever a matching covering all critical
 * vertices of side s exists, which the load bound guarantees. Returns 0, or -1 if no path was
 * found (an internal error). */
static int cover(lm_graph *g, int s, int r, uint64_t top)
{
    if (g->policy != LM_FIRST && match_free_neighbour(g, s, r))
        return 0;
    int o = 1 - s, head = 0, tail = 0;
    unsigned stamp = ++g->stamp;
    g->queue[tail++] = r;
    g->seen[s][r] = stamp;
    while (head < tail) {
        int x = g->queue[head++];
        for (int k = 0, j; (j = next_live(g, s, x, &k)) >= 0; k++) {
            if (g->seen[o][j] == stamp)
                continue;
            g->seen[o][j] = stamp;
            g->parent[o][j] = x;
            int y = g->mate[o][j];
            if (y >= 0) {
                if (g->seen[s][y] == stamp)
                    continue;
                g->seen[s][y] = stamp;
                if (g->load[s][y] == top) { /* critical: must stay covered, search on */
                    g->queue[tail++] = y;
                    continue;
                }
                release(g, s, y); /* j is re-matched along the path */
            }
            flip_path(g, s, r, j);
            return 0;
        }
    }
    return -1;
}

int lm_cover_max(lm_graph *g, uint64_t top, int *stuck)
{
    for (int s = 0; s < 2; s++)
        for (int v = 0; v < g->p; v++)
            if (g->load[s][v] == top && g->mate[s][v] < 0 && cover(g, s, v, top)) {
                *stuck = v;
                return -1;
            }
    refill(g);
    return 0;
}

void lm_free(lm_graph *g)
{
    free(g->e);
    free(g->split);
    for (int s = 0; s < 2; s++) {
        free(g->load[s]);
        free(g->adj[s]);
        free(g->deg[s]);
        free(g->first[s]);
        free(g->alive[s]);
        free(g->mate[s]);
        free(g->free_list[s]);
        free(g->free_pos[s]);
        free(g->parent[s]);
        free(g->seen[s]);
    }
    free(g->queue);
    free(g->freed);
    free(g->moves);
    memset(g, 0, sizeof *g);
}

/* Allocates g's arrays for p vertices a side (split too if with_split), zeroing what starts
 * at zero. Returns 0, or -1 (out of memory; g then holds no memory). */
static int allocate(lm_graph *g, int p, int with_split)
{
    size_t pp = (size_t)p * p;
    g->words = ((size_t)p + 63) / 64;
    g->e = malloc(pp * sizeof *g->e);
    g->split = with_split ? malloc(pp * sizeof *g->split) : NULL;
    g->queue = malloc((size_t)p * sizeof *g->queue);
    g->freed = malloc(2 * (size_t)p * sizeof *g->freed);
    g->moves = malloc((size_t)p * sizeof *g->moves);
    int ok = g->e && (g->split || !with_split) && g->queue && g->freed && g->moves;
    for (int s = 0; s < 2; s++) {
        g->load[s] = calloc((size_t)p, sizeof *g->load[s]);
        g->adj[s] = malloc(pp * sizeof *g->adj[s]);
        g->deg[s] = calloc((size_t)p, sizeof *g->deg[s]);
        g->first[s] = calloc((size_t)p, sizeof *g->first[s]);
        g->alive[s] = calloc((size_t)p * g->words, sizeof *g->alive[s]);
        g->mate[s] = malloc((size_t)p * sizeof *g->mate[s]);
        g->free_list[s] = malloc((size_t)p * sizeof *g->free_list[s]);
        g->free_pos[s] = malloc((size_t)p * sizeof *g->free_pos[s]);
        g->parent[s] = malloc((size_t)p * sizeof *g->parent[s]);
        g->seen[s] = calloc((size_t)p, sizeof *g->seen[s]);
        ok = ok && g->load[s] && g->adj[s] && g->deg[s] && g->first[s] && g->alive[s] && g->mate[s] &&
             g->free_list[s] && g->free_pos[s] && g->parent[s] && g->seen[s];
    }
    if (ok)
        return 0;
    lm_free(g);
    return -1;
}

/* LM_HEAVIEST: fills the neighbour lists of g (edges set, degrees zero) with every edge in
 * order of weight, heaviest first, ties in sender-major order. Returns 0, or -1 (out of
 * memory). */
static int fill_heaviest_first(lm_graph *g)
{
    int p = g->p;
    size_t pp = (size_t)p * p;
    plan_sort_list l = {plan_big_alloc(pp * sizeof *l.id), plan_big_alloc(pp * sizeof *l.id),
                        plan_big_alloc(pp * sizeof *l.key), plan_big_alloc(pp * sizeof *l.key), 0};
    int rc = l.id && l.tmp_id && l.key && l.tmp_key && pp <= UINT32_MAX ? 0 : -1;
    for (size_t ij = 0; ij < pp && rc == 0; ij++)
        if (g->e[ij].left) {
            l.id[l.n] = (uint32_t)ij;
            l.key[l.n++] = g->e[ij].left;
        }
    if (rc == 0)
        rc = plan_sort_largest_first(&l);
    for (size_t k = 0; k < l.n && rc == 0; k++) {
        int i = (int)(l.id[k] / (uint32_t)p), j = (int)(l.id[k] % (uint32_t)p);
        g->adj[LM_SEND][(size_t)i * p + g->deg[LM_SEND][i]++] = j;
        g->adj[LM_RECV][(size_t)j * p + g->deg[LM_RECV][j]++] = i;
    }
    free(l.id);
    free(l.tmp_id);
    free(l.key);
    free(l.tmp_key);
    return rc;
}

int lm_init(lm_graph *g, int p, const uint64_t *weight, const uint64_t *split, lm_load load_kind,
            lm_policy policy)
{
    memset(g, 0, sizeof *g);
    g->p = p;
    g->load_kind = load_kind;
    g->policy = policy;
    if (allocate(g, p, split != NULL))
        return -1;
    for (int i = 0; i < p; i++) {
        g->mate[LM_SEND][i] = g->mate[LM_RECV][i] = -1;
        g->free_pos[LM_SEND][i] = g->free_pos[LM_RECV][i] = -1;
        for (int j = 0; j < p; j++) {
            size_t ij = (size_t)i * p + j;
            uint64_t w = i == j ? 0 : weight[ij];
            g->e[ij] = (lm_edge){w, 0};
            if (split)
                g->split[ij] = split[ij];
            if (!w)
                continue;
            set_alive(g, i, j, 1);
            g->load[LM_SEND][i] += load_kind == LM_LOAD_EDGES ? 1 : w;
            g->load[LM_RECV][j] += load_kind == LM_LOAD_EDGES ? 1 : w;
            if (policy == LM_HEAVIEST)
                continue;
            g->adj[LM_SEND][(size_t)i * p + g->deg[LM_SEND][i]++] = j;
            g->adj[LM_RECV][(size_t)j * p + g->deg[LM_RECV][j]++] = i;
        }
    }
    if (policy == LM_HEAVIEST && fill_heaviest_first(g)) {
        lm_free(g);
        return -1;
    }
    for (int s = 0; s < 2; s++)
        for (int v = 0; v < p; v++)
            set_free(g, s, v);
    for (int v = 0; v < p; v++)
        match_free_neighbour(g, LM_SEND, v);
    return 0;
}

uint64_t lm_max_load(const lm_graph *g)
{
    uint64_t top = 0;
    for (int s = 0; s < 2; s++)
        for (int v = 0; v < g->p; v++)
            if (g->load[s][v] > top)
                top = g->load[s][v];
    return top;
}

/* What the edge i - j can move in one step: its weight, or what is left before its split. */
static uint64_t movable(const lm_graph *g, int i, int j)
{
    const lm_edge *e = edge(g, i, j);
    if (g->split) {
        uint64_t cut = g->split[(size_t)i * g->p + j];
        if (e->done < cut)
            return cut - e->done;
    }
    return e->left;
}

uint64_t lm_step_limit(const lm_graph *g, uint64_t top)
{
    uint64_t t = top;
    for (int s = 0; s < 2; s++)
        for (int v = 0; v < g->p; v++) {
            int u = g->mate[s][v], ahead = v + 16;
            /* matched edges sit at random places of a large array: fetch them early */
            if (s == LM_SEND && ahead < g->p && g->mate[LM_SEND][ahead] >= 0)
                __builtin_prefetch(edge(g, ahead, g->mate[LM_SEND][ahead]));
            if (u < 0 && g->load[s][v] > 0 && top - g->load[s][v] < t)
                t = top - g->load[s][v];
            else if (u >= 0 && s == LM_SEND && movable(g, v, u) < t)
                t = movable(g, v, u);
        }
    return t;
}

const lm_move *lm_consume(lm_graph *g, uint64_t t, size_t *nmoves)
{
    size_t n = 0;
    for (int i = 0; i < g->p; i++) {
        int j = g->mate[LM_SEND][i];
        if (j < 0)
            continue;
        lm_edge *ij = edge(g, i, j);
        uint64_t most = movable(g, i, j), b = most < t ? most : t;
        g->moves[n++] = (lm_move){i, j, ij->done, b};
        ij->left -= b;
        ij->done += b;
        uint64_t unit = g->load_kind == LM_LOAD_EDGES ? (ij->left == 0) : b;
        g->load[LM_SEND][i] -= unit;
        g->load[LM_RECV][j] -= unit;
        if (ij->left == 0) {
            set_alive(g, i, j, 0);
            release(g, LM_SEND, i);
            release(g, LM_RECV, j);
        }
    }
    g->step++;
    refill(g);
    *nmoves = n;
    return g->moves;
}
