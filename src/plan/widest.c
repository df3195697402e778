/* The widest-step decomposition (plan_direct_widest, plan/families.h): the exact direct
 * schedule with each step as long as it can be. Every vertex (a sender's or a receiver's side
 * of a rank) keeps its remaining load within a budget T that starts at the lower bound and
 * falls by each step's length; its slack is T minus its load. A step of length t needs a
 * matching in which every vertex of slack below t is matched by an edge e with slack + w_e >= t
 * (moving min(w_e, t) over e then keeps it within T - t), and every other matched edge obeys
 * the same rule. The feasible t are monotone, so the longest is found by bisection over the
 * values where the rule changes. Each t is tried with the assignment (Kuhn–Munkres) that
 * covers the most required vertices, then matches the most edges and, among those, moves the
 * most bytes: t is feasible when it covers them all, and the longest feasible t's assignment is
 * the step. Dense p x p arrays: meant for node matrices and small communicators (O(p^3) per
 * try, at most WIDEST_LARGEST_P ranks). */
#include <stdint.h>
#include <stdlib.h>

#include "plan/families.h"
#include "plan/plan.h"

enum { SEND = 0, RECV = 1 };

/* The most ranks the assignment's integer weights (below) are sized for. */
#define WIDEST_LARGEST_P 64

/* The state of the decomposition: remaining bytes and bytes moved per edge, loads, the budget
 * and the step's matching with the assignment's scratch. */
typedef struct widest {
    int p;
    uint64_t *left, *done; /* p * p, sender-major */
    uint64_t *load[2];
    uint64_t budget;
    uint64_t t;             /* the step length being tried */
    int *mate[2];           /* the step's matching: partner, or -1 */
    int64_t *cost;          /* p * p: the assignment's costs (best_matching) */
    int64_t *pot[2], *minv; /* p + 1 each: its potentials and slack */
    int *col_of, *way;      /* p + 1 each */
    char *used;             /* p + 1 */
} widest;

/* Slack of vertex (s, v): budget minus its load (never negative). */
static uint64_t slack(const widest *w, int s, int v)
{
    return w->budget - w->load[s][v];
}

/* 1 if vertex (s, v) must be matched in a step of length w->t. */
static int required(const widest *w, int s, int v)
{
    return w->load[s][v] > 0 && slack(w, s, v) < w->t;
}

/* 1 if edge (a, b) may be matched in a step of length w->t: it has bytes left and moving
 * min(left, t) keeps both ends within the budget. */
static int usable(const widest *w, int a, int b)
{
    uint64_t e = w->left[(size_t)a * w->p + b];
    return e > 0 && (unsigned __int128)slack(w, SEND, a) + e >= w->t &&
           (unsigned __int128)slack(w, RECV, b) + e >= w->t;
}

/* Weights of a step's matching, as costs to minimise: a usable edge earns REQUIRED per
 * required end, EDGE for being matched and less than 2^W_BYTES_BITS for the bytes it moves
 * (scaled), so that covering the required vertices comes first, then matching many edges, then
 * moving many bytes; an edge that is not usable costs NONE. Each tier outweighs the sum of all
 * lower ones over WIDEST_LARGEST_P edges, and p times NONE fits in 63 bits. */
#define W_BYTES_BITS 24
#define W_EDGE ((int64_t)1 << 31)
#define W_REQUIRED ((int64_t)1 << 38)
#define W_NONE ((int64_t)1 << 50)

/* Fills w->cost for the step length w->t. */
static void costs(widest *w)
{
    int p = w->p, shift = 0;
    while (shift < 64 && (w->t >> shift) >= ((uint64_t)1 << W_BYTES_BITS))
        shift++;
    for (int a = 0; a < p; a++)
        for (int b = 0; b < p; b++) {
            int64_t *c = &w->cost[(size_t)a * p + b];
            if (!usable(w, a, b)) {
                *c = W_NONE;
                continue;
            }
            uint64_t e = w->left[(size_t)a * p + b], x = e < w->t ? e : w->t;
            *c = -(W_EDGE + (int64_t)(x >> shift) + W_REQUIRED * required(w, SEND, a) +
                   W_REQUIRED * required(w, RECV, b));
        }
}

/* The assignment of senders to receivers of least total w->cost for step length w->t
 * (Kuhn–Munkres with potentials, O(p^3)), kept in w->mate where its edges are usable. Returns
 * 1 if it covers every required vertex (then a step of length t is feasible), else 0. */
static int best_matching(widest *w)
{
    int p = w->p;
    int64_t *u = w->pot[SEND], *v = w->pot[RECV], *minv = w->minv;
    int *col_of = w->col_of, *way = w->way; /* col_of[j]: the row assigned to column j (1-based) */
    costs(w);
    for (int j = 0; j <= p; j++)
        u[j] = v[j] = 0, col_of[j] = 0, way[j] = 0;
    for (int i = 1; i <= p; i++) {
        col_of[0] = i;
        int j0 = 0;
        for (int j = 0; j <= p; j++)
            minv[j] = INT64_MAX, w->used[j] = 0;
        do {
            w->used[j0] = 1;
            int i0 = col_of[j0], j1 = 0;
            int64_t delta = INT64_MAX;
            for (int j = 1; j <= p; j++) {
                if (w->used[j])
                    continue;
                int64_t cur = w->cost[(size_t)(i0 - 1) * p + (j - 1)] - u[i0] - v[j];
                if (cur < minv[j])
                    minv[j] = cur, way[j] = j0;
                if (minv[j] < delta)
                    delta = minv[j], j1 = j;
            }
            for (int j = 0; j <= p; j++)
                if (w->used[j])
                    u[col_of[j]] += delta, v[j] -= delta;
                else
                    minv[j] -= delta;
            j0 = j1;
        } while (col_of[j0] != 0);
        do {
            int j1 = way[j0];
            col_of[j0] = col_of[j1];
            j0 = j1;
        } while (j0);
    }
    for (int k = 0; k < p; k++)
        w->mate[SEND][k] = w->mate[RECV][k] = -1;
    for (int j = 1; j <= p; j++)
        if (usable(w, col_of[j] - 1, j - 1)) {
            w->mate[SEND][col_of[j] - 1] = j - 1;
            w->mate[RECV][j - 1] = col_of[j] - 1;
        }
    for (int s = SEND; s <= RECV; s++)
        for (int k = 0; k < p; k++)
            if (required(w, s, k) && w->mate[s][k] < 0)
                return 0;
    return 1;
}

/* Collects the distinct step lengths at which the rule of some vertex or edge changes, capped
 * by the budget, into c (room for 2p^2 + 2p + 1), sorted decreasing. Returns how many. */
static size_t lengths(const widest *w, uint64_t *c)
{
    int p = w->p;
    size_t n = 0;
    c[n++] = w->budget;
    for (int s = SEND; s <= RECV; s++)
        for (int v = 0; v < p; v++)
            if (w->load[s][v] > 0 && slack(w, s, v) > 0)
                c[n++] = slack(w, s, v);
    for (int a = 0; a < p; a++)
        for (int b = 0; b < p; b++) {
            uint64_t e = w->left[(size_t)a * p + b];
            if (!e)
                continue;
            uint64_t u = slack(w, SEND, a) + e, r = slack(w, RECV, b) + e;
            c[n++] = u < w->budget ? u : w->budget;
            c[n++] = r < w->budget ? r : w->budget;
        }
    /* insertion sort, decreasing, then unique: n is O(p^2) and p is small */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && c[j - 1] < c[j]; j--) {
            uint64_t x = c[j];
            c[j] = c[j - 1];
            c[j - 1] = x;
        }
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || c[i] != c[u - 1])
            c[u++] = c[i];
    return u;
}

/* Sets w->t to the longest feasible step length of c[0 .. n) (decreasing; the last one is
 * always feasible) and leaves its step's matching in w->mate (best_matching). */
static void longest_step(widest *w, const uint64_t *c, size_t n)
{
    size_t lo = 0, hi = n - 1; /* the answer lies in [lo, hi]; c[hi] is feasible */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        w->t = c[mid];
        if (best_matching(w))
            hi = mid;
        else
            lo = mid + 1;
    }
    w->t = c[hi];
    best_matching(w);
}

/* Appends the step of w's matching to pl: min(left, t) bytes over every matched edge, and
 * charges the budget with the step's longest transfer. Returns 0 or -1 (err set). */
static int emit(widest *w, plan *pl, plan_error *err)
{
    int p = w->p;
    uint64_t longest = 0;
    if (plan_begin_step(pl, err))
        return -1;
    for (int a = 0; a < p; a++) {
        int b = w->mate[SEND][a];
        if (b < 0)
            continue;
        size_t k = (size_t)a * p + b;
        uint64_t x = w->left[k] < w->t ? w->left[k] : w->t;
        if (plan_add_transfer(pl, a, b, err) || plan_add_segment(pl, a, b, w->done[k], x, err))
            return -1;
        w->left[k] -= x;
        w->done[k] += x;
        w->load[SEND][a] -= x;
        w->load[RECV][b] -= x;
        longest = x > longest ? x : longest;
    }
    w->budget -= longest;
    return 0;
}

int plan_direct_widest(const plan_matrix *m, size_t max_segments, plan *pl, plan_error *err)
{
    int p = m->p;
    if (p > WIDEST_LARGEST_P)
        return plan_error_set(err, 0,
                              "the widest-step decomposition takes at most %d ranks, not %d",
                              WIDEST_LARGEST_P, p);
    size_t pp = (size_t)p * (size_t)p, ncand = 2 * pp + 2 * (size_t)p + 1;
    widest w = {.p = p};
    size_t q = (size_t)p + 1;
    uint64_t *words = calloc(2 * pp + 2 * (size_t)p + ncand, sizeof *words);
    int64_t *signed_words = malloc((pp + 3 * q) * sizeof *signed_words);
    int *ints = malloc((2 * (size_t)p + 2 * q) * sizeof *ints);
    char *used = malloc(q);
    int have = words && signed_words && ints && used;
    if (!have || plan_init(pl, p, PLAN_ALGO_DIRECT, PLAN_DUPLEX_FULL, err)) {
        free(words);
        free(signed_words);
        free(ints);
        free(used);
        return have ? -1 : plan_error_set(err, 0, "out of memory planning %d ranks", p);
    }
    w.cost = signed_words;
    w.pot[SEND] = signed_words + pp;
    w.pot[RECV] = w.pot[SEND] + q;
    w.minv = w.pot[RECV] + q;
    w.col_of = ints + 2 * p;
    w.way = w.col_of + q;
    w.used = used;
    w.left = words;
    w.done = words + pp;
    w.load[SEND] = words + 2 * pp;
    w.load[RECV] = w.load[SEND] + p;
    uint64_t *cand = w.load[RECV] + p;
    w.mate[SEND] = ints;
    w.mate[RECV] = ints + p;
    for (int a = 0; a < p; a++)
        for (int b = 0; b < p; b++) {
            uint64_t e = a == b ? 0 : plan_matrix_at(m, a, b);
            w.left[(size_t)a * p + b] = e;
            w.load[SEND][a] += e;
            w.load[RECV][b] += e;
        }
    w.budget = plan_matrix_lower_bound(m, PLAN_DUPLEX_FULL);
    /* plan_direct's bound on the steps, kept as a guard: a step longer than its predecessors
     * allow is not proven to empty an edge or make a vertex critical, but none of the test
     * matrices came near it */
    size_t most = plan_matrix_messages(m) + 2 * (size_t)p + 1, steps = 0;
    int rc = plan_reserve(pl, plan_matrix_messages(m), plan_matrix_messages(m), err);
    while (rc == 0 && w.budget > 0) {
        int any = 0;
        for (int a = 0; a < p && !any; a++)
            any = w.load[SEND][a] > 0;
        if (!any)
            break;
        if (++steps > most) {
            rc = plan_error_set(err, 0, "internal error: the widest decomposition did not end");
            break;
        }
        longest_step(&w, cand, lengths(&w, cand));
        rc = emit(&w, pl, err);
        if (rc == 0 && max_segments && pl->nsegments > max_segments)
            rc = plan_error_set(err, 0, "the plan would exceed %zu segments", max_segments);
    }
    free(words);
    free(signed_words);
    free(ints);
    free(used);
    if (rc)
        plan_free(pl);
    return rc ? -1 : 0;
}
