/* Transfers within a node through the node's shared memory (plan/node_shm.h). */
#include <stdlib.h>

#include "plan/node_shm.h"

/* Whether transfer tr moves bytes within node n. */
static int within(const plan *pl, const plan_transfer *tr, int n)
{
    return tr->bytes > 0 && pl->node_of[tr->src] == n && pl->node_of[tr->dst] == n;
}

/* tr's bytes rounded up to the alignment. */
static uint64_t aligned(uint64_t bytes)
{
    return (bytes + PLAN_SHM_ALIGN - 1) / PLAN_SHM_ALIGN * PLAN_SHM_ALIGN;
}

void plan_shm_free(plan_shm *s)
{
    free(s->sync);
    free(s->send_at);
    free(s->recv_at);
    *s = (plan_shm){0};
}

/* The half of the window: the most bytes node n moves within itself in one step. Sets sync[]
 * and s->syncs. */
static uint64_t half_size(const plan *pl, int n, plan_shm *s)
{
    uint64_t half = 0;
    for (size_t st = 0; st < pl->nsteps; st++) {
        uint64_t step = 0;
        for (size_t t = pl->step_begin[st]; t < pl->step_begin[st + 1]; t++)
            if (within(pl, &pl->transfers[t], n))
                step += aligned(pl->transfers[t].bytes);
        s->sync[st] = step > 0;
        s->syncs += step > 0;
        half = step > half ? step : half;
    }
    return half;
}

int plan_shm_build(const plan *pl, int rank, const plan_local *lo, plan_shm *s, plan_error *err)
{
    *s = (plan_shm){0};
    if (pl->nnodes <= 0 || !pl->node_of || rank < 0 || rank >= pl->p)
        return plan_error_set(err, 0, "shared-memory layout of a plan without nodes");
    s->nsteps = pl->nsteps;
    s->sync = calloc(pl->nsteps ? pl->nsteps : 1, 1);
    s->send_at = malloc((lo->nsends ? lo->nsends : 1) * sizeof *s->send_at);
    s->recv_at = malloc((lo->nrecvs ? lo->nrecvs : 1) * sizeof *s->recv_at);
    if (!s->sync || !s->send_at || !s->recv_at) {
        plan_shm_free(s);
        return plan_error_set(err, 0, "out of memory for a shared-memory layout");
    }
    int n = pl->node_of[rank];
    uint64_t half = half_size(pl, n, s);
    s->bytes = 2 * half;
    size_t ns = 0, nr = 0, k = 0; /* k: steps of n that synchronised so far */
    for (size_t st = 0; st < pl->nsteps; st++) {
        uint64_t at = (k % 2) * half;
        for (size_t t = pl->step_begin[st]; t < pl->step_begin[st + 1]; t++) {
            const plan_transfer *tr = &pl->transfers[t];
            uint64_t off = within(pl, tr, n) ? at : PLAN_SHM_NET;
            if (off != PLAN_SHM_NET)
                at += aligned(tr->bytes);
            int mine = tr->src == rank || tr->dst == rank;
            if (mine && ((tr->src == rank && (ns >= lo->nsends || lo->sends[ns].step != st ||
                                              lo->sends[ns].peer != tr->dst)) ||
                         (tr->dst == rank && (nr >= lo->nrecvs || lo->recvs[nr].step != st ||
                                              lo->recvs[nr].peer != tr->src)))) {
                plan_shm_free(s);
                return plan_error_set(err, 0, "rank %d's view does not match the plan", rank);
            }
            if (tr->src == rank)
                s->send_at[ns++] = off;
            if (tr->dst == rank)
                s->recv_at[nr++] = off;
        }
        k += s->sync[st];
    }
    if (ns != lo->nsends || nr != lo->nrecvs) {
        plan_shm_free(s);
        return plan_error_set(err, 0, "rank %d's view does not match the plan", rank);
    }
    return 0;
}
