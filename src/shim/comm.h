/* hrelay's record of a user communicator: its private duplicate, plan cache, call sites and
 * the scratch memory of a call (comm_record.c). */
#ifndef HRELAY_SHIM_COMM_H
#define HRELAY_SHIM_COMM_H

#include <mpi.h>
#include <stdint.h>

#include "plan/plan.h"
#include "shim/cache.h"
#include "shim/site.h"
#include "shim/state.h"
#include "shim/topo.h"

/* hrelay's state for one user intracommunicator, an attribute of it. Only the thread making
 * a collective call on the communicator touches it (MPI forbids concurrent collectives on one
 * communicator), so it needs no lock. */
typedef struct shim_comm {
    MPI_Comm priv;         /* private duplicate (errors return) for all of hrelay's traffic */
    int p, rank;
    int request;           /* hrelay_set_algorithm's request, or SHIM_REQUEST_ENV */
    int last;              /* plan_algo of the family that ran the last call; -1 before any */
    uint64_t calls;        /* intercepted calls on this communicator (equal on every rank) */
    uint64_t agreed;       /* of those, calls that ran the agreement */
    uint64_t last_planned; /* `agreed` at the last agreed call whose pattern may run a plan */
    uint64_t quiet_until;  /* calls up to this number run natively without agreement */
    uint64_t quiet_len;    /* the length of the next run of unchecked calls */
    uint64_t patterns;     /* distinct patterns gathered so far */
    /* the previous agreed call, whose time the next agreement carries */
    int prev_slot; /* -1: none (or not timed) */
    uint64_t prev_gen;
    plan_algo prev_algo;
    uint64_t prev_ps;
    int nslots;
    shim_slot *slot;
    shim_sites sites;
    uint64_t *gather; /* p * (p + 2) words: gathered rows, then the p x p matrix; allocated
                         at the first new pattern (shim_comm_gather_buffer) */
    MPI_Count *scount, *rcount; /* normalised counts of the current call */
    MPI_Aint *sdispl, *rdispl;  /* normalised displacements in bytes */
    uint64_t *row;              /* this call's row */
    shim_topo topo;             /* the node of every rank (HRELAY_NODE_SIZE), node communicators */
} shim_comm;

/* The first run of unchecked native calls after a request changes (see call.c). */
enum { SHIM_QUIET_FIRST = 8 };

/* Creates the attribute key of communicator records. Returns an MPI error code. */
int shim_comm_keyval_create(int *keyval);

/* The record of comm, creating it on first use: collective over comm (duplicates it, then
 * agrees that every rank got its memory). NULL on every rank if it cannot be created. */
shim_comm *shim_comm_get(MPI_Comm comm);

/* A number that changes whenever a record is deleted (its communicator freed), so that a
 * cache of communicator -> record stays valid as long as it does not change. */
unsigned shim_comm_epoch(void);

/* Frees the record of MPI_COMM_WORLD, if any (at MPI_Finalize); its sites join the world's. */
void shim_comm_release_world(void);

/* At MPI_Finalize: every site of the process (of freed communicators and of those still
 * alive) merged into *out (shim_sites_free it). Returns 0, or -1 when out of memory. */
int shim_world_sites(shim_world *w, shim_sites *out);

/* Makes sure rec->gather is allocated ((p + 2) p words). Returns 0, or -1 out of memory. */
int shim_comm_gather_buffer(shim_comm *rec);

#endif
