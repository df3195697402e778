/* Sanders and Solis-Oba's forwarding schedule for half-duplex h-relations ("How Helpers Hasten
 * h-Relations", Secs. 2 and 3).
 *
 * Messages are counted in packets of S bytes. The odd packets of all messages form a multigraph;
 * dummy edges pair its odd-degree vertices, and walking closed trails orients it so that every
 * rank has as many odd packets leaving as entering (Sec. 2.1). Every message i -> j is then cut
 * into two contiguous parts: the first half of its packets (with the odd packet if it was
 * oriented i -> j) on the edge L_i - R_j of a bipartite graph, the rest on L_j - R_i. So every
 * rank's copies L_i and R_i carry at most ceil(h_i / 2) packets, h_i being the packets rank i
 * sends and receives.
 *
 * Sec. 3: each iteration takes a matching of that bipartite graph that covers every vertex of
 * the largest remaining load and moves a super-packet of s grains over every matched edge, s
 * the smallest matched part and no larger than the gap to the next load, so the largest load
 * falls by exactly s. A matching gives every rank at most one L and one R edge: a 2-relation,
 * a union of cycles, paths and idle ranks. Paths and even cycles need two units (of s grains);
 * odd cycles are paired and exchange their data in 12 rounds of s / 5 (Sec. 2.3): in the first
 * six rounds three ranks of cycle B forward three fifths of one packet of cycle A while both
 * cycles move the rest directly, in the last six the roles swap. Odd cycles are paired with one
 * another; one left over takes an idle rank or a path as its helper (every path can help: its
 * missing closing edge plays the part of the forwarded packet), and for odd P with neither one
 * edge of a cycle is removed into a matching of deferred pieces (Sec. 2.4). When no edge of a
 * later 2-relation fits beside the deferred pieces, one step sends the smallest deferred size of
 * each (so every such step serves at least p / 4 pieces, Lemma 1). A deferred piece may have to
 * wait for the final step alone, so an iteration that defers moves at most 1/(2p) of the
 * initial largest load (at most 2p more iterations).
 *
 * Weights are counted in whole packets (Sec. 3 with message lengths in packets; the last packet
 * of a part may be short), so there are at most ceil(h / 2) iterations, each moving at least
 * one packet per matched edge, however the messages are shaped. A round moves a fifth of the
 * super-packet of n bytes: n / 5 bytes when 5 divides n; otherwise each of the 12 rounds is
 * floor(n / 5) or floor(n / 5) + 1 bytes long, choosing the fewest longer rounds that still
 * give every edge its n bytes (at most 6/5 byte more per iteration than 12 n / 5); when even
 * that is no faster, the iteration sends whole super-packets in three steps instead.
 *
 * Without forwarding (fw_mode.forwarding 0) the same machinery gives the half-duplex direct
 * schedule (messages halved by bytes, weights in bytes, optionally a minimum super-packet) and
 * the half-duplex stepwise one (every message one packet sent whole, weights in messages): each
 * 2-relation in two steps, three with odd cycles (3 ceil(h / 2) in all).
 *
 * The bipartite graph, its loads and the covering matching are plan/load_matching.c's (shared
 * with the direct planner); this file cuts the messages, schedules each 2-relation and keeps
 * the deferred pieces. */
#include <stdlib.h>
#include <string.h>

#include "plan/families.h"
#include "plan/load_matching.h"
#include "plan/plan.h"

/* The contiguous byte range [start, start + bytes) of one message on one bipartite edge, and
 * its length in grains. */
typedef struct fw_part {
    uint64_t start, bytes, grains;
} fw_part;

/* Bipartite edge L_u - R_v (in the matching engine: sender u, receiver v): part 0 is a part of
 * message u -> v, part 1 of message v -> u; part 0 goes first (the engine's split point is its
 * grains), so the engine's count of grains moved tells which part is current and how far. */
typedef struct fw_edge {
    fw_part part[2];
} fw_edge;

/* One matched edge of an iteration: bytes [lo, hi) of message src -> dst (the iteration's
 * super-packet, shorter at the end of a part). */
typedef struct fw_link {
    int src, dst;
    uint64_t lo, hi;
} fw_link;

/* The ways an edge takes part in the 12 rounds of a forwarding iteration (round sets; o is the
 * first of the six rounds in which its component is helped, o' = 6 - o the first of the other
 * six). T_PLAIN_*: components needing no help, even or odd edge index. Per half h (o = 6h):
 * a single edge helping (o .. o+4), the closing edge of a helped odd cycle (three pieces
 * forwarded in rounds (o, o+1), (o+2, o+3), (o+4, o+5), two direct in o'+2, o'+3), edge 0
 * (o, o+2, o+4, o'+4, o'+5), other even edges (o, o+2, o+4, o'+2, o'+3), odd edges
 * (o+1, o+3, o+5, o', o'+1). */
enum {
    T_PLAIN_EVEN, T_PLAIN_ODD,
    T_SINGLE, T_SPECIAL, T_EDGE0, T_EVEN, T_ODD, /* + 5 h */
    T_COUNT = 12
};

enum { K_IDLE, K_PATH, K_CYCLE };     /* component kinds (a path's closing edge is empty) */
enum { ROLE_PLAIN, ROLE_PAIRED };     /* alone, or one of a pair of odd cycles */

/* A component of a 2-relation: ranks verts[start .. start + n), the edge between the k-th and
 * the (k+1 mod n)-th being links[start + k] (an index into the iteration's links, or -1). */
typedef struct fw_comp {
    int start, n, kind, role;
    int helped_off; /* paired: first round of the six in which this component is helped */
    int hp[3];      /* paired: the ranks of the partner that forward pieces 0, 1, 2 */
} fw_comp;

/* A deferred piece (odd P): bytes [off, off + left) of message origin -> target. */
typedef struct fw_debt {
    int origin, target;
    uint64_t off, left;
} fw_debt;

/* What the machinery of this file builds (the families that share it, see plan_forward,
 * plan_direct_half, plan_stepwise_half). */
typedef struct fw_mode {
    plan_algo algo;      /* label of the plan */
    uint64_t packet;     /* bytes per packet; 0: every message is one packet, sent whole */
    int forwarding;      /* 1: pairs of odd cycles help each other in 12 rounds (Sec. 2.3);
                            0: every 2-relation in at most three steps, nothing forwarded */
    uint64_t min_step;   /* 0: exact super-packets; otherwise an iteration moves at least this
                            many grains over every matched edge (capped by its current part) */
    size_t max_segments; /* 0: no limit; otherwise fail once the plan holds more segments */
} fw_mode;

typedef struct fw_state {
    int p;
    uint64_t grain;     /* bytes per unit of weight; 0: a part is one unit (whole messages) */
    int forwarding;
    uint64_t min_step;
    fw_edge *e;         /* p * p, e[u * p + v] is L_u - R_v */
    lm_graph g;         /* the bipartite graph in grains and its matching */
    /* the current iteration */
    fw_link *links;     /* indexed by the L vertex */
    int *verts, *lk;    /* p entries each: components one after the other */
    fw_comp *comps;
    int ncomps;
    int *onpath;        /* scratch: visit marks */
    uint64_t defer_cap;  /* odd P: largest super-packet of an iteration that defers an edge */
    uint64_t f;          /* round size: f + (bit r of extra) bytes in round r */
    unsigned extra;
    short *extra_cache;  /* [rho * 4096 + set of edge types]: best extra, -1 unknown */
    /* deferred pieces (odd P) */
    fw_debt *debts;
    int ndebts;
    char *busy;         /* rank has a deferred piece */
} fw_state;

/* Frees the planner state (the engine too, if it was built). */
static void state_free(fw_state *st)
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

/* Orients the odd packets (Sec. 2.1): from_origin[i * p + j] is set when the odd packet of
 * message i -> j is walked from i to j. Returns 0 or -1 (out of memory). */
static int orient_odd_packets(const plan_matrix *m, uint64_t S, unsigned char *from_origin)
{
    int p = m->p;
    size_t nedges = 0;
    int *degree = calloc((size_t)p + 1, sizeof *degree);
    if (!degree)
        return -1;
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++)
            if (i != j && packets_of(plan_matrix_at(m, i, j), S) % 2) {
                degree[i]++;
                degree[j]++;
                nedges++;
            }
    int nodd = 0;
    for (int v = 0; v < p; v++)
        nodd += degree[v] % 2;
    size_t total = nedges + (size_t)nodd / 2;
    int *ends = malloc(2 * (total ? total : 1) * sizeof *ends); /* endpoints of edge k */
    size_t *first = calloc((size_t)p + 1, sizeof *first), *next = calloc((size_t)p, sizeof *next);
    size_t *inc = malloc(2 * (total ? total : 1) * sizeof *inc);   /* incidence lists */
    unsigned char *used = calloc(total ? total : 1, 1);
    int rc = ends && first && next && inc && used ? 0 : -1;
    if (rc == 0) {
        size_t k = 0;
        for (int i = 0; i < p; i++)
            for (int j = 0; j < p; j++)
                if (i != j && packets_of(plan_matrix_at(m, i, j), S) % 2) {
                    ends[2 * k] = i;
                    ends[2 * k + 1] = j;
                    k++;
                }
        /* dummy edges pair the odd-degree vertices in rank order */
        for (int v = 0, pending = -1; v < p; v++)
            if (degree[v] % 2) {
                if (pending < 0) {
                    pending = v;
                } else {
                    ends[2 * k] = pending;
                    ends[2 * k + 1] = v;
                    degree[pending]++;
                    degree[v]++;
                    k++;
                    pending = -1;
                }
            }
        for (int v = 0; v < p; v++)
            first[v + 1] = first[v] + (size_t)degree[v];
        for (int v = 0; v < p; v++)
            next[v] = first[v];
        for (size_t e = 0; e < total; e++) {
            inc[next[ends[2 * e]]++] = e;
            inc[next[ends[2 * e + 1]]++] = e;
        }
        for (int v = 0; v < p; v++)
            next[v] = first[v];
        /* every degree is even: a walk from v along unused edges can only stop at v, so each
         * walk is a closed trail and orienting it balances in- and out-degrees */
        for (int v = 0; v < p; v++)
            for (;;) {
                int cur = v, moved = 0;
                for (;;) {
                    while (next[cur] < first[cur + 1] && used[inc[next[cur]]])
                        next[cur]++;
                    if (next[cur] == first[cur + 1])
                        break;
                    size_t e = inc[next[cur]++];
                    used[e] = 1;
                    moved = 1;
                    int other = ends[2 * e] == cur ? ends[2 * e + 1] : ends[2 * e];
                    if (e < nedges && ends[2 * e] == cur)
                        from_origin[(size_t)ends[2 * e] * p + ends[2 * e + 1]] = 1;
                    cur = other;
                }
                if (!moved)
                    break;
            }
    }
    free(degree);
    free(ends);
    free(first);
    free(next);
    free(inc);
    free(used);
    return rc;
}

/* Cuts every message into its two parts (the orientation of Sec. 2.1 decides which one takes
 * the odd packet) and records them on their bipartite edges (st->e zeroed). Returns 0 or -1
 * (out of memory). */
static int cut_messages(fw_state *st, const plan_matrix *m, uint64_t S)
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
            uint64_t n = packets_of(bytes, S), a = n / 2 + (n % 2 && from_origin[(size_t)i * p + j]);
            uint64_t first = a >= n ? bytes : a * S;
            fw_part *fwd = &st->e[(size_t)i * p + j].part[0], *back = &st->e[(size_t)j * p + i].part[1];
            *fwd = (fw_part){0, first, units_of(first, G)};
            *back = (fw_part){first, bytes - first, units_of(bytes - first, G)};
        }
    free(from_origin);
    return 0;
}

/* Builds the matching engine over the edges' grains, split after part 0, with first-free-
 * neighbour matching. Returns 0 or -1 (out of memory). */
static int build_graph(fw_state *st)
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

/* Allocates the state, cuts the messages and builds the bipartite graph. Returns 0 or -1 (out
 * of memory; st then holds no memory). */
static int state_init(fw_state *st, const plan_matrix *m, const fw_mode *mode)
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
        state_free(st);
        return -1;
    }
    for (int k = 0; k < 5 * 4096; k++)
        st->extra_cache[k] = -1;
    return 0;
}

/* Records the link of a matched edge L_u - R_v from the engine's move: its grains, which lie
 * within the edge's current part, as bytes of that part's message (the last grain of a part
 * may be short). */
static void take_link(fw_state *st, const lm_move *mv)
{
    int u = mv->i, v = mv->j;
    const fw_edge *e = &st->e[(size_t)u * st->p + v];
    int fwd = mv->from < e->part[0].grains;
    const fw_part *pt = &e->part[fwd ? 0 : 1];
    uint64_t done = fwd ? mv->from : mv->from - e->part[0].grains, s = mv->amount;
    fw_link *l = &st->links[u];
    l->src = fwd ? u : v;
    l->dst = fwd ? v : u;
    l->lo = pt->start + done * st->grain;
    l->hi = done + s == pt->grains ? pt->start + pt->bytes : l->lo + s * st->grain;
}

/* ---- scheduling one 2-relation ---- */

/* Appends a transfer src -> dst with bytes [lo, hi) of message origin -> target, if any. */
static int emit(plan *pl, int src, int dst, int origin, int target, uint64_t lo, uint64_t hi,
                plan_error *err)
{
    if (hi <= lo)
        return 0;
    if (plan_add_transfer(pl, src, dst, err) || plan_add_segment(pl, origin, target, lo, hi - lo, err))
        return -1;
    return 0;
}

/* Sends link k whole (k may be -1: nothing). */
static int emit_whole(fw_state *st, plan *pl, int k, plan_error *err)
{
    if (k < 0)
        return 0;
    const fw_link *l = &st->links[k];
    return emit(pl, l->src, l->dst, l->src, l->dst, l->lo, l->hi, err);
}

/* The pieces of an edge of type t, in byte order: piece k is sent in round a[k], directly if
 * b[k] < 0, else to a helper in round a[k] and from it to its target in round b[k]. Returns
 * the number of pieces (5). */
static int type_pieces(int t, int a[5], int b[5])
{
    static const int plain[2][5] = {{0, 2, 4, 6, 8}, {1, 3, 5, 7, 9}};
    for (int k = 0; k < 5; k++)
        b[k] = -1;
    if (t < T_SINGLE) {
        memcpy(a, plain[t], sizeof plain[t]);
        return 5;
    }
    int o = t >= T_SINGLE + 5 ? 6 : 0, o2 = 6 - o;
    switch (t - (o ? 5 : 0)) {
    case T_SINGLE:
        for (int k = 0; k < 5; k++)
            a[k] = o + k;
        break;
    case T_SPECIAL:
        for (int k = 0; k < 3; k++) {
            a[k] = o + 2 * k;
            b[k] = o + 2 * k + 1;
        }
        a[3] = o2 + 2;
        a[4] = o2 + 3;
        break;
    default: { /* edge 0, other even edges, odd edges */
        int odd = t - (o ? 5 : 0) == T_ODD;
        int helping = odd ? o2 : t - (o ? 5 : 0) == T_EDGE0 ? o2 + 4 : o2 + 2;
        for (int k = 0; k < 3; k++)
            a[k] = o + 2 * k + odd;
        a[3] = helping;
        a[4] = helping + 1;
    }
    }
    return 5;
}

/* Size of a piece sent in round a (and, forwarded, b). */
static uint64_t piece_size(const fw_state *st, int a, int b)
{
    unsigned e = (st->extra >> a) & 1;
    if (b >= 0)
        e &= (st->extra >> b) & 1;
    return st->f + e;
}

/* The link between the k-th and next rank of component c. */
static int link_at(const fw_state *st, const fw_comp *c, int k)
{
    return st->lk[c->start + k];
}

/* Whether c is a cycle of odd length with all its edges (the ones that need help). */
static int full_odd(const fw_comp *c)
{
    return c->kind == K_CYCLE && c->n % 2;
}

/* The type of edge k of component c in a forwarding iteration (roles assigned). */
static int edge_type(const fw_comp *c, int k)
{
    if (c->role == ROLE_PLAIN)
        return k % 2 ? T_PLAIN_ODD : T_PLAIN_EVEN;
    int base = c->helped_off ? 5 : 0;
    if (c->n == 2)
        return T_SINGLE + base;
    if (k == c->n - 1)
        return T_SPECIAL + base;
    return base + (k == 0 ? T_EDGE0 : k % 2 ? T_ODD : T_EVEN);
}

/* Emits what edge k of component c sends in round r of a forwarding iteration: its pieces
 * take the rounds of its type in turn, each as large as the round (the last ones may be
 * shorter or empty where the link ends). */
static int emit_edge_round(fw_state *st, plan *pl, const fw_comp *c, int k, int r, plan_error *err)
{
    int li = link_at(st, c, k);
    if (li < 0)
        return 0;
    const fw_link *l = &st->links[li];
    int a[5], b[5], np = type_pieces(edge_type(c, k), a, b);
    uint64_t off = l->lo;
    for (int q = 0; q < np; q++) {
        uint64_t size = piece_size(st, a[q], b[q]);
        uint64_t end = l->hi - off < size ? l->hi : off + size;
        if (a[q] == r || b[q] == r) {
            int src = l->src, dst = l->dst;
            if (b[q] >= 0) { /* forwarded through helper q of the component */
                if (a[q] == r)
                    dst = c->hp[q];
                else
                    src = c->hp[q];
            }
            return emit(pl, src, dst, l->src, l->dst, off, end, err);
        }
        off = end;
    }
    return 0;
}

/* Round r (0..11) of a forwarding iteration for component c. Conflict-freedom, for a helped
 * odd cycle a_0 .. a_{n-1} (closing edge a_{n-1} -> a_0) and its partner b_0 .. b_{m-1}: in the
 * helped rounds o + 2i the even edges occupy a_0 .. a_{n-2} and a_{n-1} sends to b_i, in
 * o + 2i + 1 the odd edges occupy a_1 .. a_{n-1} and b_i passes the piece to a_0; meanwhile the
 * partner's odd edges leave b_0 free (rounds o, o+1), its even edges from 2 on leave b_1 free
 * (o+2, o+3), and its edge 0 leaves b_2 free (o+4, o+5). */
static int emit_round(fw_state *st, plan *pl, const fw_comp *c, int r, plan_error *err)
{
    int rc = 0;
    for (int k = 0; k < c->n && rc == 0; k++)
        rc = emit_edge_round(st, pl, c, k, r, err);
    return rc;
}

/* Chooses the round sizes of a forwarding iteration of n bytes per super-packet: f = n / 5
 * bytes each, one more in the rounds of st->extra, the fewest such rounds (then the lowest
 * mask) with which every edge type present gets n bytes from its five pieces. */
static void choose_round_sizes(fw_state *st, uint64_t f, unsigned rho, unsigned present)
{
    st->f = f;
    short *cache = &st->extra_cache[rho * 4096 + present];
    if (*cache < 0) {
        int best = 4095, best_pop = 13;
        for (int mask = 0; mask < 4096; mask++) {
            int pop = __builtin_popcount((unsigned)mask), ok = pop < best_pop;
            for (int t = 0; t < T_COUNT && ok; t++) {
                if (!(present >> t & 1))
                    continue;
                int a[5], b[5], np = type_pieces(t, a, b);
                unsigned got = 0;
                for (int q = 0; q < np; q++)
                    got += (mask >> a[q] & 1) && (b[q] < 0 || (mask >> b[q] & 1));
                ok = got >= rho;
            }
            if (ok) {
                best = mask;
                best_pop = pop;
            }
        }
        *cache = (short)best;
    }
    st->extra = (unsigned)*cache;
}

/* Splits the 2-relation given by the matching into components (paths from their first rank,
 * cycles from their lowest rank). */
static void build_components(fw_state *st)
{
    int p = st->p, nv = 0;
    st->ncomps = 0;
    memset(st->onpath, 0, (size_t)p * sizeof *st->onpath);
    for (int pass = 0; pass < 2; pass++)
        for (int x = 0; x < p; x++) {
            if (st->onpath[x] || (pass == 0 && lm_mate(&st->g, LM_RECV, x) >= 0))
                continue; /* pass 0: starts of paths and idle ranks; pass 1: cycles */
            fw_comp *c = &st->comps[st->ncomps++];
            *c = (fw_comp){.start = nv, .n = 0, .kind = pass ? K_CYCLE : K_PATH};
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
static void open_cycle(fw_state *st, fw_comp *c, int k)
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

/* Names full odd cycle c so that its closing edge carries data from its last rank to its
 * first (reversing the order if needed). */
static void orient_cycle(fw_state *st, fw_comp *c)
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

/* One step sending up to tau bytes of every deferred piece (all of them if tau == 0). */
static int flush_debts(fw_state *st, plan *pl, uint64_t tau, plan_error *err)
{
    if (st->ndebts == 0)
        return 0;
    if (plan_begin_step(pl, err))
        return -1;
    int kept = 0;
    for (int d = 0; d < st->ndebts; d++) {
        fw_debt *b = &st->debts[d];
        uint64_t n = tau && tau < b->left ? tau : b->left;
        if (emit(pl, b->origin, b->target, b->origin, b->target, b->off, b->off + n, err))
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

/* Odd P, every component a cycle with all its edges: defers one edge whose ranks have no
 * deferred piece yet (flushing the smallest deferred size first while there is none), an edge
 * of an odd cycle if possible. Returns the opened component, or NULL on error. */
static fw_comp *defer_edge(fw_state *st, plan *pl, plan_error *err)
{
    for (;;) {
        for (int want_odd = 1; want_odd >= 0; want_odd--)
            for (int ci = 0; ci < st->ncomps; ci++) {
                fw_comp *c = &st->comps[ci];
                if (c->kind != K_CYCLE || c->n % 2 != want_odd)
                    continue;
                for (int k = 0; k < c->n; k++) {
                    int a = st->verts[c->start + k], b = st->verts[c->start + (k + 1) % c->n];
                    if (st->busy[a] || st->busy[b])
                        continue;
                    const fw_link *l = &st->links[st->lk[c->start + k]];
                    st->debts[st->ndebts++] = (fw_debt){l->src, l->dst, l->lo, l->hi - l->lo};
                    st->busy[a] = st->busy[b] = 1;
                    open_cycle(st, c, k);
                    return c;
                }
            }
        uint64_t tau = UINT64_MAX;
        for (int d = 0; d < st->ndebts; d++)
            tau = st->debts[d].left < tau ? st->debts[d].left : tau;
        if (st->ndebts == 0 || flush_debts(st, pl, tau, err)) {
            if (st->ndebts == 0)
                plan_error_set(err, 0, "internal error: no edge to defer");
            return NULL;
        }
    }
}

/* The helper for the one odd cycle left without a partner: an idle rank, else a path with an
 * odd number of ranks, else one with four or more, else a single edge; NULL if none. */
static fw_comp *pick_helper(fw_state *st)
{
    fw_comp *best = NULL;
    int best_rank = 4;
    for (int ci = 0; ci < st->ncomps; ci++) {
        fw_comp *c = &st->comps[ci];
        int r = c->kind == K_IDLE ? 0 : c->kind != K_PATH ? 4 : c->n % 2 ? 1 : c->n >= 4 ? 2 : 3;
        if (r < best_rank) {
            best_rank = r;
            best = c;
        }
    }
    return best;
}

/* Whether the current 2-relation has an odd number of odd cycles with all their edges and
 * no idle rank or path to help the last one (only for odd P): one edge must be deferred. */
static int needs_deferral(fw_state *st)
{
    int nodd = 0;
    for (int ci = 0; ci < st->ncomps; ci++)
        nodd += full_odd(&st->comps[ci]);
    return nodd % 2 && !pick_helper(st);
}

/* Makes a and b partners: a is helped in rounds 0-5 by ranks of b, b in rounds 6-11. */
static void pair(fw_state *st, fw_comp *a, fw_comp *b)
{
    fw_comp *both[2] = {a, b};
    for (int w = 0; w < 2; w++) {
        fw_comp *me = both[w], *other = both[1 - w];
        me->role = ROLE_PAIRED;
        me->helped_off = 6 * w;
        for (int i = 0; i < 3; i++)
            me->hp[i] = st->verts[other->start + (other->n >= 3 ? i : 0)];
    }
}

/* Emits the current 2-relation without forwarding: two steps (three with odd cycles) of whole
 * super-packets - even edges of every component, odd edges, closing edges of odd cycles - so
 * that each rank takes part in at most one transfer per step. */
static int schedule_whole(fw_state *st, plan *pl, plan_error *err)
{
    int rc = 0;
    for (int colour = 0; colour < 3 && rc == 0; colour++) {
        rc = plan_begin_step(pl, err);
        for (int ci = 0; ci < st->ncomps && rc == 0; ci++) {
            const fw_comp *c = &st->comps[ci];
            for (int k = colour % 2; k < c->n && rc == 0; k += 2)
                if ((colour == 2) == (full_odd(c) && k == c->n - 1))
                    rc = emit_whole(st, pl, link_at(st, c, k), err);
        }
        plan_end_step(pl);
    }
    return rc;
}

/* Emits the steps of the current 2-relation (components built, links recorded). */
static int schedule(fw_state *st, plan *pl, uint64_t s, plan_error *err)
{
    int nodd = 0, rc = 0;
    for (int ci = 0; ci < st->ncomps; ci++) {
        st->comps[ci].role = ROLE_PLAIN;
        nodd += full_odd(&st->comps[ci]);
    }
    if (!st->forwarding || nodd == 0)
        return schedule_whole(st, pl, err);
    /* a round moves a fifth of the super-packet of n bytes: f bytes, one more in some rounds
     * when 5 does not divide n (grain 1) */
    uint64_t n = s * st->grain, f = n / 5;
    unsigned rho = (unsigned)(n % 5);
    choose_round_sizes(st, f, rho, (1u << T_COUNT) - 1);
    if (3 * n <= 12 * f + (unsigned)__builtin_popcount(st->extra)) /* rounding costs more */
        return schedule_whole(st, pl, err);
    if (nodd % 2 && !pick_helper(st)) {
        /* odd P with no idle rank and no path: defer one edge (Sec. 2.4) */
        fw_comp *opened = defer_edge(st, pl, err);
        if (!opened)
            return -1;
        if (opened->n % 2)
            nodd--;
    }
    fw_comp *waiting = NULL;
    for (int ci = 0; ci < st->ncomps; ci++) {
        fw_comp *c = &st->comps[ci];
        if (!full_odd(c))
            continue;
        orient_cycle(st, c);
        if (waiting) {
            pair(st, waiting, c);
            waiting = NULL;
        } else {
            waiting = c;
        }
    }
    if (waiting) {
        fw_comp *h = pick_helper(st);
        if (!h)
            return plan_error_set(err, 0, "internal error: an odd cycle without a helper");
        pair(st, waiting, h);
    }
    unsigned present = 0;
    for (int ci = 0; ci < st->ncomps; ci++) {
        const fw_comp *c = &st->comps[ci];
        for (int k = 0; k < c->n; k++)
            if (link_at(st, c, k) >= 0)
                present |= 1u << edge_type(c, k);
    }
    choose_round_sizes(st, f, rho, present);
    for (int r = 0; r < 12 && rc == 0; r++) {
        rc = plan_begin_step(pl, err);
        for (int ci = 0; ci < st->ncomps && rc == 0; ci++)
            rc = emit_round(st, pl, &st->comps[ci], r, err);
        plan_end_step(pl);
    }
    return rc;
}

/* One iteration: covers the vertices of the largest load top, takes a super-packet over every
 * matched edge (smaller when an edge would be deferred) and emits its steps. Returns 0 or -1
 * with err set. */
static int iterate(fw_state *st, plan *pl, uint64_t top, plan_error *err)
{
    int stuck;
    if (lm_cover_max(&st->g, top, &stuck))
        return plan_error_set(err, 0, "internal error: no matching covers rank %d", stuck);
    uint64_t s = lm_step_limit(&st->g, top);
    build_components(st);
    if (st->forwarding && s > st->defer_cap && needs_deferral(st))
        s = st->defer_cap;
    if (s < st->min_step)
        s = st->min_step;
    size_t n;
    const lm_move *mv = lm_consume(&st->g, s, &n);
    for (size_t k = 0; k < n; k++)
        take_link(st, &mv[k]);
    return schedule(st, pl, s, err);
}

/* Returns 0 if pl holds at most max_segments segments (0: no limit), else -1 with err set. */
static int check_size(const plan *pl, size_t max_segments, plan_error *err)
{
    if (max_segments && pl->nsegments > max_segments)
        return plan_error_set(err, 0, "the plan would exceed %zu segments", max_segments);
    return 0;
}

/* Emits every iteration and the last flush of deferred pieces into pl, failing once pl holds
 * more than max_segments segments (0: no limit). Returns 0 or -1 with err set. */
static int emit_iterations(fw_state *st, plan *pl, size_t max_segments, plan_error *err)
{
    /* a deferred piece may end up in the last flush alone: keep each at most 1/(2p) of the
     * largest load (this splits at most 2p more iterations) */
    st->defer_cap = lm_max_load(&st->g) / (2 * (uint64_t)st->p);
    st->defer_cap = st->defer_cap ? st->defer_cap : 1;
    for (uint64_t top = lm_max_load(&st->g); top > 0; top = lm_max_load(&st->g))
        if (iterate(st, pl, top, err) || check_size(pl, max_segments, err))
            return -1;
    if (flush_debts(st, pl, 0, err))
        return -1;
    return check_size(pl, max_segments, err);
}

/* Builds the half-duplex plan of m that mode describes into pl. Returns 0, or -1 with err set
 * (pl then holds no memory). */
static int build(const plan_matrix *m, const fw_mode *mode, plan *pl, plan_error *err)
{
    fw_state st;
    if (state_init(&st, m, mode))
        return plan_error_set(err, 0, "out of memory planning %d ranks", m->p);
    if (plan_init(pl, m->p, mode->algo, PLAN_DUPLEX_HALF, err)) {
        state_free(&st);
        return -1;
    }
    int rc = emit_iterations(&st, pl, mode->max_segments, err);
    state_free(&st);
    if (rc)
        plan_free(pl);
    return rc;
}

int plan_forward_capped(const plan_matrix *m, uint64_t packet_bytes, size_t max_segments,
                        plan *pl, plan_error *err)
{
    if (packet_bytes == 0)
        return plan_error_set(err, 0, "forward: the packet must be at least one byte");
    fw_mode mode = {.algo = PLAN_ALGO_FORWARD, .packet = packet_bytes, .forwarding = 1,
                    .max_segments = max_segments};
    if (build(m, &mode, pl, err))
        return -1;
    pl->packet_bytes = packet_bytes;
    return 0;
}

int plan_half_decompose(const plan_matrix *m, const plan_direct_opts *opts, plan *pl,
                        plan_error *err)
{
    fw_mode mode = {.algo = PLAN_ALGO_DIRECT, .packet = 1,
                    .min_step = opts ? opts->min_step_bytes : 0,
                    .max_segments = opts ? opts->max_segments : 0};
    if (build(m, &mode, pl, err))
        return -1;
    pl->min_step_bytes = mode.min_step;
    return 0;
}

int plan_stepwise_half(const plan_matrix *m, plan *pl, plan_error *err)
{
    fw_mode mode = {.algo = PLAN_ALGO_STEPWISE};
    return build(m, &mode, pl, err);
}

int plan_forward(const plan_matrix *m, uint64_t packet_bytes, plan *pl, plan_error *err)
{
    return plan_forward_capped(m, packet_bytes, 0, pl, err);
}
