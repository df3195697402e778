/* One rank's view of a plan. */
#include <stdlib.h>
#include <string.h>

#include "plan/local.h"

int plan_local_extract(const plan *pl, int rank, plan_local *lo, plan_error *err)
{
    lo->rank = rank;
    lo->nsends = lo->nrecvs = 0;
    lo->sends = lo->recvs = NULL;
    lo->owned = NULL;
    if (rank < 0 || rank >= pl->p)
        return plan_error_set(err, 0, "rank %d outside a plan of %d ranks", rank, pl->p);
    size_t ns = 0, nr = 0;
    for (size_t t = 0; t < pl->ntransfers; t++) {
        ns += pl->transfers[t].src == rank;
        nr += pl->transfers[t].dst == rank;
    }
    lo->sends = malloc((ns ? ns : 1) * sizeof *lo->sends);
    lo->recvs = malloc((nr ? nr : 1) * sizeof *lo->recvs);
    if (!lo->sends || !lo->recvs) {
        plan_local_free(lo);
        return plan_error_set(err, 0, "out of memory for rank %d's view of the plan", rank);
    }
    for (size_t s = 0; s < pl->nsteps; s++)
        for (size_t t = pl->step_begin[s]; t < pl->step_begin[s + 1]; t++) {
            const plan_transfer *tr = &pl->transfers[t];
            plan_local_op op = {.step = s,
                                .segs = pl->segments + tr->seg_begin,
                                .nsegs = tr->nsegs,
                                .bytes = tr->bytes};
            if (tr->src == rank) {
                op.peer = tr->dst;
                lo->sends[lo->nsends++] = op;
            }
            if (tr->dst == rank) {
                op.peer = tr->src;
                lo->recvs[lo->nrecvs++] = op;
            }
        }
    return 0;
}

/* Copies the segments of ops[0 .. n) to out (advanced) and repoints the ops. */
static void copy_segments(plan_local_op *ops, size_t n, plan_segment **out)
{
    for (size_t i = 0; i < n; i++) {
        memcpy(*out, ops[i].segs, ops[i].nsegs * sizeof **out);
        ops[i].segs = *out;
        *out += ops[i].nsegs;
    }
}

int plan_local_detach(plan_local *lo, plan_error *err)
{
    size_t n = 0;
    for (size_t i = 0; i < lo->nsends; i++)
        n += lo->sends[i].nsegs;
    for (size_t i = 0; i < lo->nrecvs; i++)
        n += lo->recvs[i].nsegs;
    plan_segment *seg = malloc((n ? n : 1) * sizeof *seg), *at = seg;
    if (!seg)
        return plan_error_set(err, 0, "out of memory for %zu segments of rank %d", n, lo->rank);
    copy_segments(lo->sends, lo->nsends, &at);
    copy_segments(lo->recvs, lo->nrecvs, &at);
    free(lo->owned);
    lo->owned = seg;
    return 0;
}

size_t plan_local_memory(const plan_local *lo)
{
    size_t n = 0;
    for (size_t i = 0; lo->owned && i < lo->nsends; i++)
        n += lo->sends[i].nsegs;
    for (size_t i = 0; lo->owned && i < lo->nrecvs; i++)
        n += lo->recvs[i].nsegs;
    return (lo->nsends + lo->nrecvs) * sizeof(plan_local_op) + n * sizeof(plan_segment);
}

void plan_local_free(plan_local *lo)
{
    free(lo->sends);
    free(lo->recvs);
    free(lo->owned);
    lo->owned = NULL;
    lo->sends = lo->recvs = NULL;
    lo->nsends = lo->nrecvs = 0;
}
