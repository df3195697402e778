/* The half-duplex engine's shared state and the functions its parts give each other (private
 * to half_engine.c, half_cut.c, half_cycles.c and half_rounds.c; see half_engine.c for the
 * algorithm). Weights are in grains: bytes per unit of weight, st->grain. */
#ifndef HRELAY_PLAN_HALF_STATE_H
#define HRELAY_PLAN_HALF_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "plan/half_engine.h"
#include "plan/load_matching.h"
#include "plan/plan.h"

/* The contiguous byte range [start, start + bytes) of one message on one bipartite edge, and
 * its length in grains. */
typedef struct half_part {
    uint64_t start, bytes, grains;
} half_part;

/* Bipartite edge L_u - R_v (in the matching engine: sender u, receiver v): part 0 is a part of
 * message u -> v, part 1 of message v -> u; part 0 goes first (the matching engine's split point
 * is its grains), so the count of grains moved tells which part is current and how far. */
typedef struct half_edge {
    half_part part[2];
} half_edge;

/* One matched edge of an iteration: bytes [lo, hi) of message src -> dst (the iteration's
 * super-packet, shorter at the end of a part). */
typedef struct half_link {
    int src, dst;
    uint64_t lo, hi;
} half_link;

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
typedef struct half_comp {
    int start, n, kind, role;
    int helped_off; /* paired: first round of the six in which this component is helped */
    int hp[3];      /* paired: the ranks of the partner that forward pieces 0, 1, 2 */
} half_comp;

/* A deferred piece (odd P): bytes [off, off + left) of message origin -> target. */
typedef struct half_debt {
    int origin, target;
    uint64_t off, left;
} half_debt;

/* The half-duplex engine's state: the messages cut on the bipartite edges, the matching engine
 * over them, the current iteration's 2-relation and the deferred pieces. */
typedef struct half_state {
    int p;
    uint64_t grain;     /* bytes per unit of weight; 0: a part is one unit (whole messages) */
    int forwarding;
    uint64_t min_step;
    half_edge *e;       /* p * p, e[u * p + v] is L_u - R_v */
    lm_graph g;         /* the bipartite graph in grains and its matching */
    /* the current iteration */
    half_link *links;   /* indexed by the L vertex */
    int *verts, *lk;    /* p entries each: components one after the other */
    half_comp *comps;
    int ncomps;
    int *onpath;        /* scratch: visit marks */
    uint64_t defer_cap; /* odd P: largest super-packet of an iteration that defers an edge */
    uint64_t f;         /* round size: f + (bit r of extra) bytes in round r */
    unsigned extra;
    short *extra_cache; /* [rho * 4096 + set of edge types]: best extra, -1 unknown */
    /* deferred pieces (odd P) */
    half_debt *debts;
    int ndebts;
    char *busy;         /* rank has a deferred piece */
} half_state;

/* Appends a transfer src -> dst with bytes [lo, hi) of message origin -> target, if any. */
static inline int half_emit(plan *pl, int src, int dst, int origin, int target, uint64_t lo,
                            uint64_t hi, plan_error *err)
{
    if (hi <= lo)
        return 0;
    if (plan_add_transfer(pl, src, dst, err) ||
        plan_add_segment(pl, origin, target, lo, hi - lo, err))
        return -1;
    return 0;
}

/* The link between the k-th and next rank of component c. */
static inline int half_link_at(const half_state *st, const half_comp *c, int k)
{
    return st->lk[c->start + k];
}

/* Whether c is a cycle of odd length with all its edges (the ones that need help). */
static inline int half_full_odd(const half_comp *c)
{
    return c->kind == K_CYCLE && c->n % 2;
}

/* ---- half_cut.c: the messages cut in two parts on the bipartite graph (Sec. 2.1) ---- */

/* Allocates the state, cuts the messages of m as mode says and builds the bipartite graph.
 * Returns 0 or -1 (out of memory; st then holds no memory). */
int half_state_init(half_state *st, const plan_matrix *m, const half_mode *mode);

/* Frees the state (the matching engine too, if it was built). */
void half_state_free(half_state *st);

/* ---- half_cycles.c: the components of a 2-relation, and the deferred pieces (Sec. 2.4) ---- */

/* Splits the 2-relation given by the matching into components (paths from their first rank,
 * cycles from their lowest rank). */
void half_build_components(half_state *st);

/* Names full odd cycle c so that its closing edge carries data from its last rank to its
 * first (reversing the order if needed). */
void half_orient_cycle(half_state *st, half_comp *c);

/* One step sending up to tau bytes of every deferred piece (all of them if tau == 0). Returns 0
 * or -1 with err set. */
int half_flush_debts(half_state *st, plan *pl, uint64_t tau, plan_error *err);

/* Odd P, every component a cycle with all its edges: defers one edge whose ranks have no
 * deferred piece yet (flushing the smallest deferred size first while there is none), an edge
 * of an odd cycle if possible. Returns the opened component, or NULL with err set. */
half_comp *half_defer_edge(half_state *st, plan *pl, plan_error *err);

/* The helper for the one odd cycle left without a partner: an idle rank, else a path with an
 * odd number of ranks, else one with four or more, else a single edge; NULL if none. */
half_comp *half_pick_helper(half_state *st);

/* Whether the current 2-relation has an odd number of odd cycles with all their edges and
 * no idle rank or path to help the last one (only for odd P): one edge must be deferred. */
int half_needs_deferral(half_state *st);

/* ---- half_rounds.c: the 12 rounds of a forwarding iteration (Sec. 2.3) ---- */

/* Makes a and b partners: a is helped in rounds 0-5 by ranks of b, b in rounds 6-11. */
void half_pair(half_state *st, half_comp *a, half_comp *b);

/* The set of edge types (bit t: type t) of the current 2-relation's links, roles assigned. */
unsigned half_present_types(const half_state *st);

/* Chooses the round sizes of a forwarding iteration whose super-packet has n = 5 f + rho bytes
 * (rho < 5): f bytes each, one more in the rounds of st->extra, the fewest such rounds (then the
 * lowest mask) with which every edge type in present (bit t: type t) gets n bytes from its five
 * pieces. Sets st->f and st->extra. */
void half_choose_round_sizes(half_state *st, uint64_t f, unsigned rho, unsigned present);

/* Emits the 12 rounds of a forwarding iteration, one step each (empty steps dropped), for every
 * component of the current 2-relation (roles assigned, round sizes chosen). Returns 0 or -1
 * with err set. */
int half_schedule_rounds(half_state *st, plan *pl, plan_error *err);

#endif
