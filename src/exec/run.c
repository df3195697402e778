/* Running one rank's part of a plan: operations in step order, a bounded window of nonblocking
 * operations completed oldest first, plus the two waits forwarding needs.
 *
 * Deadlock freedom: a rank posts all its operations of a step together, and only waits for
 * operations of earlier steps: for window room (the oldest ones), for the receives that
 * brought the data a send forwards (the plan has them in earlier steps; exec_view_create checks
 * it), and for staging room before a receive into staging (it completes the oldest operations
 * while they belong to earlier steps; once all of those are done, every piece whose last reader
 * was in an earlier step is free again, so what is held is at most the view's peak, the arena's
 * size). By induction over the steps, every operation of every step is eventually posted on
 * both sides and therefore completes, for any window >= 1. Nothing here assumes a step pairs a
 * send with a receive: half-duplex steps have one operation per rank.
 *
 * Window choice (EXEC_DEFAULT_WINDOW = 32; bench/bench_window, median ms per exchange):
 * at 2 ranks on 2 cores the window changes little (pipeline of 64 x 1 MiB pieces: 16.2 ms at
 * window 1, 15.0 at 8, 12.2 at 32, 11.3 at 64; 1 KiB pieces: 0.028 / 0.025 / 0.020 / 0.022);
 * with 8 ranks sharing 2 cores, larger windows are much faster (direct plan, 256 KiB mean
 * messages: 900 ms at window 1, 231 at 8, 79 at 32, 56 at 64). 32 is MPICH's own throttle
 * (MPIR_CVAR_ALLTOALL_THROTTLE) and keeps the extra memory bounded. Window 1 is one paired
 * send/receive per step.
 *
 * Steps in flight (exec_opts.steps, for node plans): an operation is posted only when the
 * oldest operation still in flight belongs to one of the `steps` - 1 steps before its own, so a
 * node's NIC carries the node steps the plan says at a time (plus the tail of the ones before)
 * rather than every step the window reaches. Waiting only for earlier steps, the induction
 * above holds unchanged.
 *
 * Synchronised steps (exec_opts.sync_steps): a group of steps (sync_starts) is posted at once
 * and completed, then a barrier; every rank passes the same barriers at the same group
 * boundaries, ranks without operations included, and within a group the induction above holds
 * with an unlimited window.
 *
 * Transfers within a node through its window (exec_opts.shm): in a step where the node
 * synchronises, a rank posts the step's messages, writes its window sends, waits for its node
 * (a barrier, during which MPI progresses the messages in flight) and reads its window
 * receives; ranks with nothing to move in that step take part too. A rank reaches the barrier
 * of step s having waited only for operations of earlier steps, so by the same induction every
 * rank of the node reaches it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/wire.h"

/* One posted operation. */
typedef struct pending {
    MPI_Request req;
    size_t op;   /* index into lo->sends or lo->recvs */
    size_t step;
    int is_send;
    int done;    /* completed ahead of its turn (a receive a forwarding send needed) */
    exec_wire w;
} pending;

/* The operations in flight, oldest first (a ring). */
typedef struct fifo {
    pending *slot;
    size_t cap, head, n;
} fifo;

/* One run. */
typedef struct runner {
    exec_ctx c;
    fifo q;
    size_t *rslot; /* per receive: 1 + its ring slot while in flight, else 0 */
    int tag;
    const exec_shm *shm; /* transfers within the node through its window, or NULL */
} runner;

/* Finishes a completed operation: a receive's buffered bytes are unpacked; a send's staging
 * pieces lose a reader (and are freed after the last). Frees the wire. */
static int finish(runner *r, pending *e)
{
    const exec_view *v = r->c.v;
    int rc = MPI_SUCCESS;
    if (!e->is_send) {
        rc = exec_wire_finish_recv(&r->c, e->op, &e->w);
        r->rslot[e->op] = 0;
    } else {
        for (size_t q = v->ref_begin[e->op]; q < v->ref_begin[e->op + 1] && rc == MPI_SUCCESS; q++)
            rc = exec_stash_done(&r->c.v->stash, v->ref[q].held);
    }
    exec_wire_free(&e->w);
    e->done = 1;
    return rc;
}

/* Waits for operation e and finishes it; after a failed wait the operation is over too (MPI
 * freed the request), so its wire is released and it counts as done. */
static int wait_one(runner *r, pending *e)
{
    int rc = PMPI_Wait(&e->req, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS)
        return finish(r, e);
    if (!e->is_send)
        r->rslot[e->op] = 0;
    exec_wire_free(&e->w);
    e->done = 1;
    return rc;
}

/* Completes the oldest operation in flight (unless it completed ahead of its turn) and drops it
 * from the ring. */
static int complete_oldest(runner *r)
{
    pending *e = &r->q.slot[r->q.head];
    int rc = e->done ? MPI_SUCCESS : wait_one(r, e);
    r->q.head = (r->q.head + 1) % r->q.cap;
    r->q.n--;
    return rc;
}

/* Completes receive k now if it is in flight (it belongs to an earlier step). */
static int complete_recv(runner *r, size_t k)
{
    return r->rslot[k] ? wait_one(r, &r->q.slot[r->rslot[k] - 1]) : MPI_SUCCESS;
}

/* Builds and posts operation `op` of step `step` at the tail of the ring. */
static int post(runner *r, size_t op, size_t step, int is_send)
{
    const plan_local *lo = r->c.v->lo;
    size_t at = (r->q.head + r->q.n) % r->q.cap;
    pending *e = &r->q.slot[at];
    int rc = exec_wire_build(&r->c, op, is_send, &e->w);
    if (rc != MPI_SUCCESS)
        return rc;
    int peer = is_send ? lo->sends[op].peer : lo->recvs[op].peer;
    rc = exec_wire_post(&r->c, &e->w, is_send, peer, r->tag, &e->req);
    if (rc != MPI_SUCCESS) {
        exec_wire_free(&e->w);
        return rc;
    }
    e->op = op;
    e->step = step;
    e->is_send = is_send;
    e->done = 0;
    if (!is_send)
        r->rslot[op] = at + 1;
    r->q.n++;
    return MPI_SUCCESS;
}

/* Makes room in the staging arena for the pieces receive k of step `step` brings (completing
 * operations of earlier steps) and places them. */
static int place_recv(runner *r, size_t k, size_t step)
{
    exec_view *v = r->c.v;
    uint64_t need = 0;
    int rc = MPI_SUCCESS;
    for (size_t h = v->held_begin[k]; h < v->held_begin[k + 1]; h++)
        need += v->held[h].bytes;
    while (rc == MPI_SUCCESS && v->stash.arena.avail < need && r->q.n > 0 &&
           r->q.slot[r->q.head].step < step)
        rc = complete_oldest(r);
    for (size_t h = v->held_begin[k]; h < v->held_begin[k + 1] && rc == MPI_SUCCESS; h++)
        rc = exec_stash_place(&v->stash, v, h);
    return rc;
}

/* Posts receive k of step `step` once its pieces have their place (place_recv). */
static int post_recv(runner *r, size_t k, size_t step)
{
    int rc = place_recv(r, k, step);
    return rc == MPI_SUCCESS ? post(r, k, step, 0) : rc;
}

/* Completes the receives that brought send i's forwarded data. */
static int await_sources(runner *r, size_t i)
{
    const exec_view *v = r->c.v;
    int rc = MPI_SUCCESS;
    for (size_t q = v->ref_begin[i]; q < v->ref_begin[i + 1] && rc == MPI_SUCCESS; q++)
        rc = complete_recv(r, v->held[v->ref[q].held].recv);
    return rc;
}

/* Posts send i of step `step` once the receives that brought its forwarded data completed. */
static int post_send(runner *r, size_t i, size_t step)
{
    int rc = await_sources(r, i);
    return rc == MPI_SUCCESS ? post(r, i, step, 1) : rc;
}

/* Writes send i into the node's window at dst, as a completed send. */
static int put_send(runner *r, size_t i, char *dst)
{
    pending e = {.op = i, .is_send = 1};
    int rc = await_sources(r, i);
    if (rc == MPI_SUCCESS)
        rc = exec_wire_build(&r->c, i, 1, &e.w);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = exec_wire_put(&r->c, &e.w, dst);
    int rc2 = finish(r, &e);
    return rc == MPI_SUCCESS ? rc2 : rc;
}

/* Reads receive k of step `step` from the node's window at src, as a completed receive. */
static int get_recv(runner *r, size_t k, size_t step, const char *src)
{
    pending e = {.op = k};
    int rc = place_recv(r, k, step);
    if (rc == MPI_SUCCESS)
        rc = exec_wire_build(&r->c, k, 0, &e.w);
    if (rc != MPI_SUCCESS)
        return rc;
    exec_wire_get(&e.w, src);
    return finish(r, &e);
}

/* Whether operation op of the kind at[] describes goes through the node's window. */
static int in_window(const uint64_t *at, size_t op)
{
    return at && at[op] != PLAN_SHM_NET;
}

/* The transfers within the node of step `step`, sends [i0, iend) and receives [k0, kend) of
 * this rank: writes, the node's synchronisation (reached even after a failed write, so the
 * node's other ranks do not wait for this one), reads. */
static int shm_step(runner *r, const exec_shm *m, size_t step, size_t i0, size_t iend, size_t k0,
                    size_t kend)
{
    const plan_local *lo = r->c.v->lo;
    int rc = MPI_SUCCESS;
    for (size_t i = i0; i < iend && rc == MPI_SUCCESS; i++)
        if (lo->sends[i].bytes > 0 && in_window(m->send_at, i))
            rc = put_send(r, i, m->base + m->send_at[i]);
    int fenced = exec_shm_fence(m);
    rc = rc == MPI_SUCCESS ? fenced : rc;
    for (size_t k = k0; k < kend && rc == MPI_SUCCESS; k++)
        if (lo->recvs[k].bytes > 0 && in_window(m->recv_at, k))
            rc = get_recv(r, k, step, m->base + m->recv_at[k]);
    return rc;
}

/* After an error: stops what is in flight without waiting for partners that may never come.
 * Receives are cancelled (and waited for, which returns at once unless the data is already
 * arriving); sends are released and their buffers leaked, as MPI may still read them - the
 * staging arena too if such a send reads from it. */
static void abandon(runner *r)
{
    int staged_send = 0;
    while (r->q.n) {
        pending *e = &r->q.slot[r->q.head];
        if (e->done) {
            /* completed already */
        } else if (e->is_send) {
            PMPI_Request_free(&e->req);
            free(e->w.blocks);
            staged_send |= r->c.v->ref_begin[e->op] < r->c.v->ref_begin[e->op + 1];
        } else {
            PMPI_Cancel(&e->req);
            PMPI_Wait(&e->req, MPI_STATUS_IGNORE);
            exec_wire_free(&e->w);
        }
        r->q.head = (r->q.head + 1) % r->q.cap;
        r->q.n--;
    }
    if (staged_send)
        r->c.v->stash.arena.base = NULL; /* leaked on purpose */
}

/* Whether the oldest operation in flight must complete before operations of step `step` are
 * posted: the window lacks room for `need` more, or it is `steps` (> 0) or more steps older. */
static int must_wait(const runner *r, size_t need, size_t step, size_t window, size_t steps)
{
    if (r->q.n == 0)
        return 0;
    return r->q.n + need > window || (steps && r->q.slot[r->q.head].step + steps <= step);
}

/* Posts the operations of step `step` from receive *k and send *i on (the caller's indices
 * advance past them), once the window and the steps in flight let them in. */
static int post_step(runner *r, size_t step, size_t *i, size_t *k, size_t window, size_t steps)
{
    const plan_local *lo = r->c.v->lo;
    const exec_shm *m = r->shm;
    const uint64_t *sat = m ? m->send_at : NULL, *rat = m ? m->recv_at : NULL;
    size_t iend, kend, i0 = *i, k0 = *k;
    size_t need = exec_ops_at(lo->recvs, lo->nrecvs, *k, step, &kend) +
                  exec_ops_at(lo->sends, lo->nsends, *i, step, &iend);
    int rc = MPI_SUCCESS;
    while (rc == MPI_SUCCESS && must_wait(r, need, step, window, steps))
        rc = complete_oldest(r);
    for (; rc == MPI_SUCCESS && *k < kend; ++*k)
        if (lo->recvs[*k].bytes > 0 && !in_window(rat, *k))
            rc = post_recv(r, *k, step);
    for (; rc == MPI_SUCCESS && *i < iend; ++*i)
        if (lo->sends[*i].bytes > 0 && !in_window(sat, *i))
            rc = post_send(r, *i, step);
    if (rc == MPI_SUCCESS && m && step < m->nsteps && m->sync[step])
        rc = shm_step(r, m, step, i0, iend, k0, kend);
    return rc;
}

/* The first step at or after `from` in which this rank's node synchronises (SIZE_MAX: none). */
static size_t next_sync(const exec_shm *m, size_t from)
{
    for (size_t s = from; m && s < m->nsteps; s++)
        if (m->sync[s])
            return s;
    return SIZE_MAX;
}

/* Completes every operation in flight. */
static int drain(runner *r)
{
    int rc = MPI_SUCCESS;
    while (rc == MPI_SUCCESS && r->q.n > 0)
        rc = complete_oldest(r);
    return rc;
}

/* Posts every operation in step order within the window and the steps in flight, then
 * completes the rest. */
static int run_steps(runner *r, size_t window, size_t steps)
{
    const plan_local *lo = r->c.v->lo;
    size_t i = 0, k = 0, sync = next_sync(r->shm, 0);
    int rc = MPI_SUCCESS;
    while (rc == MPI_SUCCESS && (i < lo->nsends || k < lo->nrecvs || sync != SIZE_MAX)) {
        size_t step = i < lo->nsends ? lo->sends[i].step : SIZE_MAX;
        if (k < lo->nrecvs && lo->recvs[k].step < step)
            step = lo->recvs[k].step;
        step = sync < step ? sync : step;
        rc = post_step(r, step, &i, &k, window, steps);
        if (sync == step)
            sync = next_sync(r->shm, step + 1);
    }
    return rc == MPI_SUCCESS ? drain(r) : rc;
}

/* Runs steps 0 .. nsteps - 1 in groups (starts, NULL: one step each), one group at a time: its
 * steps are posted together and complete here, then a barrier over comm, so that no rank starts
 * a group before every rank finished the one before. */
static int run_synced(runner *r, size_t nsteps, const unsigned char *starts, MPI_Comm comm)
{
    size_t i = 0, k = 0;
    int rc = MPI_SUCCESS;
    for (size_t step = 0; step < nsteps && rc == MPI_SUCCESS; step++) {
        if (step > 0 && (!starts || starts[step])) {
            rc = drain(r);
            if (rc == MPI_SUCCESS)
                rc = PMPI_Barrier(comm);
        }
        if (rc == MPI_SUCCESS)
            rc = post_step(r, step, &i, &k, SIZE_MAX, 0);
    }
    return rc == MPI_SUCCESS ? drain(r) : rc;
}

/* Runs the view (see exec.h). */
int exec_view_run(exec_view *v, MPI_Comm comm, const exec_opts *o)
{
    const plan_local *lo = v->lo;
    const exec_exchange *x = v->x;
    int rc = exec_view_alloc(v);
    if (rc != MPI_SUCCESS || (lo->nsends == 0 && lo->nrecvs == 0 && o->sync_steps < 2 && !o->shm))
        return rc;
    exec_stash_reset(&v->stash, v);
    if (v->cuts.n)
        memset(v->cuts.fill, 0, v->cuts.n * sizeof *v->cuts.fill);

    size_t window = o->window > 0 ? (size_t)o->window : 1;
    size_t steps = o->steps > 0 ? (size_t)o->steps : 0, ops = lo->nsends + lo->nrecvs;
    runner r = {.c = {.v = v, .comm = comm}, .tag = o->tag, .shm = o->shm};
    /* a group of synchronised steps is posted at once: room for every operation */
    r.q.cap = o->sync_steps && o->sync_starts ? ops + 1
                                              : (window < ops ? window : ops) + v->max_ops + 1;
    r.q.slot = calloc(r.q.cap, sizeof *r.q.slot);
    r.rslot = calloc(lo->nrecvs ? lo->nrecvs : 1, sizeof *r.rslot);
    int need_elem = !x->send.type.dense && x->send.type.size > 0;
    if (need_elem)
        r.c.elem = malloc((size_t)x->send.type.size);
    if (r.q.slot && r.rslot && (!need_elem || r.c.elem)) {
        rc = o->sync_steps ? run_synced(&r, o->sync_steps, o->sync_starts, comm)
                           : run_steps(&r, window, steps);
        if (rc != MPI_SUCCESS)
            abandon(&r);
    } else {
        rc = MPI_ERR_NO_MEM;
    }
    free(r.c.elem);
    free(r.rslot);
    free(r.q.slot);
    return rc;
}

/* Creates, allocates, runs and frees a view (see exec.h). */
int exec_run(const plan_local *lo, const exec_exchange *x, MPI_Comm comm, const exec_opts *o)
{
    exec_view *v;
    int rc = exec_view_create(lo, x, &v);
    if (rc == MPI_SUCCESS)
        rc = exec_view_run(v, comm, o);
    exec_view_free(v);
    return rc;
}
