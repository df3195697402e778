/* One intercepted call, start to end:
 *   pass-through (not initialised, disabled, intercommunicator, MPI_COMM_NULL, nested call);
 *   HRELAY_ALGO=native: PMPI with accounting;
 *   otherwise: normalise and validate locally (validate.c: MPICH's checks, in its order); one
 *   allgather on the private communicator of [status, type facts, bytes sent to each rank] per
 *   rank; an argument error anywhere is raised on every rank (a rank's own class, else the
 *   lowest erroneous rank's), where natively the other ranks would wait forever; a byte
 *   displacement overflowing MPI_Aint anywhere makes every rank run PMPI; every rank checks its
 *   receive regions against its column of the matrix, plans with the configured family and
 *   analyses its part (staging it needs); one small allreduce agrees on truncation (then, before
 *   any data moved, every rank runs the MPI library's own exchange, which reports
 *   MPI_ERR_TRUNCATE on the truncated ranks exactly as without hrelay), on failures (then every rank runs PMPI instead) and on the largest staging any
 *   rank needs: over HRELAY_MAX_STAGING, every rank plans the direct family instead (no
 *   staging) and a second allreduce agrees that this worked (else PMPI). Then the self-copy
 *   and the plan run, and the call is accounted to the family that ran it. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "plan/local.h"
#include "shim/shim.h"

/* Words before the row of bytes in each rank's gathered block: the argument status, and the
 * type facts 2 * gcd(send type size, receive type size) + (both types dense). */
enum { HDR_STATUS, HDR_TYPES, HDR_WORDS };

/* Depth of intercepted calls on this thread: a nested call (from inside hrelay) passes through. */
static _Thread_local int shim_depth;

/* The MPI error class of an error code. */
static int error_class(int code)
{
    int cls = MPI_ERR_OTHER;
    return PMPI_Error_class(code, &cls) == MPI_SUCCESS ? cls : MPI_ERR_OTHER;
}

/* Bytes this rank sends in a call that already succeeded (its types are valid). */
static uint64_t local_bytes(const shim_args *a, int p)
{
    int inplace = a->sendbuf == MPI_IN_PLACE;
    MPI_Count size = 0;
    uint64_t total = 0;
    if (PMPI_Type_size_c(inplace ? a->rtype : a->stype, &size) != MPI_SUCCESS || size <= 0)
        return 0;
    for (int j = 0; j < p; j++) {
        MPI_Count c = shim_args_count(a, inplace, j);
        if (c > 0)
            total += (uint64_t)c * (uint64_t)size;
    }
    return total;
}

/* The MPI library's own algorithm, accounted as "native" (and recorded in rec, if any). */
static int run_native(const shim_args *a, shim_comm *rec, double t0)
{
    int rc = shim_args_pmpi(a), p = 0;
    if (rc == MPI_SUCCESS && PMPI_Comm_size(a->comm, &p) == MPI_SUCCESS)
        shim_stats_add(shim_g.world, PLAN_ALGO_NATIVE, local_bytes(a, p), PMPI_Wtime() - t0, 0,
                       0);
    if (rec)
        rec->last = PLAN_ALGO_NATIVE;
    return rc;
}

/* Fills one side of x from the arguments into the record's arrays, checking them as the MPI
 * library does (validate.c). Returns an MPI error class (MPI_ERR_TYPE, MPI_ERR_COUNT, ...),
 * SHIM_STATUS_NATIVE (a byte displacement overflows) or MPI_SUCCESS. */
static int describe_side(const shim_args *a, int recv, const shim_comm *rec, exec_side *s,
                         MPI_Count *count, MPI_Aint *displ)
{
    MPI_Datatype type = recv ? a->rtype : a->stype;
    int rc;
    if ((rc = shim_check_type(type, rec->priv)) != MPI_SUCCESS)
        return rc;
    if ((rc = exec_type_init(&s->type, type)) != MPI_SUCCESS)
        return error_class(rc);
    for (int j = 0; j < rec->p; j++) {
        MPI_Count total;
        count[j] = shim_args_count(a, recv, j);
        if ((rc = shim_check_message(a, recv, j, count[j], &s->type)) != MPI_SUCCESS)
            return rc;
        if (__builtin_mul_overflow(count[j], s->type.size, &total))
            return MPI_ERR_COUNT;
#ifndef HRELAY_HAVE_MPI_LARGE_COUNT
        if (total > INT_MAX) /* exec's int-count MPI-3 calls cannot move it (mpi_compat.h) */
            return SHIM_STATUS_NATIVE;
#endif
        if (__builtin_mul_overflow(shim_args_displ(a, recv, j), (MPI_Aint)s->type.extent,
                                   &displ[j]))
            return SHIM_STATUS_NATIVE;
    }
    s->base = recv ? a->recvbuf : (char *)a->sendbuf;
    s->count = count;
    s->displ = displ;
    return MPI_SUCCESS;
}

/* Normalises and validates this rank's arguments into x and writes the bytes it sends to each
 * rank into row. With MPI_IN_PLACE the send side is left for exec_stage and the row comes from
 * the receive side. Returns MPI_SUCCESS, the MPI error class MPI would report (checked in
 * MPICH's order: send side, aliasing, receive side) or SHIM_STATUS_NATIVE. */
static int describe(const shim_args *a, shim_comm *rec, exec_exchange *x, uint64_t *row)
{
    int p = rec->p, inplace = a->sendbuf == MPI_IN_PLACE, rc;
    memset(x, 0, sizeof *x);
    x->p = p;
    x->rank = rec->rank;
    if (!inplace &&
        ((rc = describe_side(a, 0, rec, &x->send, rec->scount, rec->sdispl)) != MPI_SUCCESS ||
         (rc = shim_check_alias(a)) != MPI_SUCCESS))
        return rc;
    if ((rc = describe_side(a, 1, rec, &x->recv, rec->rcount, rec->rdispl)) != MPI_SUCCESS)
        return rc;
    const exec_side *s = inplace ? &x->recv : &x->send;
    for (int j = 0; j < p; j++)
        row[j] = (uint64_t)s->count[j] * (uint64_t)s->type.size;
    return MPI_SUCCESS;
}

/* Greatest common divisor (gcd(0, b) == b). */
static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* This rank's type facts for the HDR_TYPES word. */
static uint64_t type_facts(const exec_exchange *x, int inplace)
{
    const exec_type *s = inplace ? &x->recv.type : &x->send.type, *r = &x->recv.type;
    return 2 * gcd((uint64_t)s->size, (uint64_t)r->size) + (uint64_t)(s->dense && r->dense);
}

/* After the allgather: the lowest rank's error class, else SHIM_STATUS_NATIVE if some rank
 * asks for it, else 0; the combined type facts
 * (*size_gcd over all ranks, *dense if every rank's types are dense), then the gathered blocks
 * compacted in place into the p x p matrix at the start of the buffer. */
static int gathered_status_and_compact(uint64_t *g, int p, uint64_t *size_gcd, int *dense)
{
    size_t stride = (size_t)p + HDR_WORDS;
    int status = 0;
    *size_gcd = 0;
    *dense = 1;
    for (int i = 0; i < p; i++) {
        const uint64_t *h = g + (size_t)i * stride;
        int s = (int)(int64_t)h[HDR_STATUS];
        if (s > 0 ? status <= 0 : !status)
            status = s;
        *size_gcd = gcd(*size_gcd, h[HDR_TYPES] / 2);
        *dense &= (int)(h[HDR_TYPES] & 1);
    }
    for (int i = 0; i < p; i++)
        memmove(g + (size_t)i * p, g + (size_t)i * stride + HDR_WORDS, (size_t)p * sizeof *g);
    return status;
}

/* 1 if some rank sends this rank more than its receive region for that rank holds. */
static int truncated(const plan_matrix *m, const exec_exchange *x)
{
    for (int i = 0; i < m->p; i++)
        if (plan_matrix_at(m, i, x->rank) >
            (uint64_t)x->recv.count[i] * (uint64_t)x->recv.type.size)
            return 1;
    return 0;
}

/* Plans the call with `algo` (see shim_call_plan), after packing the data to send for
 * MPI_IN_PLACE (once; a second planning keeps the copy). Returns 0 or -1. */
static int prepare(const shim_args *a, shim_comm *rec, const plan_matrix *m, exec_exchange *x,
                   plan_algo algo, const plan_options *o, shim_call *cs)
{
    if (a->sendbuf == MPI_IN_PLACE && !cs->stage &&
        exec_stage(&x->recv, rec->p, rec->priv, &x->send, rec->scount, rec->sdispl,
                   &cs->stage) != MPI_SUCCESS)
        return -1;
    return shim_call_plan(cs, algo, o, m, x, shim_g.cfg.max_staging);
}

/* Writes the plan to HRELAY_DUMP (rank 0 of the communicator; one warning per process on
 * failure). */
static void dump(const shim_comm *rec, const plan *pl, const plan_matrix *m)
{
    shim_world *w = shim_g.world;
    if (!shim_g.cfg.dump[0] || rec->rank != 0)
        return;
    if (shim_dump_plan(w, shim_g.cfg.dump, pl, m) != 0) {
        shim_world_lock(w);
        int first = !w->dump_warned;
        w->dump_warned = 1;
        shim_world_unlock(w);
        if (first)
            shim_warn("cannot write plans to %s", shim_g.cfg.dump);
    }
}

/* Falls back to the direct family after the staging agreement said no (every rank calls
 * this): plans direct, agrees that every rank could. Returns MPI_SUCCESS with *failed set
 * (then the call runs natively), or the allreduce's error. */
static int fall_back_to_direct(const shim_args *a, shim_comm *rec, const plan_matrix *m,
                               exec_exchange *x, const plan_options *o, shim_call *cs,
                               uint64_t staging, int *failed)
{
    shim_log(2, "%s on %d ranks: %s needs %llu staging bytes on some rank, over "
                "HRELAY_MAX_STAGING=%llu; direct instead",
             shim_args_name(a), rec->p, plan_algo_name(cs->pl.algo),
             (unsigned long long)staging, (unsigned long long)shim_g.cfg.max_staging);
    shim_call_release_plan(cs);
    *failed = prepare(a, rec, m, x, PLAN_ALGO_DIRECT, o, cs) != 0;
    return PMPI_Allreduce(MPI_IN_PLACE, failed, 1, MPI_INT, MPI_MAX, rec->priv);
}

/* The planned path (see the file comment). */
static int run_planned(const shim_args *a, shim_comm *rec, plan_algo family, double t0)
{
    int p = rec->p, me = rec->rank, rc, dense;
    size_t stride = (size_t)p + HDR_WORDS;
    uint64_t *mine = rec->gather + (size_t)me * stride, size_gcd;
    exec_exchange x;
    int status = describe(a, rec, &x, mine + HDR_WORDS);
    mine[HDR_STATUS] = (uint64_t)(int64_t)status;
    mine[HDR_TYPES] = status ? 0 : type_facts(&x, a->sendbuf == MPI_IN_PLACE);
    rc = PMPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rec->gather, (int)stride,
                        MPI_UINT64_T, rec->priv);
    if (rc != MPI_SUCCESS)
        return shim_raise(a, rc);
    int own = status;
    if ((status = gathered_status_and_compact(rec->gather, p, &size_gcd, &dense)) ==
        SHIM_STATUS_NATIVE)
        return run_native(a, rec, t0);
    if (status != 0) /* this rank's own error, else the lowest erroneous rank's */
        return shim_raise(a, own > 0 ? own : status);

    plan_matrix m = {.p = p, .bytes = rec->gather};
    plan_options po = {.min_step_bytes = shim_g.cfg.min_step,
                       .grain_bytes = shim_grain(shim_g.cfg.grain, size_gcd, dense),
                       .packet_bytes = shim_g.cfg.packet};
    shim_call cs;
    memset(&cs, 0, sizeof cs);
    /* [truncation, preparation failed, staging needed]; MAX over ranks */
    int trunc_here = truncated(&m, &x);
    uint64_t flags[3] = {(uint64_t)trunc_here, 0, 0};
    if (!flags[0]) {
        flags[1] = prepare(a, rec, &m, &x, family, &po, &cs) != 0;
        flags[2] = cs.view ? exec_view_staging(cs.view) : 0;
    }
    rc = PMPI_Allreduce(MPI_IN_PLACE, flags, 3, MPI_UINT64_T, MPI_MAX, rec->priv);
    int failed = flags[1] != 0;
    if (rc == MPI_SUCCESS && !flags[0] && !failed && flags[2] > shim_g.cfg.max_staging)
        rc = fall_back_to_direct(a, rec, &m, &x, &po, &cs, flags[2], &failed);
    if (rc != MPI_SUCCESS || flags[0]) {
        shim_call_free(&cs);
        return rc != MPI_SUCCESS ? shim_raise(a, rc) : shim_truncated_call(a, trunc_here);
    }
    if (failed) {
        shim_call_free(&cs);
        shim_log(2, "%s on %d ranks: planning failed, native", shim_args_name(a), p);
        return run_native(a, rec, t0);
    }

    dump(rec, &cs.pl, &m);
    double modeled = shim_model_native(&m);
    uint64_t bytes = 0, staging = exec_view_staging(cs.view);
    for (int j = 0; j < p; j++)
        bytes += plan_matrix_at(&m, me, j);
    size_t nsteps = cs.pl.nsteps;
    plan_algo algo = cs.pl.algo;

    exec_opts opts = {.window = shim_g.cfg.window, .tag = SHIM_TAG_PLAN};
    rc = exec_self_copy(&x, rec->priv);
    if (rc == MPI_SUCCESS)
        rc = exec_view_run(cs.view, rec->priv, &opts);
    shim_call_free(&cs);
    if (rc != MPI_SUCCESS)
        return shim_raise(a, rc);

    double t = PMPI_Wtime() - t0;
    rec->last = (int)algo;
    shim_stats_add(shim_g.world, algo, bytes, t, modeled, 1);
    shim_log(2,
             "%s on %d ranks: %s, %zu steps, %llu bytes sent and %llu staging bytes on this rank, "
             "%.6f s",
             shim_args_name(a), p, plan_algo_name(algo), nsteps, (unsigned long long)bytes,
             (unsigned long long)staging, t);
    return MPI_SUCCESS;
}

/* Runs an intercepted call (see shim.h). */
int shim_alltoall_any(const shim_args *a)
{
    int inter = 0;
    if (!shim_g.active || shim_depth > 0 || a->comm == MPI_COMM_NULL ||
        PMPI_Comm_test_inter(a->comm, &inter) != MPI_SUCCESS || inter)
        return shim_args_pmpi(a);

    shim_depth++;
    double t0 = PMPI_Wtime();
    shim_comm *rec = shim_comm_get(a->comm);
    int request = rec && rec->request != SHIM_REQUEST_ENV ? rec->request : shim_g.cfg.algo;
    if (request == SHIM_AUTO)
        request = PLAN_ALGO_DIRECT; /* until the cost model decides */
    int rc = !rec || request == PLAN_ALGO_NATIVE
                 ? run_native(a, rec, t0)
                 : run_planned(a, rec, (plan_algo)request, t0);
    shim_depth--;
    return rc;
}
