/* Which rank runs on which node: the topology node-level plans schedule for. Pure C, no MPI.
 * The node's NIC is the endpoint of the network; on-node traffic moves through shared memory.
 * Nodes are numbered by their lowest rank (the node of rank 0 is node 0), and a rank's lane is
 * its index among its node's ranks in rank order, so every rank derives the same numbering
 * from the same node_of array. */
#ifndef HRELAY_PLAN_TOPO_H
#define HRELAY_PLAN_TOPO_H

#include <stddef.h>
#include <stdint.h>

#include "plan/error.h"
#include "plan/matrix.h"

/* P ranks on N nodes. Any placement: uneven rank counts, ranks of a node not consecutive. */
typedef struct plan_topo {
    int p;            /* ranks */
    int n;            /* nodes */
    int32_t *node_of; /* p entries: the node of each rank, in [0, n) */
    int32_t *lane_of; /* p entries: the index of each rank among its node's ranks */
    int32_t *first;   /* n + 1 entries: node a's ranks are rank_at[first[a] .. first[a + 1]) */
    int32_t *rank_at; /* p entries: the ranks grouped by node, in rank order within a node */
} plan_topo;

/* Makes t the topology of p ranks where rank r runs on the node labelled label[r]. Labels are
 * any non-negative integers naming nodes (equal labels: the same node); nodes are renumbered
 * by their lowest rank. Returns 0, or -1 (p < 1, a negative label, out of memory) with err
 * set; on failure t holds no memory. */
int plan_topo_init(plan_topo *t, int p, const int32_t *label, plan_error *err);

/* Makes t the topology of p ranks in consecutive groups of k (k >= 1): rank r on node r / k
 * (the last node holds p mod k ranks when k does not divide p). Returns 0, or -1 with err set. */
int plan_topo_consecutive(plan_topo *t, int p, int k, plan_error *err);

/* Copies src into dst. Returns 0, or -1 (out of memory) with err set. */
int plan_topo_copy(plan_topo *dst, const plan_topo *src, plan_error *err);

/* Releases t's memory; t may be zero-initialised or already freed. */
void plan_topo_free(plan_topo *t);

/* The number of ranks (lanes) of node a. */
static inline int plan_topo_lanes(const plan_topo *t, int a)
{
    return t->first[a + 1] - t->first[a];
}

/* The rank at lane `lane` (in [0, plan_topo_lanes(t, a))) of node a. */
static inline int plan_topo_rank(const plan_topo *t, int a, int lane)
{
    return t->rank_at[t->first[a] + lane];
}

/* The most ranks on one node. */
int plan_topo_max_lanes(const plan_topo *t);

/* The node steps a node-level plan on t keeps in flight unless told otherwise: (n - 1) / 4,
 * at least 1 and at most 4, so that the NIC of a node talks to about a quarter of the other
 * nodes at once at most (with all n - 1 steps of a dense node plan in flight, nothing is
 * scheduled at all). Measured on emulated clusters: docs/algorithms.md. */
int plan_topo_steps_default(const plan_topo *t);

/* The fewest ranks on one node. */
int plan_topo_min_lanes(const plan_topo *t);

/* Makes nm the N x N node matrix of m (m->p == t->p): entry (a, b), a != b, is what node a's
 * ranks send to node b's ranks in all; the diagonal (a, a) holds node a's on-node bytes (its
 * ranks' messages to each other, self-messages excluded), which no node-level planner
 * schedules. Returns 0, or -1 (size mismatch, out of memory, a node sending 2^64 bytes or more)
 * with err set; nm must not hold memory, and holds none on failure. */
int plan_topo_node_matrix(const plan_topo *t, const plan_matrix *m, plan_matrix *nm,
                          plan_error *err);

/* The node-level lower bound in bytes: max over nodes of max(off-node bytes sent, off-node
 * bytes received) (full duplex) or of their sum (half duplex). No schedule whose NICs move one
 * byte at a time each way (one in all, half duplex) moves m's off-node bytes in less. */
uint64_t plan_topo_nic_bound(const plan_topo *t, const plan_matrix *m, plan_duplex duplex);

/* The on-node term in bytes, reported apart because on-node copies run at another rate: the
 * largest max(bytes sent, bytes received) (full duplex) or their sum (half duplex) of one
 * rank's messages to other ranks of its node. 0 with one rank per node. */
uint64_t plan_topo_local_bound(const plan_topo *t, const plan_matrix *m, plan_duplex duplex);

/* Parses a placement "a,b,c,...": the node label of each rank, comma-separated non-negative
 * decimal integers (see plan_topo_init). Returns 0 and fills t, or -1 with err set (empty
 * list, a bad or overflowing label, out of memory). */
int plan_topo_parse(const char *list, plan_topo *t, plan_error *err);

#endif
