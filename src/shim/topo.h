/* The topology of a communicator: the node of every rank, which node-level plans schedule
 * (plan/topo.h), found once when the communicator's record is created, and the communicators
 * the node-level metadata exchange needs (node_gather.c), created on first use (topo.c). */
#ifndef HRELAY_SHIM_TOPO_H
#define HRELAY_SHIM_TOPO_H

#include <mpi.h>
#include <stdint.h>

#include "exec/node_window.h"
#include "plan/plan.h"
#include "plan/topo.h"

/* A communicator's topology. Every field is the same on every rank of the communicator
 * (agreed at creation), but for the communicators, which are each rank's own handles. */
typedef struct shim_topo {
    plan_topo t;      /* the node of every rank; t.p == 0: one rank per node (no topology) */
    int node_size;    /* the HRELAY_NODE_SIZE it was made with (SHIM_NODE_AUTO or K) */
    int nodes;        /* number of nodes (the communicator's size with one rank per node) */
    int lanes_min;    /* fewest ranks on one node */
    int lanes_max;    /* most ranks on one node */
    int consecutive;  /* every node's ranks are consecutive ranks of the communicator */
    uint64_t layout;  /* a hash of the node of every rank (equal layouts, equal hashes; in
                         this process's byte order, compared within the process only) */
    MPI_Comm node;    /* this rank's node (rank = lane); MPI_COMM_NULL until shim_topo_comms */
    MPI_Comm leaders; /* lane 0 of every node (rank = node); MPI_COMM_NULL elsewhere */
    int have_comms;   /* shim_topo_comms succeeded */
    uint64_t node_patterns; /* new patterns whose metadata was exchanged at node level */
    uint64_t *meta;         /* a new pattern's node-level metadata (node_gather.c), allocated at
                               the first one */
    exec_window window;     /* node's shared memory for node-aggregate (HRELAY_NODE_SHM) */
} shim_topo;

/* Finds the topology of comm (collective over it; p ranks, this one `rank`) under
 * HRELAY_NODE_SIZE = node_size: SHIM_NODE_AUTO, the nodes MPI_Comm_split_type
 * (MPI_COMM_TYPE_SHARED) finds, each named by its lowest rank and the names allgathered; K,
 * consecutive groups of K ranks of MPI_COMM_WORLD (a communicator whose ranks are permuted
 * sees them placed out of order); 1, one rank per node, without any communication. Every rank
 * ends with the same topology: if any rank fails (out of memory), all of them take one rank
 * per node. Returns an MPI error code (of a collective); st is usable (one rank per node) even
 * then. */
int shim_topo_init(shim_topo *st, MPI_Comm comm, int p, int rank, int node_size);

/* Finds the topology of comm (p ranks) without any communication where the node of every rank
 * is known from MPI_COMM_WORLD: HRELAY_NODE_SIZE = 1 or K, or auto once shim_world_labels
 * found the world's nodes, and every rank of comm is a rank of MPI_COMM_WORLD (not so after
 * MPI_Comm_spawn or MPI_Comm_connect). The same topology as shim_topo_init. Returns 1 when it
 * applies, with *ok 0 where this rank ran out of memory (the caller agrees on *ok and calls
 * shim_topo_one on every rank where some rank failed); 0 when it does not (on every rank of
 * comm alike: they share its group), st then for shim_topo_init. */
int shim_topo_init_local(shim_topo *st, MPI_Comm comm, int p, int node_size, int *ok);

/* Makes st one rank per node on p ranks (freeing the placement it held). */
void shim_topo_one(shim_topo *st, int p);

/* The placement plans are built under: NULL when every node holds one rank (the rank-level
 * view, plan_options.topo NULL). */
const plan_topo *shim_topo_plan(const shim_topo *st);

/* The placement auto models and plans the node-level families under: st's topology when there
 * are several nodes and some node holds several ranks (2 <= N < P), else NULL (one rank per
 * node: the node-level families are their base families; one node: no NIC to schedule; every
 * model is the rank-level one). */
const plan_topo *shim_topo_nodes(const shim_topo *st);

/* Makes sure st->node and st->leaders exist (collective over priv, at the same call on every
 * rank). Returns an MPI error code. */
int shim_topo_comms(shim_topo *st, MPI_Comm priv);

/* The node steps a program of family algo on topology st keeps in flight (exec_opts.steps):
 * HRELAY_NODE_STEPS (auto: plan_topo_steps_default of st) for node-level families, 0 (no
 * limit: the window alone) for the others. */
int shim_topo_steps(const shim_topo *st, plan_algo algo);

/* The steps a program of family algo (nsteps steps, modeled at model_ps without barriers) on
 * topology st runs synchronised (exec_opts.sync_steps): nsteps for a node-level family on a
 * topology with a node of several ranks under HRELAY_NODE_SYNC=1, or =auto where nsteps - 1
 * barriers over p ranks (plan_cost_barrier) are modeled at most 1 / SHIM_NODE_SYNC_SHARE of
 * model_ps (else 0: HRELAY_NODE_STEPS in flight, shim_topo_steps); nsteps for any other plan
 * under HRELAY_RANK_SYNC=1, else 0 (HRELAY_WINDOW in flight). The same on every rank. */
size_t shim_topo_sync(const shim_topo *st, plan_algo algo, size_t nsteps, uint64_t model_ps,
                      int p);

/* The bytes of node load a group of consecutive synchronised node-direct steps may carry
 * without barriers between them (plan_node_step_groups): HRELAY_NODE_JOIN, by default
 * SHIM_NODE_JOIN_STEPS times shim_topo_step_bytes(p). */
uint64_t shim_topo_join_bytes(int p);

/* The price of one node step in bytes of a NIC under the cost model, at which node plans on p
 * ranks trade steps for bytes (plan_options.node_step_bytes): step_ps, plus a barrier over p
 * ranks (plan_cost_barrier) unless HRELAY_NODE_SYNC=0, over beta; at least 1. */
uint64_t shim_topo_step_bytes(int p);

/* Frees what st holds (its communicators too); st may be zero-initialised. */
void shim_topo_free(shim_topo *st);

#endif
