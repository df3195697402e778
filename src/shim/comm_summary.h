/* The report's "communicators": which topology the communicators hrelay handled got, grouped
 * by topology and merged over the ranks of MPI_COMM_WORLD (comm_summary.c). */
#ifndef HRELAY_SHIM_COMM_SUMMARY_H
#define HRELAY_SHIM_COMM_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

struct shim_comm;
struct shim_world;

/* Communicators of one topology. The first six fields are the key; the rest add up. */
typedef struct shim_comm_summary {
    int32_t size;           /* ranks */
    int32_t nodes;          /* nodes */
    int32_t lanes_min;      /* fewest ranks on one node */
    int32_t lanes_max;      /* most ranks on one node */
    int32_t consecutive;    /* every node's ranks are consecutive ranks of the communicator */
    int32_t node_size;      /* HRELAY_NODE_SIZE it was made with (SHIM_NODE_AUTO or K) */
    uint64_t comms;         /* communicators */
    uint64_t calls;         /* intercepted calls on them */
    uint64_t patterns;      /* new patterns decided */
    uint64_t node_patterns; /* of those, patterns whose metadata was exchanged at node level */
    uint64_t privates;      /* communicators that made hrelay's private duplicate */
    uint64_t declined;      /* communicators refused one (shim_comm_private): MPI's algorithm */
} shim_comm_summary;

/* A list of summaries, one per topology. */
typedef struct shim_comm_summaries {
    shim_comm_summary *v;
    size_t n, cap;
} shim_comm_summaries;

/* Adds rec's summary to l if this rank is rank 0 of rec's communicator (so that every
 * communicator counts once over the ranks), joining the entry of the same topology. Returns 0,
 * or -1 when out of memory. */
int shim_comm_summaries_add(shim_comm_summaries *l, const struct shim_comm *rec);

/* Releases l's memory; l may be zero-initialised. */
void shim_comm_summaries_free(shim_comm_summaries *l);

/* At MPI_Finalize, collective over MPI_COMM_WORLD: the summaries of every communicator of
 * every rank (w's retired ones and those of the records still alive) merged on rank 0 into
 * *out (sorted by size, then nodes, largest first; shim_comm_summaries_free it; empty on the
 * other ranks). Returns an MPI error code (MPI_ERR_NO_MEM when a rank runs out of memory). */
int shim_comm_summaries_gather(struct shim_world *w, shim_comm_summaries *out);

#endif
