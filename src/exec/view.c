/* Creating, allocating and freeing a view: the checks that need no communication, and the
 * analysis (held pieces, refs, staging peak, cut elements) the run follows. */
#include <stdlib.h>
#include <string.h>

#include "exec/view.h"

/* Returns 1 if [off, off + len) lies inside the count * size bytes of a message. */
static int in_message(uint64_t off, uint64_t len, MPI_Count count, MPI_Count size)
{
    MPI_Count total;
    if (count < 0 || size < 0 || __builtin_mul_overflow(count, size, &total))
        return 0;
    return off <= (uint64_t)total && len <= (uint64_t)total - off;
}

/* Checks what can be checked per segment: ranks in range, own ranges inside the send regions,
 * ranges for this rank inside the receive regions, nothing for this rank in its own sends.
 * Returns MPI_SUCCESS, MPI_ERR_INTERN or MPI_ERR_TRUNCATE. */
static int check_ranges(const plan_local *lo, const exec_exchange *x)
{
    int p = x->p, me = x->rank;
    for (size_t i = 0; i < lo->nsends; i++) {
        const plan_local_op *op = &lo->sends[i];
        if (op->peer < 0 || op->peer >= p)
            return MPI_ERR_INTERN;
        for (size_t g = 0; g < op->nsegs; g++) {
            const plan_segment *sg = &op->segs[g];
            if (sg->bytes == 0)
                continue;
            if (sg->origin < 0 || sg->origin >= p || sg->target < 0 || sg->target >= p ||
                sg->target == me)
                return MPI_ERR_INTERN;
            if (sg->origin == me && !in_message(sg->offset, sg->bytes,
                                                x->send.count[sg->target], x->send.type.size))
                return MPI_ERR_INTERN;
        }
    }
    for (size_t k = 0; k < lo->nrecvs; k++) {
        const plan_local_op *op = &lo->recvs[k];
        if (op->peer < 0 || op->peer >= p)
            return MPI_ERR_INTERN;
        for (size_t g = 0; g < op->nsegs; g++) {
            const plan_segment *sg = &op->segs[g];
            if (sg->bytes == 0)
                continue;
            if (sg->origin < 0 || sg->origin >= p || sg->target < 0 || sg->target >= p)
                return MPI_ERR_INTERN;
            if (sg->target == me && !in_message(sg->offset, sg->bytes,
                                                x->recv.count[sg->origin], x->recv.type.size))
                return MPI_ERR_TRUNCATE;
        }
    }
    return MPI_SUCCESS;
}

/* Counts the live operations of one step (see view.h). */
size_t exec_ops_at(const plan_local_op *ops, size_t n, size_t from, size_t step, size_t *end)
{
    size_t live = 0, i = from;
    for (; i < n && ops[i].step == step; i++)
        live += ops[i].bytes > 0;
    *end = i;
    return live;
}

/* Largest number of live operations this rank has in one step. */
static size_t max_ops_per_step(const plan_local *lo)
{
    size_t i = 0, k = 0, best = 0;
    while (i < lo->nsends || k < lo->nrecvs) {
        size_t step = i < lo->nsends ? lo->sends[i].step : SIZE_MAX;
        if (k < lo->nrecvs && lo->recvs[k].step < step)
            step = lo->recvs[k].step;
        size_t n = exec_ops_at(lo->recvs, lo->nrecvs, k, step, &k) +
                   exec_ops_at(lo->sends, lo->nsends, i, step, &i);
        if (n > best)
            best = n;
    }
    return best;
}

/* Checks and analyses a view (see exec.h). */
int exec_view_create(const plan_local *lo, const exec_exchange *x, exec_view **out)
{
    *out = NULL;
    int rc = check_ranges(lo, x);
    if (rc != MPI_SUCCESS)
        return rc;
    exec_view *v = calloc(1, sizeof *v);
    if (!v)
        return MPI_ERR_NO_MEM;
    v->lo = lo;
    v->x = x;
    v->max_ops = max_ops_per_step(lo);
    if ((rc = exec_held_build(v)) == MPI_SUCCESS)
        rc = exec_cuts_build(v);
    if (rc != MPI_SUCCESS) {
        exec_view_free(v);
        return rc;
    }
    *out = v;
    return MPI_SUCCESS;
}

/* The staging peak (see exec.h). */
uint64_t exec_view_staging(const exec_view *v)
{
    return v->staging;
}

/* Allocates the staging arena and the cut elements (see exec.h). */
int exec_view_alloc(exec_view *v)
{
    if (v->allocated)
        return MPI_SUCCESS;
    int rc = exec_stash_init(&v->stash, v);
    if (rc == MPI_SUCCESS && (rc = exec_cuts_alloc(&v->cuts)) != MPI_SUCCESS)
        exec_stash_free(&v->stash);
    if (rc != MPI_SUCCESS) {
        free(v->cuts.fill);
        free(v->cuts.buf);
        v->cuts.fill = NULL;
        v->cuts.buf = NULL;
        return rc;
    }
    v->allocated = 1;
    return MPI_SUCCESS;
}

/* Releases a view (see exec.h). */
void exec_view_free(exec_view *v)
{
    if (!v)
        return;
    exec_stash_free(&v->stash);
    exec_cuts_free(&v->cuts);
    free(v->held);
    free(v->held_begin);
    free(v->ref);
    free(v->ref_begin);
    free(v);
}
