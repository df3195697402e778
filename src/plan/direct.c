/* The direct schedule: a weighted bipartite decomposition of the transfer matrix into
 * matchings (Sanders–Solis-Oba Sec. 3 super-packets; Desprez et al.'s stepwise strategy with
 * weights). Senders are side 0, receivers side 1 of a bipartite graph whose edge (i, j) weighs
 * the bytes i still has to send to j. Each step takes a matching that covers every vertex whose
 * remaining load equals the current maximum L and moves t bytes over each matched edge, where t
 * is the smallest matched weight and no uncovered vertex may end above L - t. So L falls by
 * exactly t per step (bandwidth term == lower bound), and every step either empties an edge or
 * makes one more vertex critical for good (steps <= edges + 2P). */
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"

enum { SEND = 0, RECV = 1 };

/* What remains of one message and what of it is scheduled already (kept together: one cache
 * line per matched edge and step). */
typedef struct edge_bytes {
    uint64_t left, done;
} edge_bytes;

/* Planner state. Vertex v of side s is (s, v); its neighbours are vertices of side 1 - s. */
typedef struct direct_state {
    int p;
    int by_messages;   /* 0: load counts bytes (direct); 1: messages (stepwise) */
    edge_bytes *e;     /* p * p, sender-major */
    uint64_t *load[2]; /* remaining bytes per vertex */
    int *adj[2];       /* adj[s][v * p + k]: k-th neighbour of (s, v); emptied edges are
                          dropped lazily, when a scan meets them */
    int *deg[2];       /* length of the neighbour list */
    uint64_t *alive[2]; /* alive[s]: bit u of row v set while edge (s, v)-(1 - s, u) has bytes;
                           a compact mirror of w > 0 that stays in cache */
    size_t words;       /* 64-bit words per row of alive */
    int *mate[2];      /* matched partner or -1 */
    int *free_list[2]; /* the unmatched vertices that still have bytes, in any order */
    int *free_pos[2];  /* index in free_list, or -1 */
    int nfree[2];
    /* breadth-first search scratch */
    int *queue;        /* vertices of the searching side */
    int *parent[2];    /* vertex through which a vertex was reached */
    unsigned *seen[2]; /* search stamp when reached */
    unsigned stamp;
    int *freed;        /* vertices (encoded s * p + v) left unmatched by the last step */
    int nfreed;
    uint64_t step;
} direct_state;

/* The message from sender i to receiver j. */
static edge_bytes *edge(const direct_state *st, int i, int j)
{
    return &st->e[(size_t)i * st->p + j];
}

/* Whether the edge between (s, v) and (1 - s, u) still has bytes. */
static int is_alive(const direct_state *st, int s, int v, int u)
{
    return (int)(st->alive[s][(size_t)v * st->words + (unsigned)u / 64] >> ((unsigned)u % 64)) & 1;
}

static void set_alive(direct_state *st, int sender, int receiver, int on)
{
    uint64_t *a = &st->alive[SEND][(size_t)sender * st->words + (unsigned)receiver / 64];
    uint64_t *b = &st->alive[RECV][(size_t)receiver * st->words + (unsigned)sender / 64];
    uint64_t ma = (uint64_t)1 << ((unsigned)receiver % 64), mb = (uint64_t)1 << ((unsigned)sender % 64);
    *a = on ? *a | ma : *a & ~ma;
    *b = on ? *b | mb : *b & ~mb;
}

/* Returns the k-th neighbour of (s, v) whose edge still has bytes, dropping emptied edges met
 * on the way (the list is reordered from position k on); -1 when the list ends before. */
static int live_neighbour(direct_state *st, int s, int v, int k)
{
    int *list = st->adj[s] + (size_t)v * st->p;
    while (k < st->deg[s][v]) {
        if (is_alive(st, s, v, list[k]))
            return list[k];
        list[k] = list[--st->deg[s][v]];
    }
    return -1;
}

/* Puts (s, v) in its side's free list if it is unmatched, has bytes left and is not there. */
static void set_free(direct_state *st, int s, int v)
{
    if (st->free_pos[s][v] < 0 && st->mate[s][v] < 0 && st->load[s][v] > 0) {
        st->free_pos[s][v] = st->nfree[s];
        st->free_list[s][st->nfree[s]++] = v;
    }
}

/* Takes (s, v) out of its side's free list if it is there. */
static void set_busy(direct_state *st, int s, int v)
{
    int k = st->free_pos[s][v];
    if (k < 0)
        return;
    int last = st->free_list[s][--st->nfree[s]];
    st->free_list[s][k] = last;
    st->free_pos[s][last] = k;
    st->free_pos[s][v] = -1;
}

static void match(direct_state *st, int s, int v, int u)
{
    st->mate[s][v] = u;
    st->mate[1 - s][u] = v;
    set_busy(st, s, v);
    set_busy(st, 1 - s, u);
}

/* Leaves (s, v) unmatched (its partner is re-matched or released by the caller). */
static void unmatch(direct_state *st, int s, int v)
{
    st->mate[s][v] = -1;
    set_free(st, s, v);
}

/* Matches (s, v), if free and loaded, to the free neighbour with the most bytes left (ties:
 * the first met). Returns 1 if matched. */
static int match_heaviest_neighbour(direct_state *st, int s, int v)
{
    int best = -1;
    uint64_t most = 0;
    const int *other = st->mate[1 - s];
    for (int k = 0, u; (u = live_neighbour(st, s, v, k)) >= 0; k++) {
        uint64_t b = s == SEND ? edge(st, v, u)->left : edge(st, u, v)->left;
        if (other[u] < 0 && b > most) {
            most = b;
            best = u;
        }
    }
    if (best < 0)
        return 0;
    match(st, s, v, best);
    return 1;
}

/* Matches (s, v), if free and loaded, to a free neighbour, scanning from a position that
 * rotates with the step so that rebuilt matchings spread over the graph; it walks whichever
 * is shorter, the other side's free list or (s, v)'s neighbour list. Returns 1 if matched. */
static int match_free_neighbour(direct_state *st, int s, int v)
{
    if (st->mate[s][v] >= 0 || st->load[s][v] == 0 || st->nfree[1 - s] == 0)
        return 0;
    if (st->by_messages)
        return match_heaviest_neighbour(st, s, v);
    int nf = st->nfree[1 - s];
    if (nf < st->deg[s][v]) {
        const int *fl = st->free_list[1 - s];
        int start = (int)((st->step + (uint64_t)v) % (uint64_t)nf);
        for (int pass = 0; pass < 2; pass++)
            for (int k = pass ? 0 : start, end = pass ? start : nf; k < end; k++)
                if (is_alive(st, s, v, fl[k])) {
                    match(st, s, v, fl[k]);
                    return 1;
                }
        return 0;
    }
    const int *list = st->adj[s] + (size_t)v * st->p;
    const int *other = st->mate[1 - s];
    int start = (int)((st->step + (uint64_t)v) % (uint64_t)st->deg[s][v]);
    for (int pass = 0; pass < 2; pass++)
        for (int k = pass ? 0 : start; k < st->deg[s][v] && (pass == 0 || k < start); k++) {
            /* the cheap test first: emptied edges are dropped only when met as candidates */
            if (other[list[k]] >= 0)
                continue;
            int u = live_neighbour(st, s, v, k);
            if (u < 0)
                break;
            if (other[u] < 0) {
                match(st, s, v, u);
                return 1;
            }
        }
    return 0;
}

/* Covers the unmatched critical vertex (s, r) (load == L) without uncovering any critical
 * vertex: along an alternating path either to a free vertex of the other side (augmenting) or
 * to a matched non-critical vertex of side s, which is released. Such a path exists whenever a
 * matching covering all critical vertices of side s exists, which the load bound guarantees.
 * Returns 0, or -1 if no path was found (an internal error). */
static int cover(direct_state *st, int s, int r, uint64_t L)
{
    if (match_free_neighbour(st, s, r))
        return 0;
    int o = 1 - s, head = 0, tail = 0;
    unsigned stamp = ++st->stamp;
    st->queue[tail++] = r;
    st->seen[s][r] = stamp;
    while (head < tail) {
        int x = st->queue[head++];
        for (int k = 0, j; (j = live_neighbour(st, s, x, k)) >= 0; k++) {
            if (st->seen[o][j] == stamp)
                continue;
            st->seen[o][j] = stamp;
            st->parent[o][j] = x;
            int y = st->mate[o][j];
            if (y >= 0) {
                if (st->seen[s][y] == stamp)
                    continue;
                st->seen[s][y] = stamp;
                if (st->load[s][y] == L) { /* critical: must stay covered, search on */
                    st->queue[tail++] = y;
                    continue;
                }
                unmatch(st, s, y); /* released; j is re-matched below */
                st->freed[st->nfreed++] = s * st->p + y;
            }
            /* flip the path r ... x - j: every vertex on it stays covered */
            while (j >= 0) {
                int xx = st->parent[o][j], prev = st->mate[s][xx];
                match(st, s, xx, j);
                j = xx == r ? -1 : prev;
            }
            return 0;
        }
    }
    return -1;
}

/* Frees the planner state. */
static void state_free(direct_state *st)
{
    free(st->e);
    for (int s = 0; s < 2; s++) {
        free(st->load[s]);
        free(st->adj[s]);
        free(st->deg[s]);
        free(st->alive[s]);
        free(st->mate[s]);
        free(st->free_list[s]);
        free(st->free_pos[s]);
        free(st->parent[s]);
        free(st->seen[s]);
    }
    free(st->queue);
    free(st->freed);
}

/* Allocates and fills the state from m; loads count messages if by_messages, else bytes.
 * Returns 0 or -1 (out of memory). */
static int state_init(direct_state *st, const plan_matrix *m, int by_messages)
{
    int p = m->p;
    size_t pp = (size_t)p * p;
    memset(st, 0, sizeof *st);
    st->p = p;
    st->by_messages = by_messages;
    st->words = ((size_t)p + 63) / 64;
    st->e = malloc(pp * sizeof *st->e);
    st->queue = malloc((size_t)p * sizeof *st->queue);
    st->freed = malloc(2 * (size_t)p * sizeof *st->freed);
    int ok = st->e && st->queue && st->freed;
    for (int s = 0; s < 2; s++) {
        st->load[s] = calloc((size_t)p, sizeof *st->load[s]);
        st->adj[s] = malloc(pp * sizeof *st->adj[s]);
        st->deg[s] = calloc((size_t)p, sizeof *st->deg[s]);
        st->alive[s] = calloc((size_t)p * st->words, sizeof *st->alive[s]);
        st->mate[s] = malloc((size_t)p * sizeof *st->mate[s]);
        st->free_list[s] = malloc((size_t)p * sizeof *st->free_list[s]);
        st->free_pos[s] = malloc((size_t)p * sizeof *st->free_pos[s]);
        st->parent[s] = malloc((size_t)p * sizeof *st->parent[s]);
        st->seen[s] = calloc((size_t)p, sizeof *st->seen[s]);
        ok = ok && st->load[s] && st->adj[s] && st->deg[s] && st->alive[s] && st->mate[s] &&
             st->free_list[s] && st->free_pos[s] && st->parent[s] && st->seen[s];
    }
    if (!ok) {
        state_free(st);
        return -1;
    }
    for (int i = 0; i < p; i++) {
        st->mate[SEND][i] = st->mate[RECV][i] = -1;
        st->free_pos[SEND][i] = st->free_pos[RECV][i] = -1;
        for (int j = 0; j < p; j++) {
            uint64_t b = i == j ? 0 : plan_matrix_at(m, i, j);
            *edge(st, i, j) = (edge_bytes){b, 0};
            if (!b)
                continue;
            set_alive(st, i, j, 1);
            st->load[SEND][i] += by_messages ? 1 : b;
            st->load[RECV][j] += by_messages ? 1 : b;
            st->adj[SEND][(size_t)i * p + st->deg[SEND][i]++] = j;
            st->adj[RECV][(size_t)j * p + st->deg[RECV][j]++] = i;
        }
    }
    for (int s = 0; s < 2; s++)
        for (int v = 0; v < p; v++)
            set_free(st, s, v);
    return 0;
}

/* The largest remaining load of any vertex. */
static uint64_t max_load(const direct_state *st)
{
    uint64_t L = 0;
    for (int s = 0; s < 2; s++)
        for (int v = 0; v < st->p; v++)
            if (st->load[s][v] > L)
                L = st->load[s][v];
    return L;
}

/* Bytes every matched edge moves in this step: the smallest matched weight, limited so that no
 * uncovered vertex ends above the new maximum, then raised to min_step (capped per edge by
 * the edge's remaining weight when the step is emitted). */
static uint64_t step_bytes(const direct_state *st, uint64_t L, uint64_t min_step)
{
    if (st->by_messages) /* every matched message goes whole; degrees fall by one */
        return UINT64_MAX;
    uint64_t t = L;
    for (int s = 0; s < 2; s++)
        for (int v = 0; v < st->p; v++) {
            int u = st->mate[s][v], ahead = v + 16;
            /* matched messages sit at random places of a large array: fetch them early */
            if (s == SEND && ahead < st->p && st->mate[SEND][ahead] >= 0)
                __builtin_prefetch(edge(st, ahead, st->mate[SEND][ahead]));
            if (u < 0 && st->load[s][v] > 0 && L - st->load[s][v] < t)
                t = L - st->load[s][v];
            else if (u >= 0 && s == SEND && edge(st, v, u)->left < t)
                t = edge(st, v, u)->left;
        }
    return t < min_step ? min_step : t;
}

/* Emits the step moving up to t bytes over every matched edge and updates loads, edges and
 * the matching; releases emptied edges' endpoints into st->freed. Returns 0 or -1 (memory). */
static int emit_step(direct_state *st, plan *pl, uint64_t t, plan_error *err)
{
    if (plan_begin_step(pl, err))
        return -1;
    for (int i = 0; i < st->p; i++) {
        int j = st->mate[SEND][i];
        if (j < 0)
            continue;
        edge_bytes *ij = edge(st, i, j);
        uint64_t b = ij->left < t ? ij->left : t;
        if (plan_add_transfer(pl, i, j, err) || plan_add_segment(pl, i, j, ij->done, b, err))
            return -1;
        ij->left -= b;
        ij->done += b;
        uint64_t unit = st->by_messages ? (ij->left == 0) : b;
        st->load[SEND][i] -= unit;
        st->load[RECV][j] -= unit;
        if (ij->left == 0) {
            set_alive(st, i, j, 0);
            unmatch(st, SEND, i);
            unmatch(st, RECV, j);
            st->freed[st->nfreed++] = SEND * st->p + i;
            st->freed[st->nfreed++] = RECV * st->p + j;
        }
    }
    st->step++;
    return 0;
}

/* Re-matches every vertex released by the last step or search where a free neighbour exists,
 * so the matching stays maximal (no edge has two free ends). */
static void refill(direct_state *st)
{
    for (int k = 0; k < st->nfreed; k++) {
        int s = st->freed[k] / st->p, v = st->freed[k] % st->p;
        match_free_neighbour(st, s, v);
    }
    st->nfreed = 0;
}

/* The decomposition behind plan_direct (loads in bytes) and plan_stepwise (loads in
 * messages, whole messages per step). */
static int decompose(const plan_matrix *m, int by_messages, uint64_t min_step,
                     size_t max_segments, plan_algo algo, plan *pl, plan_error *err)
{
    direct_state st;
    if (state_init(&st, m, by_messages))
        return plan_error_set(err, 0, "out of memory planning %d ranks", m->p);
    if (plan_init(pl, m->p, algo, PLAN_DUPLEX_FULL, err)) {
        state_free(&st);
        return -1;
    }
    pl->min_step_bytes = min_step;
    /* every message is at least one transfer of one segment */
    size_t nnz = plan_matrix_messages(m);
    if (plan_reserve(pl, nnz, nnz, err)) {
        plan_free(pl);
        state_free(&st);
        return -1;
    }
    for (int v = 0; v < st.p; v++)
        match_free_neighbour(&st, SEND, v);
    int rc = 0;
    for (uint64_t L = max_load(&st); L > 0 && rc == 0; L = max_load(&st)) {
        for (int s = 0; s < 2 && rc == 0; s++)
            for (int v = 0; v < st.p && rc == 0; v++)
                if (st.load[s][v] == L && st.mate[s][v] < 0 && cover(&st, s, v, L))
                    rc = plan_error_set(err, 0, "internal error: no matching covers rank %d", v);
        refill(&st);
        if (rc == 0)
            rc = emit_step(&st, pl, step_bytes(&st, L, min_step), err);
        if (rc == 0 && max_segments && pl->nsegments > max_segments)
            rc = plan_error_set(err, 0, "the plan would exceed %zu segments", max_segments);
        refill(&st);
    }
    state_free(&st);
    if (rc)
        plan_free(pl);
    return rc;
}

int plan_direct(const plan_matrix *m, const plan_direct_opts *opts, plan *pl, plan_error *err)
{
    if (plan_matrix_is_uniform(m, NULL))
        return plan_regular(m, PLAN_DUPLEX_FULL, PLAN_ALGO_DIRECT, pl, err);
    return decompose(m, 0, opts ? opts->min_step_bytes : 0, opts ? opts->max_segments : 0,
                     PLAN_ALGO_DIRECT, pl, err);
}

int plan_stepwise(const plan_matrix *m, plan *pl, plan_error *err)
{
    return decompose(m, 1, 0, 0, PLAN_ALGO_STEPWISE, pl, err);
}
