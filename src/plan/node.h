/* Node-level plans: the N x N node matrix planned by a rank-level family, expanded into a plan
 * for the P ranks in which the ranks (lanes) of each node carry its node-to-node transfers.
 * Pure C, no MPI. docs/algorithms.md ("Node-level families") describes the families.
 *
 * A node plan is an ordinary plan (plan.h) with its topology recorded (pl->nnodes,
 * pl->node_of) and the NIC rule in place of the rank rule: in every step each node sends to at
 * most pl->nic_peers other nodes and receives from at most as many (full duplex; half duplex:
 * it sends or receives, not both); transfers within a node are free of that rule. The plans
 * built here all have nic_peers == 1: the node plan's own step rule, one peer node per NIC. */
#ifndef HRELAY_PLAN_NODE_H
#define HRELAY_PLAN_NODE_H

#include <stddef.h>
#include <stdint.h>

#include "plan/local.h"
#include "plan/plan.h"
#include "plan/topo.h"

/* Whether algo is a node-level family (plan_build then needs plan_options.topo, NULL meaning
 * one rank per node). */
static inline int plan_algo_is_node(plan_algo algo)
{
    return algo >= PLAN_ALGO_NODE_DIRECT && algo < PLAN_ALGO_COUNT;
}

/* The rank-level family node family algo plans the node matrix with (direct, transpose or
 * forward). */
plan_algo plan_node_base(plan_algo algo);

/* Plans nm, a node matrix, with node family algo's base family and o's parameters (o->topo
 * unused); direct trades steps for bytes (plan_direct_opts.step_price) at
 * o->node_step_bytes per step, or at the node plan's minimum step where that is 0. What
 * plan_build does for a node family before expanding, for callers that hold only the node
 * matrix. Returns 0, or -1 with err set. */
int plan_build_node_matrix(plan_algo algo, const plan_matrix *nm, const struct plan_options *o,
                           plan *np, plan_error *err);

/* Expands np, a plan of the node matrix nm of m under topology t (plan_topo_node_matrix), into
 * pl, a node plan of m labelled algo (a node family): own messages for node-direct,
 * node-transpose and node-forward (plan_node_expand_own), aggregated for node-aggregate
 * (plan_node_expand_aggregate). max_segments 0: no limit; otherwise the expansion fails, the
 * same way on every rank, once pl would hold more segments. Returns 0, or -1 with err set (pl
 * then holds no memory). */
int plan_node_expand(plan_algo algo, const plan *np, const plan_matrix *m, const plan_matrix *nm,
                     const plan_topo *t, size_t max_segments, plan *pl, plan_error *err);

/* Own messages (no copies). Step s of pl is node step s of np. Every byte range [o1, o2) of
 * node message a -> b that np moves in a step carries the same fraction of each rank message
 * i -> j of that node pair: bytes [plan_node_cut(x, o1, M), plan_node_cut(x, o2, M)) of it (x
 * = m(i, j), M = nm(a, b)), which sender and receiver compute from x, M and np alone. A piece
 * leaves from its sender i (on a) or the relay rank holding it, and goes to its target j (on b)
 * or to the relay rank of the next node: plan_node_relay. Messages between ranks of one node
 * travel whole in step 0 (pl has a step 0 when there are any). In each step the node-level
 * bytes from a to b differ from np's by less than the number of rank messages of the pair
 * (rounding of the cuts); with one rank per node pl equals np step for step. Returns 0, or -1
 * with err set (pl then holds no memory). */
int plan_node_expand_own(const plan *np, const plan_matrix *m, const plan_matrix *nm,
                         const plan_topo *t, size_t max_segments, plan *pl, plan_error *err);

/* Aggregated. Node message a -> b is the concatenation, in rank order of i and then of j, of
 * the rank messages i -> j (i on a, j on b). Each range np moves from node u to node v in a
 * step is split evenly over min(L_u, L_v) lanes (lane l of u to lane l of v, sizes differing
 * by at most one byte), so the node-level bytes of each step are exactly np's. Before each such
 * step an on-node step brings every byte to the lane that sends it (from its owner: the
 * gather; from the lane that received it at an intermediate node), and the on-node step after
 * the arrival at the target node takes it from the receiving lane to its target rank (the
 * scatter); messages within a node go whole in the first on-node step. Empty steps are left
 * out. Returns 0, or -1 with err set (pl then holds no memory). */
int plan_node_expand_aggregate(const plan *np, const plan_matrix *m, const plan_matrix *nm,
                               const plan_topo *t, size_t max_segments, plan *pl,
                               plan_error *err);

/* The byte of a rank message of x bytes where offset o of its node message of M bytes falls:
 * floor(x * o / M) (0 when M is 0). Cuts at 0 and M are 0 and x, and cuts never decrease in o. */
static inline uint64_t plan_node_cut(uint64_t x, uint64_t o, uint64_t M)
{
    return M ? (uint64_t)((unsigned __int128)x * o / M) : 0;
}

/* The rank of node c that holds the pieces of rank message i -> j while they are on c: i on
 * i's node, j on j's node, else the lane (lane(i) + lane(j)) mod L_c of c, so a node pair's
 * messages spread evenly over an intermediate node's lanes. */
int plan_node_relay(const plan_topo *t, int c, int i, int j);

/* Checks a node plan independently of the expansion: pl's recorded topology is t, nic_peers
 * >= 1, in every step each node sends to at most nic_peers other nodes and receives from at
 * most nic_peers (half duplex: and does not do both), and plan_verify's checks (ranks, byte
 * totals, forwarded data held, every byte delivered exactly once). Returns 0 if the plan is
 * valid, or -1 with err describing the first violation. */
int plan_verify_node(const plan_matrix *m, const plan_topo *t, const plan *pl, plan_error *err);

/* The node-level bandwidth term in bytes of any plan of p ranks under the placement node_of:
 * the sum over steps of the largest node load of the step, a node's load being max(bytes its
 * ranks send to other nodes, bytes they receive from other nodes) (full duplex) or their sum
 * (half duplex). For a plan that obeys the NIC rule with one peer node that is the largest
 * node-pair total of the step (lanes added up). Never below plan_topo_nic_bound. Returns
 * UINT64_MAX when memory runs out. */
uint64_t plan_node_bandwidth(const plan *pl, const int32_t *node_of, plan_duplex duplex);

/* The largest node load (see plan_node_bandwidth) of every step of pl: pl->nsteps entries in
 * memory the caller frees, or NULL when memory runs out. node_of NULL: every rank of pl is its
 * own node (a plan of a node matrix). */
uint64_t *plan_node_step_loads(const plan *pl, const int32_t *node_of, plan_duplex duplex);

/* The groups of consecutive steps a synchronised node plan runs without a barrier between them,
 * from the largest node load of each step (plan_node_step_loads): a step joins the group before
 * it while the group's loads, its own added, come to at most join_bytes; a step heavier than
 * join_bytes is a group of its own, and join_bytes 0 makes every step one. Sets starts[s] (s <
 * nsteps) to 1 where step s begins a group (always step 0), else 0, and returns the number of
 * groups (0 for no steps). Greedy in step order: no group could take the first step of the
 * next one. */
size_t plan_node_step_groups(const uint64_t *loads, size_t nsteps, uint64_t join_bytes,
                             unsigned char *starts);

/* The display model of a node plan (hrelay-plan's JSON "cost_s", text and SVG): the sum over
 * steps of alpha + beta times the step's largest node load (on-node transfers not counted);
 * -1 when memory runs out. */
double plan_node_modeled_cost(const plan *pl, const plan_model *model);

/* What one rank knows to build its part of an own-messages node plan: its row and its column
 * of the P x P matrix, and what every rank has: the node matrix and the node plan. */
typedef struct plan_node_view {
    int rank;
    const uint64_t *row; /* p entries: bytes rank sends to each rank */
    const uint64_t *col; /* p entries: bytes each rank sends to rank */
} plan_node_view;

/* Builds rank v->rank's operations of the node plan plan_node_expand_own makes from np (a node
 * plan without forwarding: node-direct) into lo, from the node matrix, the node plan, the
 * topology and the rank's own row and column only (O(N^2 + P) words, no P x P matrix): the
 * same operations, segments and steps as plan_local_extract of the full expansion. lo owns its
 * segments (plan_local_free releases them). Returns 0, or -1 with err set (np forwards, out of
 * memory); lo then holds no memory. */
int plan_node_local_own(const plan *np, const plan_matrix *nm, const plan_topo *t,
                        const plan_node_view *v, plan_local *lo, plan_error *err);

#endif
