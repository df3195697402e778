/* The summary of an exchange: what each rank knows of the pattern before anything is exchanged
 * (the bytes it sends to and receives from each rank), reduced to a few words per rank that
 * combine over ranks by maximum or sum, and what follows from the combined words without the
 * P x P matrix: the lower bound, the model of the MPI library's own algorithm, each family's
 * most optimistic time and its planning time. Pure C, no MPI, integer arithmetic, so every
 * rank derives the same figures from the same combined summary. */
#ifndef HRELAY_PLAN_SUMMARY_H
#define HRELAY_PLAN_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "plan/cost.h"
#include "plan/matrix.h"
#include "plan/plan.h"
#include "plan/topo.h"

/* Words combined by maximum over ranks. Bytes and messages are off-diagonal (a rank's message
 * to itself is a local copy). */
enum {
    PLAN_SUMMARY_SENT,        /* bytes a rank sends */
    PLAN_SUMMARY_RECEIVED,    /* bytes a rank receives */
    PLAN_SUMMARY_LOAD_FULL,   /* max(sent, received): the full-duplex bound */
    PLAN_SUMMARY_LOAD_HALF,   /* sent + received: the half-duplex bound */
    PLAN_SUMMARY_LOAD_SHARED, /* the larger + the duplex share of the smaller
                                 (plan_matrix_shared_load with the calibrated duplex) */
    PLAN_SUMMARY_DEGREE_FULL, /* max(messages sent, messages received) */
    PLAN_SUMMARY_DEGREE_HALF, /* messages sent + received */
    PLAN_SUMMARY_LARGEST,     /* the largest message a rank sends */
    PLAN_SUMMARY_NOT_SMALLEST, /* UINT64_MAX - the smallest message a rank sends (zero
                                  counted): the maximum of this is the smallest overall */
    /* under the placement of the summary (one rank per node: off-node is every byte) */
    PLAN_SUMMARY_OFF_SENT,     /* bytes a rank sends to other nodes */
    PLAN_SUMMARY_OFF_RECEIVED, /* bytes a rank receives from other nodes */
    PLAN_SUMMARY_OFF_HALF,     /* the two added */
    PLAN_SUMMARY_LOCAL_FULL,   /* max(on-node bytes sent, received) of a rank */
    PLAN_SUMMARY_LOCAL_HALF,   /* on-node bytes sent + received */
    PLAN_SUMMARY_MAX
};

/* Words combined by sum over ranks (BALANCE modulo 2^64). */
enum {
    PLAN_SUMMARY_MESSAGES, /* messages (non-zero off-diagonal entries) */
    PLAN_SUMMARY_PACKETS,  /* forward's packets: each message in whole packets */
    PLAN_SUMMARY_BALANCE,  /* a hash of every (sender, receiver, bytes) the senders send less
                              the same of what the receivers expect: 0 when they agree */
    PLAN_SUMMARY_OFF_TOTAL, /* bytes sent to other nodes */
    PLAN_SUMMARY_SUM
};

/* One rank's summary, or the summary of all ranks once combined. block[0 .. nblocks) holds
 * the scattered native model's blocks (plan_cost_native_rank), combined by maximum; the caller
 * owns its memory (plan_summary_blocks words). */
typedef struct plan_summary {
    int p;
    int nodes;   /* nodes of the placement it was made under (p: one rank per node); the same
                    on every rank, not combined */
    uint64_t max[PLAN_SUMMARY_MAX];
    uint64_t sum[PLAN_SUMMARY_SUM];
    size_t nblocks;
    uint64_t *block;
} plan_summary;

/* The words of block a summary of p ranks needs under cost c. */
size_t plan_summary_blocks(int p, const plan_cost_params *c);

/* Fills s (its block array already set, plan_summary_blocks words) with rank `rank`'s part of
 * an exchange among p ranks placed by t (NULL: one rank per node): row[j] the bytes it sends
 * to rank j, col[i] the bytes it receives from rank i; forward's packets of packet_bytes
 * (> 0); cost c (the duplex share, the native model). O(p). */
void plan_summary_rank(plan_summary *s, int p, int rank, const uint64_t *row,
                       const uint64_t *col, const plan_topo *t, uint64_t packet_bytes,
                       const plan_cost_params *c);

/* Rank `rank`'s balance word (plan_summary_rank's PLAN_SUMMARY_BALANCE) of an exchange among p
 * ranks, row and col as there: summed over every rank, zero where every receiver expects
 * exactly the bytes its senders send (plan_summary_consistent). O(p). */
uint64_t plan_summary_balance(int p, int rank, const uint64_t *row, const uint64_t *col);

/* Combines from into into, word by word (maximum or sum as above). Both of the same p. */
void plan_summary_merge(plan_summary *into, const plan_summary *from);

/* The summary of all ranks of matrix m placed by t (NULL: one rank per node; s->block set as
 * for plan_summary_rank): every rank's part combined. Returns 0, or -1 when out of memory. For
 * tests and tools; the library combines the ranks' parts with one allreduce. */
int plan_summary_of_matrix(plan_summary *s, const plan_matrix *m, const plan_topo *t,
                           uint64_t packet_bytes, const plan_cost_params *c);

/* Whether every receiver expects exactly the bytes its senders send (the balance is zero; a
 * mismatch, such as a truncated call, is found with probability 1 - 2^-64): then the summary
 * describes the matrix of the rows exactly. */
int plan_summary_consistent(const plan_summary *s);

/* Whether the summary's placement holds several ranks on a node (nodes < p) and no byte of the
 * exchange leaves its node: no NIC carries any of it, so no schedule of NICs can beat MPI's
 * algorithm, whose on-node messages take the same shared-memory path. */
int plan_summary_on_node(const plan_summary *s);

/* The lower bound in bytes of the links' duplex mode (plan_matrix_lower_bound). */
uint64_t plan_summary_bound(const plan_summary *s, plan_duplex duplex);

/* The fewest steps of a schedule of whole messages (plan_matrix_max_degree). */
uint64_t plan_summary_degree(const plan_summary *s, plan_duplex duplex);

/* The modeled time of the MPI library's own algorithm (plan_cost_native, exactly). */
uint64_t plan_summary_native(const plan_summary *s, plan_native_kind kind,
                             const plan_cost_params *c);

/* The modeled time of the MPI library's own algorithm before the matrix is known: with one
 * rank per node plan_summary_native; with several ranks per node (2 <= nodes < p) at least the
 * node-level bound too (plan_summary_topo_bound: the ranks of a node share its NIC, which
 * plan_cost_native's rank-level blocks do not see), so that a correction learned from it
 * measures MPI's algorithm against the same network the node-level families are modeled on;
 * for MPI_Alltoallv on full-duplex links that bound plus native_pct percent of the smaller of
 * the busiest NIC's bytes and the nodes' average (its all-at-once blocks send and receive at
 * once over every NIC, as plan_cost_topo_native models them once the matrix is known). */
uint64_t plan_summary_native_at(const plan_summary *s, plan_native_kind kind, plan_duplex duplex,
                                const plan_cost_params *c);

/* A lower bound in picoseconds of the node-level bound (plan_cost_topo_bound) of the
 * summary's placement, from its words alone: the larger of beta times the busiest NIC's bytes,
 * at least those of the rank with the most off-node bytes and at least the nodes' average
 * (PLAN_SUMMARY_OFF_TOTAL / nodes; twice that half duplex), and local_beta times the largest
 * on-node load of a rank (exact). Equal to plan_cost_topo_bound where the busiest node's NIC
 * carries the average or one rank's bytes (uniform patterns, one hot rank per node). */
uint64_t plan_summary_topo_bound(const plan_summary *s, plan_duplex duplex,
                                 const plan_cost_params *c);

/* The most optimistic modeled time of family a's schedule under the links' duplex mode. One
 * rank per node: the bound plus a step per message of the busiest rank; transpose's two rounds
 * twice the bound less the share that stays, and 2 (P - 1) steps; forward's half-duplex steps
 * under full-duplex links its overlapped bytes (plan_cost_overlap_bound) and the half-duplex
 * degree; no plan of the family is modeled faster (plan_cost_plan), and a node-level family's
 * is its base family's (plan_node_base: what it is then). Several ranks per node:
 * plan_summary_topo_bound plus the same steps for a rank-level family, plus one step for a
 * node-level one; no plan of the family is modeled faster by plan_cost_topo_plan. */
uint64_t plan_summary_optimistic(const plan_summary *s, plan_algo a, plan_duplex duplex,
                                 const plan_cost_params *c);

/* The modeled planning time of family a before planning: forward's from its packets
 * (plan_cost_planning_forward), the others' with a segment per message (plan_cost_planning);
 * a node-level family's is its base family's. */
uint64_t plan_summary_planning(const plan_summary *s, plan_algo a, const plan_cost_params *c);

#endif
