/* What one call runs: its preparation (the view of the plan on the call's buffers, staging,
 * the MPI_IN_PLACE copy), agreed where it may fail, and its execution. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "shim/log.h"
#include "shim/run.h"
#include "shim/state.h"

void shim_run_free(shim_run *r)
{
    exec_view_free(r->view);
    free(r->stage);
    r->view = NULL;
    r->stage = NULL;
}

int shim_run_prepare(const shim_args *a, shim_comm *rec, exec_exchange *x, shim_prog *prog,
                     shim_run *r)
{
    if (!prog)
        return -1;
    if (a->sendbuf == MPI_IN_PLACE && !r->stage &&
        exec_stage(&x->recv, rec->p, rec->priv, &x->send, rec->scount, rec->sdispl,
                   &r->stage) != MPI_SUCCESS)
        return -1;
    exec_view_free(r->view);
    r->view = NULL;
    r->steps = prog->steps;
    r->sync_steps = prog->sync_steps;
    r->sync_starts = prog->sync_starts;
    r->prog = prog;
    if (exec_view_create(&prog->lo, x, &r->view) != MPI_SUCCESS ||
        exec_view_staging(r->view) > shim_g.cfg.max_staging)
        return -1;
    return exec_view_alloc(r->view) == MPI_SUCCESS ? 0 : -1;
}

int shim_run_prepare_agreed(const shim_args *a, shim_comm *rec, exec_exchange *x, shim_slot *s,
                            plan_algo algo, int variant, shim_run *r)
{
    r->algo = algo;
    r->variant = algo == PLAN_ALGO_NATIVE ? 0 : variant;
    if (algo == PLAN_ALGO_NATIVE)
        return MPI_SUCCESS;
    int failed = shim_run_prepare(a, rec, x, s->prog[algo], r) != 0;
    int rc = PMPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, rec->priv);
    if (rc == MPI_SUCCESS && failed) {
        shim_log(2, "%s on %d ranks: a rank could not prepare %s; native for this call",
                 shim_args_name(a), rec->p, plan_algo_name(algo));
        r->algo = PLAN_ALGO_NATIVE;
        r->variant = 0;
    }
    return rc;
}

uint64_t shim_prog_staging(const shim_prog *prog, const exec_exchange *x)
{
    exec_view *v;
    exec_exchange y = *x;
    if (!y.send.count)
        y.send = y.recv;
    if (exec_view_create(&prog->lo, &y, &v) != MPI_SUCCESS)
        return UINT64_MAX;
    uint64_t staging = exec_view_staging(v);
    exec_view_free(v);
    return staging;
}

/* The window through which node-aggregate's program prog moves its transfers within the node
 * under HRELAY_NODE_SHM=1, or as its variant PLAN_VARIANT_NODE_WINDOW: *out, filled, or NULL
 * (messages). At the program's first run so the node's ranks agree on it (collective over
 * rec's communicator: every rank runs the same program and variant), later runs only look;
 * *setup_s receives the seconds the first run spent agreeing on the window and making, growing
 * and warming it (0 at later runs and where no window is used). */
static const exec_shm *window_of(shim_comm *rec, shim_prog *prog, int variant, exec_shm *out,
                                 double *setup_s)
{
    *setup_s = 0;
    shim_topo *st = &rec->topo;
    int use = shim_g.cfg.node_shm == 1 || variant == PLAN_VARIANT_NODE_WINDOW;
    if (!prog || !use || prog->algo != PLAN_ALGO_NODE_AGGREGATE || prog->shm_ok < 0 ||
        !shim_topo_plan(st))
        return NULL;
    if (prog->shm_ok == 0) {
        double t0 = PMPI_Wtime();
        uint64_t need = prog->shm.sync ? prog->shm.bytes : UINT64_MAX;
        int ok = shim_topo_comms(st, rec->priv) == MPI_SUCCESS &&
                 PMPI_Allreduce(MPI_IN_PLACE, &need, 1, MPI_UINT64_T, MPI_MAX, st->node) ==
                     MPI_SUCCESS &&
                 need != UINT64_MAX && need > 0 && exec_window_ensure(&st->window, st->node, need);
        prog->shm_ok = ok ? 1 : -1;
        *setup_s = PMPI_Wtime() - t0;
        double ms = *setup_s * 1e3;
        if (ok)
            shim_log(2,
                     "node-aggregate: transfers within the node through its window (%llu "
                     "bytes; %.3f ms to agree on it, make or grow it and warm it)",
                     (unsigned long long)st->window.bytes, ms);
        else
            shim_log(2, "node-aggregate: transfers within the node as messages (%.3f ms)", ms);
    }
    if (prog->shm_ok < 0 || st->window.bytes < prog->shm.bytes) { /* the window was lost */
        prog->shm_ok = -1;
        return NULL;
    }
    *out = (exec_shm){.base = st->window.base,
                      .send_at = prog->shm.send_at,
                      .recv_at = prog->shm.recv_at,
                      .sync = prog->shm.sync,
                      .nsteps = prog->shm.nsteps,
                      .win = st->window.win,
                      .node = st->node};
    return out;
}

int shim_run_execute(const shim_args *a, shim_comm *rec, const exec_exchange *x, shim_run *r,
                     uint64_t *ps)
{
    double t0 = PMPI_Wtime();
    int rc;
    r->setup_s = 0;
    if (r->algo == PLAN_ALGO_NATIVE) {
        rc = shim_args_pmpi(a);
    } else {
        /* a node plan's steps in flight bound its operations (exec.h), not HRELAY_WINDOW */
        int window = r->variant == PLAN_VARIANT_SMALL_WINDOW &&
                             shim_g.cfg.window > SHIM_SMALL_WINDOW
                         ? SHIM_SMALL_WINDOW
                         : shim_g.cfg.window;
        exec_shm shm;
        const exec_shm *through = window_of(rec, r->prog, r->variant, &shm, &r->setup_s);
        t0 += r->setup_s;
        exec_opts opts = {.window = r->steps ? INT_MAX : window,
                          .steps = r->steps,
                          .tag = SHIM_TAG_PLAN,
                          .sync_steps = r->sync_steps,
                          .sync_starts = r->sync_starts,
                          .shm = through};
        rc = exec_self_copy(x, rec->priv);
        if (rc == MPI_SUCCESS)
            rc = exec_view_run(r->view, rec->priv, &opts);
    }
    double t = PMPI_Wtime() - t0;
    *ps = t > 0 ? (uint64_t)(t * 1e12) : 0;
    return rc;
}

const char *shim_run_name(plan_algo algo, int variant, char *buf, size_t cap)
{
    if (variant == PLAN_VARIANT_SMALL_WINDOW)
        snprintf(buf, cap, "%s/window %d", plan_algo_name(algo), SHIM_SMALL_WINDOW);
    else if (variant == PLAN_VARIANT_NODE_WINDOW)
        snprintf(buf, cap, "%s/shared memory", plan_algo_name(algo));
    else
        return plan_algo_name(algo);
    return buf;
}
