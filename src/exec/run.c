/* Running one rank's part of a plan: operations in step order, a bounded window of nonblocking
 * operations completed oldest first.
 *
 * Deadlock freedom: a rank posts all its operations of a step together, and only waits for
 * operations of earlier steps. By induction over the steps, every operation of every step is
 * eventually posted on both sides and therefore completes, for any window >= 1.
 *
 * Window choice (EXEC_DEFAULT_WINDOW = 32; tests/mpi/bench_window, median ms per exchange):
 * at 2 ranks on 2 cores the window changes little (pipeline of 64 x 1 MiB pieces: 16.2 ms at
 * window 1, 15.0 at 8, 12.2 at 32, 11.3 at 64; 1 KiB pieces: 0.028 / 0.025 / 0.020 / 0.022);
 * with 8 ranks sharing 2 cores, larger windows are much faster (direct plan, 256 KiB mean
 * messages: 900 ms at window 1, 231 at 8, 79 at 32, 56 at 64). 32 is MPICH's own throttle
 * (MPIR_CVAR_ALLTOALL_THROTTLE) and keeps the extra memory bounded. Window 1 is one paired
 * send/receive per step. */
#include <stdint.h>
#include <stdlib.h>

#include "exec/wire.h"

/* One posted operation. */
typedef struct pending {
    MPI_Request req;
    const plan_local_op *op;
    int is_send;
    exec_wire w;
} pending;

/* The operations in flight, oldest first (a ring). */
typedef struct fifo {
    pending *slot;
    size_t cap, head, n;
} fifo;

/* Returns 1 if forwarding is absent: every segment goes from its origin to its target. */
int exec_plan_supported(const plan *pl)
{
    for (size_t t = 0; t < pl->ntransfers; t++) {
        const plan_transfer *tr = &pl->transfers[t];
        for (size_t s = tr->seg_begin; s < tr->seg_begin + tr->nsegs; s++)
            if (pl->segments[s].origin != tr->src || pl->segments[s].target != tr->dst)
                return 0;
    }
    return 1;
}

/* Returns 1 if [off, off + len) lies inside the count * size bytes of a message. */
static int in_message(uint64_t off, uint64_t len, MPI_Count count, MPI_Count size)
{
    MPI_Count total;
    if (count < 0 || size < 0 || __builtin_mul_overflow(count, size, &total))
        return 0;
    return off <= (uint64_t)total && len <= (uint64_t)total - off;
}

/* Checks that lo can run on x without forwarding and without leaving the described regions,
 * and (for a receive type that is not dense) that the pieces of each incoming message arrive
 * in increasing, adjacent order. Returns MPI_SUCCESS or the error exec_run documents. */
static int check_view(const plan_local *lo, const exec_exchange *x)
{
    int p = x->p, me = x->rank;
    for (size_t i = 0; i < lo->nsends; i++) {
        const plan_local_op *op = &lo->sends[i];
        for (size_t s = 0; s < op->nsegs; s++) {
            const plan_segment *g = &op->segs[s];
            if (g->origin != me || g->target != op->peer)
                return MPI_ERR_UNSUPPORTED_OPERATION;
            if (op->peer < 0 || op->peer >= p ||
                !in_message(g->offset, g->bytes, x->send.count[op->peer], x->send.type.size))
                return MPI_ERR_INTERN;
        }
    }
    uint64_t *next = NULL;
    if (!x->recv.type.dense && !(next = calloc((size_t)p, sizeof *next)))
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    for (size_t i = 0; i < lo->nrecvs && rc == MPI_SUCCESS; i++) {
        const plan_local_op *op = &lo->recvs[i];
        for (size_t s = 0; s < op->nsegs && rc == MPI_SUCCESS; s++) {
            const plan_segment *g = &op->segs[s];
            if (g->origin != op->peer || g->target != me)
                rc = MPI_ERR_UNSUPPORTED_OPERATION;
            else if (op->peer < 0 || op->peer >= p)
                rc = MPI_ERR_INTERN;
            else if (!in_message(g->offset, g->bytes, x->recv.count[op->peer],
                                 x->recv.type.size))
                rc = MPI_ERR_TRUNCATE;
            else if (next && g->bytes) {
                if (g->offset != next[op->peer])
                    rc = MPI_ERR_UNSUPPORTED_OPERATION;
                next[op->peer] = g->offset + g->bytes;
            }
        }
    }
    free(next);
    return rc;
}

/* Waits for the oldest operation, finishes a receive (partial elements) and frees its wire. */
static int complete_oldest(exec_ctx *c, fifo *q)
{
    pending *e = &q->slot[q->head];
    int rc = PMPI_Wait(&e->req, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && !e->is_send)
        rc = exec_wire_finish_recv(c, e->op, &e->w);
    exec_wire_free(&e->w);
    q->head = (q->head + 1) % q->cap;
    q->n--;
    return rc;
}

/* Builds and posts op at the tail of q. */
static int post(exec_ctx *c, fifo *q, const plan_local_op *op, int is_send, int tag)
{
    pending *e = &q->slot[(q->head + q->n) % q->cap];
    int rc = exec_wire_build(c, op, is_send, &e->w);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = exec_wire_post(c, &e->w, is_send, op->peer, tag, &e->req);
    if (rc != MPI_SUCCESS) {
        exec_wire_free(&e->w);
        return rc;
    }
    e->op = op;
    e->is_send = is_send;
    q->n++;
    return MPI_SUCCESS;
}

/* After an error: stops what is in flight without waiting for partners that may never come.
 * Receives are cancelled (and waited for, which returns at once unless the data is already
 * arriving); sends are released and their staging bytes leaked, as MPI may still read them. */
static void abandon(fifo *q)
{
    while (q->n) {
        pending *e = &q->slot[q->head];
        if (e->is_send) {
            PMPI_Request_free(&e->req);
            free(e->w.blocks);
        } else {
            PMPI_Cancel(&e->req);
            PMPI_Wait(&e->req, MPI_STATUS_IGNORE);
            exec_wire_free(&e->w);
        }
        q->head = (q->head + 1) % q->cap;
        q->n--;
    }
}

/* Number of operations with bytes > 0 among ops[from ..) at step, and the index past them. */
static size_t ops_at(const plan_local_op *ops, size_t n, size_t from, size_t step, size_t *end)
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
        size_t n = ops_at(lo->recvs, lo->nrecvs, k, step, &k) +
                   ops_at(lo->sends, lo->nsends, i, step, &i);
        if (n > best)
            best = n;
    }
    return best;
}

/* Runs the view (see exec.h). */
int exec_run(const plan_local *lo, const exec_exchange *x, MPI_Comm comm, const exec_opts *o)
{
    int rc = check_view(lo, x);
    if (rc != MPI_SUCCESS)
        return rc;
    if (lo->nsends == 0 && lo->nrecvs == 0)
        return MPI_SUCCESS;

    size_t window = o->window > 0 ? (size_t)o->window : 1;
    fifo q = {0};
    exec_ctx c = {.x = x, .comm = comm};
    q.cap = window + max_ops_per_step(lo);
    q.slot = calloc(q.cap, sizeof *q.slot);
    if (!x->send.type.dense && x->send.type.size > 0)
        c.elem = malloc((size_t)x->send.type.size);
    if (!q.slot || (!x->send.type.dense && x->send.type.size > 0 && !c.elem)) {
        free(q.slot);
        free(c.elem);
        return MPI_ERR_NO_MEM;
    }

    size_t i = 0, k = 0;
    while (rc == MPI_SUCCESS && (i < lo->nsends || k < lo->nrecvs)) {
        size_t step = i < lo->nsends ? lo->sends[i].step : SIZE_MAX;
        if (k < lo->nrecvs && lo->recvs[k].step < step)
            step = lo->recvs[k].step;
        size_t iend, kend;
        size_t need = ops_at(lo->recvs, lo->nrecvs, k, step, &kend) +
                      ops_at(lo->sends, lo->nsends, i, step, &iend);
        while (rc == MPI_SUCCESS && q.n > 0 && q.n + need > window)
            rc = complete_oldest(&c, &q);
        for (; rc == MPI_SUCCESS && k < kend; k++)
            if (lo->recvs[k].bytes > 0)
                rc = post(&c, &q, &lo->recvs[k], 0, o->tag);
        for (; rc == MPI_SUCCESS && i < iend; i++)
            if (lo->sends[i].bytes > 0)
                rc = post(&c, &q, &lo->sends[i], 1, o->tag);
    }
    while (rc == MPI_SUCCESS && q.n > 0)
        rc = complete_oldest(&c, &q);
    if (rc != MPI_SUCCESS)
        abandon(&q);

    if (c.carry)
        for (int j = 0; j < x->p; j++)
            free(c.carry[j].buf);
    free(c.carry);
    free(c.elem);
    free(q.slot);
    return rc;
}
