/* One rank's view of a plan: what it sends and receives, in step order. Pure C, no MPI. */
#ifndef HRELAY_PLAN_LOCAL_H
#define HRELAY_PLAN_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include "plan/plan.h"

/* One operation of a rank: in step `step`, send to or receive from `peer` the transfer whose
 * segments are segs[0 .. nsegs) (pointers into the plan; the plan must outlive the view). */
typedef struct plan_local_op {
    size_t step;
    int32_t peer;
    const plan_segment *segs;
    size_t nsegs;
    uint64_t bytes;
} plan_local_op;

/* The operations of one rank, sends and receives each in increasing step order. */
typedef struct plan_local {
    int rank;
    size_t nsends, nrecvs;
    plan_local_op *sends;
    plan_local_op *recvs;
    plan_segment *owned; /* after plan_local_detach: the segments the ops point into */
} plan_local;

/* Extracts rank's operations from pl. Returns 0, or -1 (out of memory, rank out of range) with
 * err set; on failure lo holds no memory. */
int plan_local_extract(const plan *pl, int rank, plan_local *lo, plan_error *err);

/* Copies the segments lo's operations point to into memory lo owns, so that the plan can be
 * freed while lo is kept (a rank's part of a plan is much smaller than the plan). Returns 0,
 * or -1 (out of memory; lo unchanged, still pointing into the plan) with err set. */
int plan_local_detach(plan_local *lo, plan_error *err);

/* Bytes of memory lo holds (operations and owned segments). */
size_t plan_local_memory(const plan_local *lo);

/* Releases a view; lo may be zero-initialised or already freed. */
void plan_local_free(plan_local *lo);

#endif
