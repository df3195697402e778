/* The matching engine shared by the direct, stepwise and forward planners (Sanders and
 * Solis-Oba, Sec. 3, "super-packets"). A bipartite graph of p senders (side LM_SEND) and p
 * receivers (side LM_RECV): edge (i, j), i != j, weighs what sender i still has to move to
 * receiver j, and every vertex has a load (the weight of its edges, or their number). Each step
 * the planner asks for a matching that covers every vertex of the largest load L without
 * uncovering another, and then moves an amount over every matched edge. The matching is kept
 * from step to step: only vertices that lose their partner are matched again, so a step costs
 * O(p) plus the search for the vertices that became critical. Pure C, no MPI. */
#ifndef HRELAY_PLAN_LOAD_MATCHING_H
#define HRELAY_PLAN_LOAD_MATCHING_H

#include <stddef.h>
#include <stdint.h>

enum { LM_SEND = 0, LM_RECV = 1 };

/* What a vertex's load counts. */
typedef enum lm_load {
    LM_LOAD_WEIGHT, /* the weight its edges still have */
    LM_LOAD_EDGES   /* the number of its edges that still have weight */
} lm_load;

/* How a free vertex with load left is given a free partner. The choice shapes the plans, so
 * each planner keeps its own. */
typedef enum lm_policy {
    LM_SPREAD,   /* any free neighbour, scanning from a place that rotates with the step so that
                    rebuilt matchings spread over the graph; covering tries this before searching */
    LM_HEAVIEST, /* the free neighbour with the heaviest edge (the lowest rank on ties; among
                    many free vertices, heaviest by initial weight: exact while edges only ever
                    empty whole); covering tries this before searching */
    LM_FIRST     /* the first free neighbour in neighbour-list order; covering searches an
                    alternating path at once */
} lm_policy;

/* What remains of an edge and what of it has moved already (kept together: one cache line per
 * matched edge and step). */
typedef struct lm_edge {
    uint64_t left, done;
} lm_edge;

/* What one matched edge moves in a step: `amount` units of edge (sender i, receiver j) from
 * offset `from` (the units the edge had moved before). */
typedef struct lm_move {
    int i, j;
    uint64_t from, amount;
} lm_move;

/* The graph and its matching. Vertex v of side s is (s, v); its neighbours are vertices of side
 * 1 - s. Callers read it through the functions below only. */
typedef struct lm_graph {
    int p;
    lm_load load_kind;
    lm_policy policy;
    lm_edge *e;         /* p * p, sender-major */
    uint64_t *split;    /* NULL, or p * p: lm_step_limit stops an edge at done == split */
    uint64_t *load[2];  /* remaining load per vertex */
    int *adj[2];        /* adj[s][v * p + k]: k-th neighbour of (s, v); emptied edges are
                           dropped lazily, when a scan meets them */
    int *deg[2];        /* length of the neighbour list */
    int *first[2];      /* LM_HEAVIEST: lists stay in order of initial weight, emptied edges
                           leave them only when passed over; entries before first[s][v] are
                           gone */
    uint64_t *alive[2]; /* alive[s]: bit u of row v set while edge (s, v)-(1 - s, u) has weight;
                           a compact mirror of left > 0 that stays in cache */
    size_t words;       /* 64-bit words per row of alive */
    int *mate[2];       /* matched partner or -1 */
    int *free_list[2];  /* the unmatched vertices that still have load, in any order */
    int *free_pos[2];   /* index in free_list, or -1 */
    int nfree[2];
    /* breadth-first search scratch */
    int *queue;         /* vertices of the searching side */
    int *parent[2];     /* vertex through which a vertex was reached */
    unsigned *seen[2];  /* search stamp when reached */
    unsigned stamp;
    lm_move *moves;     /* p: the moves of the last step */
    int *freed;         /* vertices (encoded s * p + v) left unmatched since the last refill */
    int nfreed;
    uint64_t step;      /* steps consumed so far (LM_SPREAD's rotation) */
} lm_graph;

/* Builds the graph of p senders and receivers from weight (p * p, sender-major; the diagonal
 * and zero entries are no edges) and, unless split is NULL, the split point of every edge
 * (p * p, copied: each edge moves its first split[i * p + j] units and its rest in separate
 * steps). Loads count as load_kind says; free vertices are matched by policy, and every sender
 * is given a partner if it can be. Returns 0, or -1 (out of memory; g then holds no memory). */
int lm_init(lm_graph *g, int p, const uint64_t *weight, const uint64_t *split, lm_load load_kind,
            lm_policy policy);

/* Releases what lm_init allocated. */
void lm_free(lm_graph *g);

/* The partner of (s, v) in the current matching, or -1. */
static inline int lm_mate(const lm_graph *g, int s, int v)
{
    return g->mate[s][v];
}

/* The largest load of any vertex (0 once every edge is empty). */
uint64_t lm_max_load(const lm_graph *g);

/* Makes the matching cover every vertex whose load is top (the largest, lm_max_load) without
 * uncovering any: each uncovered one takes an alternating path to a free vertex of the other
 * side, or to a matched vertex of its own side whose load is below top, which is released.
 * Then every vertex released is matched again where a free neighbour exists, so the matching
 * stays maximal. Returns 0, or -1 with *stuck set to a vertex no path covers (an internal error:
 * the load bound guarantees a path). */
int lm_cover_max(lm_graph *g, uint64_t top, int *stuck);

/* For loads in weight: the most t every matched edge can move in one step so that the largest
 * load falls by exactly t, i.e. the smallest of top, the weight of every matched edge (while
 * before its split point: the weight up to it, so no step moves an edge across that point) and
 * top minus the load of every unmatched vertex with load left (it must not end above top - t). */
uint64_t lm_step_limit(const lm_graph *g, uint64_t top);

/* One step: moves min(t, weight) over every matched edge, never across the edge's split point
 * (an edge before it moves at most up to it); loads fall by that amount
 * (LM_LOAD_EDGES: by one when the edge empties). An emptied edge leaves the graph and its ends
 * the matching; then every vertex released is matched again where it can be. Returns the moves,
 * one per edge matched before the step, in sender order (*nmoves of them); they stay valid
 * until the next lm_consume or lm_free. */
const lm_move *lm_consume(lm_graph *g, uint64_t t, size_t *nmoves);

#endif
