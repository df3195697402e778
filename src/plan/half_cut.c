/* The half-duplex engine's input (Sec. 2.1 of "How Helpers Hasten h-Relations"): messages are
 * counted in packets of S bytes; the odd packets of all messages form a multigraph, dummy edges
 * pair its odd-degree ranks, and walking closed trails orients it so that every rank has as
 * many odd packets leaving as entering. Every message i -> j is then cut into two contiguous
 * parts: the first half of its packets (with the odd packet if it was oriented i -> j) on the
 * edge L_i - R_j of a bipartite graph, the rest on L_j - R_i, so that every rank's copies L_i
 * and R_i carry at most ceil(h_i / 2) packets (h_i: the packets rank i sends and receives).
 * The parts' weights, in grains, feed the matching engine of plan/load_matching.c. */
#include <stdlib.h>
#include <string.h>

#include "plan/half_state.h"

/* ceil(a / b) without overflow. */
static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

/* Packets of a message of `bytes` bytes: packets of S bytes, the last one possibly short; with
 * S == 0 a message is one packet. */
static uint64_t packets_of(uint64_t bytes, uint64_t S)
{
    return S ? ceil_div(bytes, S) : bytes != 0;
}

/* Units of weight of a part of `bytes` bytes (grains of G bytes; G == 0: one unit). */
static uint64_t units_of(uint64_t bytes, uint64_t G)
{
    return G ? ceil_div(bytes, G) : bytes != 0;
}

/* Whether message i -> j (i != j) has an odd number of packets. */
static int odd_message(const plan_matrix *m, uint64_t S, int i, int j)
{
    return i != j && packets_of(plan_matrix_at(m, i, j), S) % 2;
}

/* The multigraph of the odd packets (Sec. 2.1): edge k joins ranks ends[2k] and ends[2k + 1];
 * edges 0 .. nmsg - 1 are the messages with an odd number of packets (in row order), the rest
 * dummy edges that pair the odd-degree ranks in rank order. The edges at rank v are
 * inc[first[v] .. first[v + 1]) in edge order, next[v] the first one not yet tried. */
typedef struct odd_graph {
    size_t nmsg, total;
    int *degree; /* p + 1 entries */
    int *ends;
    size_t *first, *next, *inc;
    unsigned char *used; /* per edge: walked */
} odd_graph;

/* Releases g's arrays; g may be partly allocated (zeroed before). */
static void odd_graph_free(odd_graph *g)
{
    free(g->degree);
    free(g->ends);
    free(g->first);
    free(g->next);
    free(g->inc);
    free(g->used);
}

/* Counts the edges of the odd-packet multigraph of m and the degrees of its message edges, and
 * allocates the arrays (g zeroed first). Returns 0 or -1 (out of memory). */
static int odd_graph_alloc(odd_graph *g, const plan_matrix *m, uint64_t S)
{
    int p = m->p;
    memset(g, 0, sizeof *g);
    if (!(g->degree = calloc((size_t)p + 1, sizeof *g->degree)))
        return -1;
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++)
            if (odd_message(m, S, i, j)) {
                g->degree[i]++;
                g->degree[j]++;
                g->nmsg++;
            }
    int nodd = 0;
    for (int v = 0; v < p; v++)
        nodd += g->degree[v] % 2;
    g->total = g->nmsg + (size_t)nodd / 2;
    size_t n = g->total ? g->total : 1;
    g->ends = malloc(2 * n * sizeof *g->ends);
    g->first = calloc((size_t)p + 1, sizeof *g->first);
    g->next = calloc((size_t)p, sizeof *g->next);
    g->inc = malloc(2 * n * sizeof *g->inc);
    g->used = calloc(n, 1);
    return g->ends && g->first && g->next && g->inc && g->used ? 0 : -1;
}

/* Lists the edges (messages, then the dummy edges, whose ends' degrees they raise to even) and
 * builds the incidence lists. */
static void odd_graph_fill(odd_graph *g, const plan_matrix *m, uint64_t S)
{
    int p = m->p;
    size_t k = 0;
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++)
            if (odd_message(m, S, i, j)) {
                g->ends[2 * k] = i;
                g->ends[2 * k + 1] = j;
                k++;
            }
    for (int v = 0, pending = -1; v < p; v++)
        if (g->degree[v] % 2) {
            if (pending < 0) {
                pending = v;
            } else {
                g->ends[2 * k] = pending;
                g->ends[2 * k + 1] = v;
                g->degree[pending]++;
                g->degree[v]++;
                k++;
                pending = -1;
            }
        }
    for (int v = 0; v < p; v++)
        g->first[v + 1] = g->first[v] + (size_t)g->degree[v];
    for (int v = 0; v < p; v++)
        g->next[v] = g->first[v];
    for (size_t e = 0; e < g->total; e++) {
        g->inc[g->next[g->ends[2 * e]]++] = e;
        g->inc[g->next[g->ends[2 * e + 1]]++] = e;
    }
    for (int v = 0; v < p; v++)
        g->next[v] = g->first[v];
}

/* Walks from rank v along unused edges until none is left at the current rank, marking in
 * from_origin (p x p) every message edge walked from its origin. Returns whether it moved. */
static int walk_trail(odd_graph *g, int p, int v, unsigned char *from_origin)
{
    int cur = v, moved = 0;
    for (;;) {
        while (g->next[cur] < g->first[cur + 1] && g->used[g->inc[g->next[cur]]])
            g->next[cur]++;
        if (g->next[cur] == g->first[cur + 1])
            return moved;
        size_t e = g->inc[g->next[cur]++];
        g->used[e] = 1;
        moved = 1;
        int other = g->ends[2 * e] == cur ? g->ends[2 * e + 1] : g->ends[2 * e];
        if (e < g->nmsg && g->ends[2 * e] == cur)
            from_origin[(size_t)g->ends[2 * e] * p + g->ends[2 * e + 1]] = 1;
        cur = other;
    }
}

/* Orients the odd packets (Sec. 2.1): from_origin[i * p + j] is set when the odd packet of
 * message i -> j is walked from i to j, so that every rank has as many odd packets leaving as
 * entering, give or take the one of its dummy edge. Returns 0 or -1 (out of memory). */
static int orient_odd_packets(const plan_matrix *m, uint64_t S, unsigned char *from_origin)
{
    odd_graph g;
    int rc = odd_graph_alloc(&g, m, S);
    if (rc == 0) {
        odd_graph_fill(&g, m, S);
        /* every degree is even: a walk from v along unused edges can only stop at v, so each
         * walk is a closed trail and orienting it balances in- and out-degrees */
        for (int v = 0; v < m->p; v++)
            while (walk_trail(&g, m->p, v, from_origin))
                continue;
    }
    odd_graph_free(&g);
    return rc;
}

/* Cuts every message into its two parts (the orientation of Sec. 2.1 decides which one takes
 * the odd packet) and records them on their bipartite edges (st->e zeroed). Returns 0 or -1
 * (out of memory). */
static int cut_messages(half_state *st, const plan_matrix *m, uint64_t S)
{
    int p = m->p;
    unsigned char *from_origin = calloc((size_t)p * p, 1);
    if (!from_origin || orient_odd_packets(m, S, from_origin)) {
        free(from_origin);
        return -1;
    }
    uint64_t G = st->grain;
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++) {
            uint64_t bytes = i == j ? 0 : plan_matrix_at(m, i, j);
            if (!bytes)
                continue;
            uint64_t n = packets_of(bytes, S);
            uint64_t a = n / 2 + (n % 2 && from_origin[(size_t)i * p + j]);
            uint64_t first = a >= n ? bytes : a * S;
            half_part *fwd = &st->e[(size_t)i * p + j].part[0];
            half_part *back = &st->e[(size_t)j * p + i].part[1];
            *fwd = (half_part){0, first, units_of(first, G)};
            *back = (half_part){first, bytes - first, units_of(bytes - first, G)};
        }
    free(from_origin);
    return 0;
}

/* Builds the matching engine over the edges' grains, split after part 0, with first-free-
 * neighbour matching. Returns 0 or -1 (out of memory). */
static int build_graph(half_state *st)
{
    size_t pp = (size_t)st->p * st->p;
    uint64_t *weight = malloc(pp * sizeof *weight), *split = malloc(pp * sizeof *split);
    int rc = weight && split ? 0 : -1;
    for (size_t uv = 0; uv < pp && rc == 0; uv++) {
        split[uv] = st->e[uv].part[0].grains;
        weight[uv] = split[uv] + st->e[uv].part[1].grains;
    }
    if (rc == 0)
        rc = lm_init(&st->g, st->p, weight, split, LM_LOAD_WEIGHT, LM_FIRST);
    free(weight);
    free(split);
    return rc;
}

void half_state_free(half_state *st)
{
    free(st->e);
    lm_free(&st->g);
    free(st->links);
    free(st->verts);
    free(st->lk);
    free(st->comps);
    free(st->onpath);
    free(st->debts);
    free(st->busy);
    free(st->extra_cache);
}

int half_state_init(half_state *st, const plan_matrix *m, const half_mode *mode)
{
    int p = m->p;
    uint64_t S = mode->packet;
    memset(st, 0, sizeof *st);
    st->p = p;
    /* forwarding: weights in whole packets (Sec. 3 super-packets of packets), so that the
     * number of iterations is at most ceil(h / 2) whatever the matrix; without forwarding in
     * bytes (halves cut by bytes) */
    st->grain = !S ? 0 : mode->forwarding ? S : 1;
    st->forwarding = mode->forwarding;
    st->min_step = mode->min_step;
    st->e = calloc((size_t)p * p, sizeof *st->e);
    st->links = malloc((size_t)p * sizeof *st->links);
    st->verts = malloc((size_t)p * sizeof *st->verts);
    st->lk = malloc((size_t)p * sizeof *st->lk);
    st->comps = malloc((size_t)p * sizeof *st->comps);
    st->onpath = calloc((size_t)p, sizeof *st->onpath);
    st->debts = malloc((size_t)p * sizeof *st->debts);
    st->busy = calloc((size_t)p, 1);
    st->extra_cache = malloc(5 * 4096 * sizeof *st->extra_cache);
    int ok = st->e && st->links && st->verts && st->lk && st->comps && st->onpath && st->debts &&
             st->busy && st->extra_cache;
    if (!ok || cut_messages(st, m, S) || build_graph(st)) {
        half_state_free(st);
        return -1;
    }
    for (int k = 0; k < 5 * 4096; k++)
        st->extra_cache[k] = -1;
    return 0;
}
