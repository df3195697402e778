/* A node plan's transfers within a node carried through the node's shared memory instead of
 * messages: where each of one rank's such transfers lies in its node's window, and the steps
 * in which the node's ranks synchronise for them. Pure C, no MPI.
 *
 * In a step where transfers within node n move, every sender of n writes its transfers there
 * into n's window, all ranks of n synchronise, and every receiver reads its own. A step's
 * transfers lie one after another (in plan order, each aligned to PLAN_SHM_ALIGN) in one half
 * of the window; consecutive such steps of n use alternate halves, so a step's writes never
 * touch what the previous step's readers may still read, and the synchronisation of step k + 1
 * orders the reads of step k before the writes of step k + 2. Every rank of n computes the
 * same layout from the same plan. */
#ifndef HRELAY_PLAN_NODE_SHM_H
#define HRELAY_PLAN_NODE_SHM_H

#include <stddef.h>
#include <stdint.h>

#include "plan/local.h"
#include "plan/plan.h"

/* Offsets of transfers that are not within the node (they go as messages). */
#define PLAN_SHM_NET UINT64_MAX

/* Alignment of every transfer in the window. */
enum { PLAN_SHM_ALIGN = 64 };

/* One rank's layout. */
typedef struct plan_shm {
    size_t nsteps;       /* the plan's steps */
    unsigned char *sync; /* nsteps entries: 1 where a transfer within this rank's node moves in
                            the step (every rank of the node synchronises there), else 0 */
    uint64_t *send_at;   /* per send of the rank's view (plan_local), in its order: the offset
                            of the transfer in the window, PLAN_SHM_NET for another node */
    uint64_t *recv_at;   /* per receive, the same */
    uint64_t bytes;      /* the window's size (both halves); 0: nothing moves within the node */
    size_t syncs;        /* steps with sync[s] == 1 */
} plan_shm;

/* Lays out rank's transfers within its node of node plan pl (pl->nnodes > 0), lo being
 * plan_local_extract(pl, rank). Returns 0, or -1 with err set (not a node plan, lo not rank's
 * view of pl, out of memory); s then holds no memory. */
int plan_shm_build(const plan *pl, int rank, const plan_local *lo, plan_shm *s, plan_error *err);

/* Releases s's memory; s may be zero-initialised or already freed. */
void plan_shm_free(plan_shm *s);

#endif
