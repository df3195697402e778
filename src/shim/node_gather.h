/* The miss path of node-direct at node scale (node_gather.c): a new pattern's metadata
 * exchanged as the N x N node matrix and each rank's own column, never the P x P matrix, and
 * each rank's program built from its own row and column (plan_node_local_own). */
#ifndef HRELAY_SHIM_NODE_GATHER_H
#define HRELAY_SHIM_NODE_GATHER_H

#include "shim/call.h"
#include "shim/comm.h"
#include "shim/miss.h"

/* Whether a new pattern of a call run for `request` on rec takes the node-level path: the
 * request is node-direct and rec's communicator has a node with more than one rank (with one
 * rank per node the node matrix is the P x P matrix, and the usual gather is cheaper). The
 * same on every rank. */
int shim_node_path(const shim_comm *rec, int request);

/* Makes sure rec has the memory a new pattern of a call run for `request` needs: the node
 * path's metadata ((N + 1)^2 + P words), else the P x P gather buffer
 * (shim_comm_gather_buffer), and for auto on nodes of several ranks both (its forecast may
 * take either). Returns 0, or -1 when out of memory (the agreement's can_gather). */
int shim_miss_buffer(shim_comm *rec, int request);

/* The miss path of call c on the node-level path (collective over its communicator; every
 * rank the same outcome, as shim_miss): for HRELAY_ALGO=node-direct (shim_node_path), or for
 * auto where its forecast plans node-direct alone (plan_forecast.node_path). ok is whether
 * every rank's arguments are fine (the agreement). Erroneous arguments somewhere: one small allreduce raises this rank's own error
 * class, else the lowest erroneous rank's, on every rank (or runs MPI's exchange where a rank
 * asks for it). Else: the node matrix (a reduction on each node, an allgather between the
 * nodes' first ranks, a broadcast on each node: N + 1 words per rank, N (N + 1) per node) and
 * this rank's column (MPI_Alltoall of one word per pair); the node plan (direct on the node
 * matrix) and this rank's part of node-direct from its row and column; one allreduce agrees on
 * truncation (then MPI's own exchange runs, as shim_miss) and on whether every rank could
 * plan and prepare the run (else native); a cache slot is filled. */
shim_miss_result shim_node_miss(shim_call *c, int ok);

#endif
