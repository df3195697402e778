/* A communication schedule: steps of transfers, each transfer a list of byte segments; the one
 * dispatch that plans a matrix with a family (plan_build; the families themselves are in
 * plan/families.h); checking and writing a plan. Pure C, no MPI. The JSON form is described in
 * README.md ("Plan format"). */
#ifndef HRELAY_PLAN_PLAN_H
#define HRELAY_PLAN_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "plan/error.h"
#include "plan/matrix.h"

/* Schedule families. Names (plan_algo_name) are the HRELAY_ALGO spellings. */
typedef enum plan_algo {
    PLAN_ALGO_NATIVE = 0, /* not a plan: the MPI library's own algorithm */
    PLAN_ALGO_DIRECT = 1, /* weighted bipartite decomposition, bandwidth-optimal (plan/direct.c) */
    PLAN_ALGO_STEPWISE,   /* Desprez et al.: fewest steps (max degree), whole messages */
    PLAN_ALGO_GREEDY,     /* Desprez et al.: heaviest-first matchings, whole messages */
    PLAN_ALGO_WALKER_OTTO, /* Walker-Otto: closed form for cyclic(r) -> cyclic(Kr) patterns */
    PLAN_ALGO_TRANSPOSE,  /* Bader-Helman-JaJa two-round transpose through intermediates */
    PLAN_ALGO_FORWARD,    /* Sanders-Solis-Oba half-duplex schedule with forwarding */
    /* Node-level families (plan/node.h): the node matrix planned by a family above, each node
     * transfer carried by the ranks (lanes) of its nodes; given plan_options.topo. */
    PLAN_ALGO_NODE_DIRECT,    /* direct on nodes, every rank carrying its own messages */
    PLAN_ALGO_NODE_TRANSPOSE, /* transpose on nodes (relay ranks on intermediate nodes) */
    PLAN_ALGO_NODE_FORWARD,   /* forward on nodes (relay ranks on helper nodes) */
    PLAN_ALGO_NODE_AGGREGATE, /* direct on nodes, gathered on the node, one message per lane */
    PLAN_ALGO_COUNT
} plan_algo;

/* The byte range [offset, offset + bytes) of the message from rank origin to rank target. */
typedef struct plan_segment {
    int32_t origin;
    int32_t target;
    uint64_t offset;
    uint64_t bytes;
} plan_segment;

/* One message from src to dst carrying segments [seg_begin, seg_begin + nsegs) of the plan. A
 * segment with origin != src forwards data src received earlier; target != dst is forwarded on. */
typedef struct plan_transfer {
    int32_t src;
    int32_t dst;
    uint32_t nsegs;
    size_t seg_begin;
    uint64_t bytes; /* sum of the segments' bytes */
} plan_transfer;

/* A schedule for p ranks. Step s holds transfers [step_begin[s], step_begin[s + 1]). Within a
 * step every rank sends at most one and receives at most one transfer (full duplex) or takes
 * part in at most one transfer (half duplex). Self-messages are not part of a plan. A node plan
 * (nnodes > 0) obeys that rule for nodes instead of ranks: in a step the transfers between
 * different nodes go from each node to at most nic_peers other nodes and into each node from at
 * most nic_peers (full duplex), and no node both sends and receives such transfers (half
 * duplex); transfers within a node are not limited (a rank may take part in several). */
typedef struct plan {
    int p;
    plan_algo algo;
    plan_duplex duplex;
    uint64_t min_step_bytes; /* the merge threshold the planner used; 0 = exact */
    uint64_t packet_bytes;   /* the grain or packet unit of the plan; 0 if it has none */

    size_t nsteps;
    size_t *step_begin; /* nsteps + 1 entries */
    size_t ntransfers;
    plan_transfer *transfers;
    size_t nsegments;
    plan_segment *segments;

    size_t cap_steps, cap_transfers, cap_segments; /* allocated lengths */

    int nnodes;         /* 0: a rank-level plan; else the number of nodes of a node plan */
    int32_t *node_of;   /* node plans: the node of every rank (p entries, owned) */
    uint32_t nic_peers; /* node plans: peer nodes per NIC and step, see above */
} plan;

/* Cost model parameters used to print modeled times (JSON "model", text summary). */
typedef struct plan_model {
    double alpha_s;         /* seconds per transfer (latency) */
    double beta_s_per_byte; /* seconds per byte (inverse bandwidth) */
} plan_model;

/* The merge threshold the shim uses when HRELAY_MIN_STEP is not set: a step moving less than
 * this per transfer is dominated by per-message latency on common networks (alpha / beta is
 * 2-50 KB for alpha = 2-5 us and 0.1-1 ns per byte). */
#define PLAN_DEFAULT_MIN_STEP_BYTES ((uint64_t)32768)

/* Parameters of every family, for plan_build. Zero-initialised means: full duplex, exact direct
 * plans, grain 1 byte for transpose, PLAN_DEFAULT_PACKET_BYTES for forward, no size limit. */
typedef struct plan_options {
    uint64_t min_step_bytes; /* direct: plan_direct_opts (plan/families.h), or
                                PLAN_MIN_STEP_AUTO (below) */
    uint64_t grain_bytes;    /* transpose: unit of dealing (0 means 1) */
    uint64_t packet_bytes;   /* forward: packet size (0 means PLAN_DEFAULT_PACKET_BYTES) */
    size_t max_segments;     /* direct, forward: fail (deterministically) rather than build a
                                plan of more segments; 0 = no limit */
    plan_duplex duplex;      /* every family: the model the plan's steps obey (PLAN_DUPLEX_FULL,
                                0, or PLAN_DUPLEX_HALF); forward is half duplex in both */
    const struct plan_topo *topo; /* node families: the ranks' nodes (plan/topo.h); NULL: one
                                     rank per node. Rank-level families ignore it */
    uint64_t node_step_bytes;     /* node families built on direct: the price of one node
                                     step in bytes of the busiest NIC (a step's fixed cost
                                     over the NIC's time per byte); the node plan trades steps
                                     for bytes at this price (0: at its minimum step;
                                     plan_direct_opts.step_price, plan/families.h).
                                     Rank-level families ignore it */
} plan_options;

/* min_step_bytes = PLAN_MIN_STEP_AUTO: the larger of PLAN_DEFAULT_MIN_STEP_BYTES and the lower
 * bound / (4p), so that steps stay latency-efficient and a dense plan holds O(p^2) transfers
 * (an exact one holds O(p^3)). */
#define PLAN_MIN_STEP_AUTO UINT64_MAX

/* The minimum step size PLAN_MIN_STEP_AUTO stands for, for matrix m. */
uint64_t plan_auto_min_step(const plan_matrix *m);

/* The packet size of the forwarding family when none is given. */
#define PLAN_DEFAULT_PACKET_BYTES ((uint64_t)65536)

/* Plans m with family algo (any but PLAN_ALGO_NATIVE) and options o (NULL: defaults): the one
 * dispatch the shim and the tools share. Under o->duplex == PLAN_DUPLEX_HALF every family
 * gives a half-duplex plan (pl->duplex == PLAN_DUPLEX_HALF): direct plan_direct_half,
 * stepwise plan_stepwise_half, greedy plan_greedy_half, transpose plan_transpose_half,
 * walker-otto its schedule split by plan_split_half; forward's plan is half duplex under
 * either setting (valid in the full-duplex model too). A node family (plan/node.h) plans the
 * node matrix under o->topo with its base family and o's parameters and expands it over the
 * ranks. Returns 0, or -1 with err set (a family that cannot plan m, such as walker-otto on
 * another pattern, fails). */
int plan_build(plan_algo algo, const plan_matrix *m, const plan_options *o, plan *pl,
               plan_error *err);

/* The HRELAY_ALGO name of algo ("native", "direct"), or "unknown". */
const char *plan_algo_name(plan_algo algo);

/* Parses a family name; returns 0 and sets *algo, or -1 for an unknown name. */
int plan_algo_parse(const char *name, plan_algo *algo);

/* Makes pl an empty plan (no steps) for p ranks. Returns 0, or -1 with err set. */
int plan_init(plan *pl, int p, plan_algo algo, plan_duplex duplex, plan_error *err);

/* Releases a plan's memory; pl may be zero-initialised or already freed. */
void plan_free(plan *pl);

/* Builder: makes room for at least the given numbers of transfers and segments in total, so
 * a planner that knows its output size avoids repeated growth. Returns 0 or -1 with err set. */
int plan_reserve(plan *pl, size_t ntransfers, size_t nsegments, plan_error *err);

/* Builder: opens a new (empty) step. Returns 0, or -1 (out of memory) with err set. */
int plan_begin_step(plan *pl, plan_error *err);

/* Builder: appends a transfer src -> dst to the current step. Returns 0 or -1 with err set. */
int plan_add_transfer(plan *pl, int src, int dst, plan_error *err);

/* Builder: appends a segment to the last transfer and adds its bytes to the transfer's total.
 * Returns 0 or -1 with err set. */
int plan_add_segment(plan *pl, int origin, int target, uint64_t offset, uint64_t bytes,
                     plan_error *err);

/* Builder: appends n transfers to the current step, transfer k carrying segs[k] alone, from
 * segs[k].origin to segs[k].target (a message sent directly). segs may be the plan's own
 * segment array from entry nsegments on, when plan_reserve made room for the n segments (a
 * planner that writes them in place). Returns 0, or -1 (out of memory) with err set. */
int plan_add_direct_transfers(plan *pl, const plan_segment *segs, size_t n, plan_error *err);

/* Builder: drops the current step if it has no transfer (keeps step_begin consistent). */
void plan_end_step(plan *pl);

/* Sum over steps of the largest transfer in the step, in bytes: the plan's bandwidth term. */
uint64_t plan_bandwidth_term(const plan *pl);

/* Modeled time: sum over steps of (alpha + beta * largest transfer of the step). */
double plan_modeled_cost(const plan *pl, const plan_model *model);

/* Checks pl against m independently of any planner: ranks in range, no self-transfer, the step
 * constraint of pl->duplex (for nodes in a node plan: the NIC rule), each transfer's byte
 * total, a forwarded segment held by its sender before it is sent, and every byte of every
 * off-diagonal message delivered to its target exactly once (nothing missing, nothing twice,
 * nothing left at an intermediate). Returns 0 if the plan is valid, or -1 with err describing
 * the first violation. */
int plan_verify(const plan_matrix *m, const plan *pl, plan_error *err);

/* Writes pl as one JSON object (README "Plan format"), with the "model" block computed from m
 * and model, followed by a newline. Returns 0, or -1 on a write error. */
int plan_write_json(FILE *out, const plan *pl, const plan_matrix *m, const plan_model *model);

/* Writes pl as an SVG Gantt chart: one row per rank, time along x (each step as wide as its
 * modeled duration under model), every segment of every transfer a bar in the sender's and the
 * receiver's row coloured by the rank whose data it carries, forwarded data outlined, the lower
 * bound marked. Node plans: rows grouped by node (a line of class "node" and a label per node),
 * a rank's transfers of one step one after another, the node bound marked. Two elements of
 * class "xfer" per segment: size grows with the plan. Returns 0, or -1 on a write error. */
int plan_write_svg(FILE *out, const plan *pl, const plan_matrix *m, const plan_model *model);

/* Writes a short human-readable summary: P, algorithm, steps, transfers, bandwidth term, lower
 * bound, their ratio, modeled cost; for node plans also the nodes, the NIC rule, NIC bytes per
 * step, the NIC bandwidth term, the node bound and their ratio. Returns 0, or -1 on a write
 * error. */
int plan_write_text(FILE *out, const plan *pl, const plan_matrix *m, const plan_model *model);

#endif
