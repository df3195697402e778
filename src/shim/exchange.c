/* One intercepted call, start to end.
 *
 *   Pass-through (not initialised, disabled, intercommunicator, MPI_COMM_NULL, nested call).
 *   Unchecked native: HRELAY_ALGO=native, or the communicator is in a run of calls that the
 *     last agreements decided to leave to MPI (every recent pattern runs native): PMPI with
 *     accounting, no communication of hrelay's own. Such a run lasts 8 calls at first and
 *     doubles up to HRELAY_RECHECK, so tiny repeated exchanges pay almost nothing.
 *   Agreed: every rank validates its arguments (validate.c: MPICH's checks, in its order),
 *     matches its part of the pattern against the
 *     cache, prepares the cached plan's run (before agreeing, so that nothing can fail on one
 *     rank after the others committed), and one small allreduce (agree.c) tells every rank
 *     whether all arguments are fine and which cached pattern all ranks match, and carries the
 *     slowest rank's time of the previous agreed call for the measured choice.
 *     Hit: run what the slot's choice says (plan_choice_next).
 *     Miss (or an argument error anywhere): allgather of [status, type facts, row] per rank;
 *     an argument error is raised on every rank (a rank's own class, else the lowest erroneous
 *     rank's), where natively the other ranks would wait forever; a byte displacement that
 *     overflows MPI_Aint anywhere makes every rank run PMPI; truncation and the new pattern's
 *     candidates (planned, with the staging each rank needs) are agreed in one allreduce
 *     (on truncation, before any data moved, every rank runs the MPI library's own exchange,
 *     which reports MPI_ERR_TRUNCATE on the truncated ranks as without hrelay), with whether every
 *     rank could prepare the likely run (else native, this call); the slot is filled (one
 *     more round only if the agreement changed the choice).
 *   Then the self-copy and the plan (or PMPI), the time for the next agreement, accounting to
 *     the call site, and the decision whether the following calls may run unchecked. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "plan/local.h"
#include "shim/shim.h"

/* Words before the row of bytes in each rank's gathered block: the argument status, and the
 * type facts 2 * gcd(send type size, receive type size) + (both types dense). */
enum { HDR_STATUS, HDR_TYPES, HDR_WORDS };

/* Thread-local variables of the preloaded library use the initial-exec model: a plain load,
 * no call to __tls_get_addr (the library is loaded at start-up, where static TLS is there). */
#define SHIM_TLS _Thread_local __attribute__((tls_model("initial-exec")))

/* Depth of intercepted calls on this thread: a nested call (from inside hrelay) passes through. */
static SHIM_TLS int shim_depth;

/* This thread's last communicator and its record, valid while shim_comm_epoch has not moved
 * (a record's deletion moves it, so a freed communicator's handle reused for a new one is
 * never mistaken for the old one). */
static SHIM_TLS MPI_Comm last_comm = MPI_COMM_NULL;
static SHIM_TLS shim_comm *last_rec;
static SHIM_TLS unsigned last_epoch;

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

/* This rank's type facts for the HDR_TYPES word. */
static uint64_t type_facts(const exec_exchange *x, int inplace)
{
    const exec_type *s = inplace ? &x->recv.type : &x->send.type, *r = &x->recv.type;
    return 2 * plan_gcd((uint64_t)s->size, (uint64_t)r->size) + (uint64_t)(s->dense && r->dense);
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
        *size_gcd = plan_gcd(*size_gcd, h[HDR_TYPES] / 2);
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

/* What one call prepared: the exec view of the plan it runs (with its staging) and the packed
 * copy of the data to send under MPI_IN_PLACE. */
typedef struct call_run {
    exec_view *view;
    void *stage;
    int slot;       /* the slot the view was prepared for, -1 if none */
    plan_algo algo; /* the family the call runs */
} call_run;

/* Releases what a call prepared. */
static void run_free(call_run *r)
{
    exec_view_free(r->view);
    free(r->stage);
    r->view = NULL;
    r->stage = NULL;
}

/* Prepares this rank's run of prog on x (the MPI_IN_PLACE copy once, the view, its staging).
 * Returns 0, or -1 if anything failed here (memory, a plan this rank cannot run, staging over
 * HRELAY_MAX_STAGING). */
static int prepare(const shim_args *a, shim_comm *rec, exec_exchange *x, const shim_prog *prog,
                   call_run *r)
{
    if (!prog)
        return -1;
    if (a->sendbuf == MPI_IN_PLACE && !r->stage &&
        exec_stage(&x->recv, rec->p, rec->priv, &x->send, rec->scount, rec->sdispl,
                   &r->stage) != MPI_SUCCESS)
        return -1;
    exec_view_free(r->view);
    r->view = NULL;
    if (exec_view_create(&prog->lo, x, &r->view) != MPI_SUCCESS ||
        exec_view_staging(r->view) > shim_g.cfg.max_staging)
        return -1;
    return exec_view_alloc(r->view) == MPI_SUCCESS ? 0 : -1;
}

/* Prepares the run of family algo of slot s and agrees over all ranks that it worked; if it
 * did not everywhere, the call runs natively. Returns an MPI error code (of the allreduce). */
static int prepare_agreed(const shim_args *a, shim_comm *rec, exec_exchange *x, shim_slot *s,
                          plan_algo algo, call_run *r)
{
    r->algo = algo;
    if (algo == PLAN_ALGO_NATIVE)
        return MPI_SUCCESS;
    int failed = prepare(a, rec, x, s->prog[algo], r) != 0;
    int rc = PMPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, rec->priv);
    if (rc == MPI_SUCCESS && failed) {
        shim_log(2, "%s on %d ranks: a rank could not prepare %s; native for this call",
                 shim_args_name(a), rec->p, plan_algo_name(algo));
        r->algo = PLAN_ALGO_NATIVE;
    }
    return rc;
}

/* The staging bytes prog needs on this rank for x, or UINT64_MAX if this rank cannot run it.
 * (Under MPI_IN_PLACE the send side is not staged yet: it has the receive side's layout.) */
static uint64_t prog_staging(const shim_prog *prog, const exec_exchange *x)
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

/* The native model MPICH's algorithm choice calls for. */
static plan_native_kind native_kind(const shim_args *a)
{
    if (a->sendbuf == MPI_IN_PLACE)
        return PLAN_NATIVE_INPLACE;
    return a->kind == SHIM_ALLTOALL || a->kind == SHIM_ALLTOALL_C ? PLAN_NATIVE_ALLTOALL
                                                                  : PLAN_NATIVE_ALLTOALLV;
}

/* Where the miss path's agreement words hold the staging of each family. */
enum { FLAG_STAGING = 4 };

/* Fills the new slot s from the agreed pattern m: shares the choice and plans of slot src if
 * it holds the same pattern (src >= 0), else decides (plans the candidates).
 * flags[FLAG_STAGING + a] gets the staging family a needs on this rank (UINT64_MAX: it failed
 * here). */
static void fill_slot(shim_comm *rec, shim_slot *s, const shim_slot *src_slot,
                      const plan_matrix *m, const plan_options *o, plan_native_kind kind,
                      const exec_exchange *x, uint64_t *flags)
{
    if (src_slot) {
        s->choice = src_slot->choice;
        s->model_native_ps = src_slot->model_native_ps;
        for (int a = 0; a < PLAN_ALGO_COUNT; a++)
            if ((s->prog[a] = src_slot->prog[a]))
                s->prog[a]->refs++;
        return;
    }
    shim_decide(rec, s, m, o, kind);
    for (int a = 0; a < PLAN_ALGO_COUNT; a++)
        if (s->failed & (1u << a))
            flags[FLAG_STAGING + a] = UINT64_MAX;
        else if (s->prog[a])
            flags[FLAG_STAGING + a] = s->prog[a]->staging = prog_staging(s->prog[a], x);
}

/* What the miss path tells its caller besides a slot number (*si >= 0: run r->algo there). */
enum { MISS_DONE = -2, MISS_NATIVE = -1 };

/* The miss path (see the file comment): gathers the pattern, reports argument errors and
 * truncation on every rank, fills a cache slot and prepares the run. The caller sets *si to
 * MISS_DONE. On success *si is the slot, r->algo the family to run, *planned the plans built;
 * *si == MISS_NATIVE: MPI runs this call (a displacement hrelay cannot address); *si ==
 * MISS_DONE: the call is over and the return value is its result (an error raised through the
 * communicator's error handler, or the MPI library's own exchange of a truncated call). */
static int miss(const shim_args *a, shim_comm *rec, exec_exchange *x, const shim_facts *f,
                uint64_t row_hash, uintptr_t site, int status, call_run *r, int *si,
                int *planned)
{
    int p = rec->p, me = rec->rank, rc, dense;
    size_t stride = (size_t)p + HDR_WORDS;
    uint64_t *mine = rec->gather + (size_t)me * stride, size_gcd;
    mine[HDR_STATUS] = (uint64_t)(int64_t)status;
    mine[HDR_TYPES] = f->types;
    memcpy(mine + HDR_WORDS, rec->row, (size_t)p * sizeof *mine);
    rc = PMPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rec->gather, (int)stride,
                        MPI_UINT64_T, rec->priv);
    if (rc != MPI_SUCCESS)
        return shim_raise(a, rc);
    int own = status;
    if ((status = gathered_status_and_compact(rec->gather, p, &size_gcd, &dense)) ==
        SHIM_STATUS_NATIVE) {
        *si = MISS_NATIVE; /* a byte displacement overflows somewhere: MPI runs this call */
        return MPI_SUCCESS;
    }
    if (status != 0) /* this rank's own error, else the lowest erroneous rank's */
        return shim_raise(a, own > 0 ? own : status);

    plan_matrix m = {.p = p, .bytes = rec->gather};
    plan_options po = {.min_step_bytes = shim_g.cfg.min_step,
                       .duplex = shim_g.cfg.duplex,
                       .grain_bytes = shim_grain(shim_g.cfg.grain, size_gcd, dense),
                       .packet_bytes = shim_g.cfg.packet,
                       .max_segments = (size_t)shim_g.cfg.max_plan};
    uint64_t mh = shim_hash_words(shim_hash_words(0, &f->types, 1), m.bytes, (size_t)p * p);
    /* [truncation, the likely run failed to prepare, 1 + its family, PLAN_ALGO_COUNT - its
     * family, staging per family]; MAX over ranks */
    int trunc_here = truncated(&m, x);
    uint64_t flags[FLAG_STAGING + PLAN_ALGO_COUNT] = {(uint64_t)trunc_here};
    int src = flags[0] ? -1 : shim_cache_find_pattern(rec, mh, f);
    int ni = -1;
    plan_algo algo = PLAN_ALGO_NATIVE;
    if (!flags[0]) {
        /* the source slot's plans are referenced before a victim is chosen (it may be src) */
        shim_slot copy, *s;
        if (src >= 0) {
            copy = rec->slot[src];
            for (int k = 0; k < PLAN_ALGO_COUNT; k++)
                if (copy.prog[k])
                    copy.prog[k]->refs++;
        }
        ni = shim_cache_victim(rec, src);
        s = &rec->slot[ni];
        s->facts = *f;
        fill_slot(rec, s, src >= 0 ? &copy : NULL, &m, &po, native_kind(a), x, flags);
        for (int k = 0; src >= 0 && k < PLAN_ALGO_COUNT; k++)
            shim_prog_release(copy.prog[k]);
        /* the likely run, prepared before agreeing (saves a round in the common case) */
        if (src < 0)
            shim_decide_choose(s, s->failed);
        algo = plan_choice_next(&s->choice);
        flags[1] = algo != PLAN_ALGO_NATIVE && prepare(a, rec, x, s->prog[algo], r) != 0;
        flags[2] = 1 + (uint64_t)algo;
        flags[3] = PLAN_ALGO_COUNT - (uint64_t)algo;
    }
    rc = PMPI_Allreduce(MPI_IN_PLACE, flags, FLAG_STAGING + PLAN_ALGO_COUNT, MPI_UINT64_T,
                        MPI_MAX, rec->priv);
    if (rc != MPI_SUCCESS || flags[0]) {
        if (ni >= 0)
            shim_slot_clear(rec, &rec->slot[ni]);
        /* *si stays MISS_DONE: the caller returns the result as it is */
        return rc != MPI_SUCCESS ? shim_raise(a, rc) : shim_truncated_call(a, trunc_here);
    }
    shim_slot *s = &rec->slot[ni];
    if (src < 0) {
        uint32_t drop = 0;
        for (int k = 0; k < PLAN_ALGO_COUNT; k++)
            if (flags[FLAG_STAGING + k] > shim_g.cfg.max_staging) {
                drop |= 1u << k;
                if (flags[FLAG_STAGING + k] != UINT64_MAX)
                    shim_log(2, "%s on %d ranks: %s needs %llu staging bytes on some rank, over "
                                "HRELAY_MAX_STAGING=%llu; not used",
                             shim_args_name(a), p, plan_algo_name((plan_algo)k),
                             (unsigned long long)flags[FLAG_STAGING + k],
                             (unsigned long long)shim_g.cfg.max_staging);
            }
        if (drop != s->failed)
            shim_decide_choose(s, drop);
        shim_decide_trim(rec, s, &m, drop);
        /* a fallback not planned yet (direct for a fixed family over the staging limit) */
        plan_algo next;
        while ((next = plan_choice_next(&s->choice)) != PLAN_ALGO_NATIVE && !s->prog[next]) {
            int built = 0;
            uint64_t need = shim_slot_prog(rec, s, next, &m, &po, &built) != 0
                                ? UINT64_MAX
                                : (s->prog[next]->staging = prog_staging(s->prog[next], x));
            s->planned += built;
            if ((rc = PMPI_Allreduce(MPI_IN_PLACE, &need, 1, MPI_UINT64_T, MPI_MAX,
                                     rec->priv)) != MPI_SUCCESS) {
                shim_slot_clear(rec, s);
                return shim_raise(a, rc);
            }
            if (need > shim_g.cfg.max_staging) {
                shim_prog_release(s->prog[next]);
                s->prog[next] = NULL;
                plan_choice_drop(&s->choice, next);
            }
        }
        *planned = s->planned;
        rec->patterns++;
    }
    s->used = s->gen = rec->calls;
    s->row_hash = row_hash;
    s->site = site;
    s->matrix_hash = mh;
    memcpy(s->row, rec->row, (size_t)p * sizeof *s->row);
    for (int i = 0; i < p; i++)
        s->col[i] = plan_matrix_at(&m, i, me);
    plan_algo next = plan_choice_next(&s->choice);
    int same = flags[2] == 1 + (uint64_t)algo && flags[3] == PLAN_ALGO_COUNT - (uint64_t)algo;
    if (same && next == algo) { /* what every rank prepared: it runs unless a rank failed */
        r->algo = flags[1] ? PLAN_ALGO_NATIVE : algo;
        *si = ni;
        return MPI_SUCCESS;
    }
    if ((rc = prepare_agreed(a, rec, x, s, next, r)) != MPI_SUCCESS)
        return shim_raise(a, rc);
    *si = ni;
    return MPI_SUCCESS;
}

/* Applies the agreed time of the previous agreed call to its slot's choice. */
static void feedback(shim_comm *rec, int timed, uint64_t ps)
{
    if (!timed || rec->prev_slot < 0)
        return;
    shim_slot *s = &rec->slot[rec->prev_slot];
    if (!s->used || s->gen != rec->prev_gen || s->choice.settled)
        return;
    plan_choice_record(&s->choice, rec->prev_algo, ps);
    if (s->choice.settled) {
        char line[512];
        size_t n = 0;
        for (int i = 0; i < s->choice.explore && n < sizeof line; i++)
            n += (size_t)snprintf(line + n, sizeof line - n, "%s%s %.3g ms", i ? ", " : "",
                                  plan_algo_name(s->choice.cand[i].algo),
                                  (double)s->choice.cand[i].score_ps * 1e-9);
        shim_log(1, "measured on %d ranks: %s (%s); runs %s from now on", rec->p, line,
                 s->choice.reopened ? "median of the second round's calls" : "fastest call",
                 plan_algo_name(plan_choice_next(&s->choice)));
    }
}

/* Measures the candidates of slot s a second time (plan_choice_reopen: only a choice that
 * settled by measuring, once) when SHIM_REMEASURE calls have passed since its pattern was
 * new: its first measurements ran in the pattern's first calls, which the MPI library's cold
 * start can slow down (connections, registration caches, protocol selection: a plan measured
 * 8x its steady-state time there). Decided from agreed values only (the call count and the
 * slot's generation), so on every rank alike. */
static void remeasure(shim_comm *rec, shim_slot *s)
{
    if (rec->calls - s->gen < SHIM_REMEASURE || !plan_choice_reopen(&s->choice))
        return;
    shim_log(1, "measuring again on %d ranks, %llu calls after the pattern was new",
             rec->p, (unsigned long long)(rec->calls - s->gen));
}

/* Runs family algo (prepared in r) or PMPI; *ps receives the time in picoseconds. Returns an
 * MPI error code. */
static int execute(const shim_args *a, shim_comm *rec, const exec_exchange *x, call_run *r,
                   uint64_t *ps)
{
    double t0 = PMPI_Wtime();
    int rc;
    if (r->algo == PLAN_ALGO_NATIVE) {
        rc = shim_args_pmpi(a);
    } else {
        exec_opts opts = {.window = shim_g.cfg.window, .tag = SHIM_TAG_PLAN};
        rc = exec_self_copy(x, rec->priv);
        if (rc == MPI_SUCCESS)
            rc = exec_view_run(r->view, rec->priv, &opts);
    }
    double t = PMPI_Wtime() - t0;
    *ps = t > 0 ? (uint64_t)(t * 1e12) : 0;
    return rc;
}

/* The estimated native time of a call that ran algo in t seconds on slot s. */
static double native_estimate(const shim_slot *s, plan_algo algo, double t)
{
    if (algo == PLAN_ALGO_NATIVE)
        return t;
    for (int i = 0; i < s->choice.n; i++)
        if (s->choice.cand[i].algo == PLAN_ALGO_NATIVE && s->choice.cand[i].runs)
            return (double)s->choice.cand[i].best_ps * 1e-12;
    return (double)s->model_native_ps * 1e-12;
}

/* After an agreed call on slot s: whether the next calls may run unchecked (see the file
 * comment). */
static void update_quiet(shim_comm *rec, const shim_slot *s)
{
    if (shim_g.cfg.recheck == 0)
        return;
    int may_plan = !(s->choice.settled && plan_choice_next(&s->choice) == PLAN_ALGO_NATIVE);
    if (may_plan) {
        rec->last_planned = rec->agreed;
        rec->quiet_len = SHIM_QUIET_FIRST;
        return;
    }
    if (rec->agreed - rec->last_planned < SHIM_QUIET_AFTER)
        return;
    uint64_t len = rec->quiet_len < (uint64_t)shim_g.cfg.recheck ? rec->quiet_len
                                                                  : (uint64_t)shim_g.cfg.recheck;
    rec->quiet_until = rec->calls + len;
    rec->quiet_len = 2 * len;
    rec->prev_slot = -1;
}

/* Adds one call to a site's statistics (site may be NULL: out of memory, not counted). */
static void account(shim_site *site, plan_algo algo, uint64_t bytes, double t, int hit,
                    int planned, double modeled_native, double native, int unchecked)
{
    if (!site)
        return;
    shim_stats *st = &site->st;
    st->calls++;
    st->bytes += bytes;
    st->algo_calls[algo]++;
    st->plans_computed += (uint64_t)planned;
    st->cache_hits += (uint64_t)hit;
    st->unchecked += (uint64_t)unchecked;
    st->time_s += t;
    st->modeled_native_s += modeled_native;
    st->native_s += native;
}

/* The unchecked path: PMPI with accounting (quiet: the call reused the communicator's
 * decision, counted as a cache hit). Calls are counted exactly; time and bytes are measured
 * on one call in SHIM_SAMPLE of each site and scaled, which keeps the clock and the datatype
 * query off the other calls (a few bytes per pair take 0.4 us natively). */
static int run_unchecked(const shim_args *a, shim_comm *rec, shim_site *site, int quiet)
{
    int timed = site && site->st.calls % SHIM_SAMPLE == 0;
    uint64_t t0 = timed ? shim_ticks() : 0;
    int rc = shim_args_pmpi(a);
    if (rc != MPI_SUCCESS || !site)
        return rc;
    shim_stats *st = &site->st;
    st->calls++;
    st->algo_calls[PLAN_ALGO_NATIVE]++;
    st->cache_hits += (uint64_t)quiet;
    st->unchecked += (uint64_t)quiet;
    if (timed) {
        double t = shim_ticks_seconds(shim_ticks() - t0) * SHIM_SAMPLE;
        st->time_s += t;
        st->native_s += t;
        st->bytes += local_bytes(a, rec->p) * SHIM_SAMPLE;
    }
    rec->last = PLAN_ALGO_NATIVE;
    return rc;
}

/* The agreed path (see the file comment). */
static int run_agreed(const shim_args *a, shim_comm *rec, shim_site *site, int request,
                      uint64_t t0)
{
    int p = rec->p, inplace = a->sendbuf == MPI_IN_PLACE, rc;
    exec_exchange x;
    int status = describe(a, rec, &x, rec->row);
    shim_facts f = {.kind = (int)a->kind, .inplace = inplace, .request = request,
                    .types = status ? 0 : type_facts(&x, inplace)};
    uintptr_t key = site ? site->key : 0;
    uint64_t row_hash = status ? 0 : shim_hash_words(0, rec->row, (size_t)p);
    uint64_t mask = status ? 0 : shim_cache_match(rec, rec->row, row_hash, &f, key, &x);
    call_run r = {.slot = -1, .algo = PLAN_ALGO_NATIVE};
    if (mask) { /* prepare the likely run now: nothing may fail after the agreement */
        int i = __builtin_ctzll(mask);
        plan_algo algo = plan_choice_next(&rec->slot[i].choice);
        if (algo == PLAN_ALGO_NATIVE || prepare(a, rec, &x, rec->slot[i].prog[algo], &r) == 0) {
            r.slot = i;
            r.algo = algo;
        } else {
            mask = 0;
        }
    }
    int can_gather = mask || shim_comm_gather_buffer(rec) == 0;
    uint64_t w[SHIM_AGREE_WORDS] = {
        mask | (uint64_t)(status == 0) << SHIM_AGREE_OK |
            (uint64_t)(rec->prev_slot >= 0) << SHIM_AGREE_TIMED |
            (uint64_t)can_gather << SHIM_AGREE_GATHER,
        rec->prev_slot >= 0 ? rec->prev_ps : 0, r.slot >= 0 ? 1 + (uint64_t)r.slot : 0,
        r.slot >= 0 ? SHIM_CACHE_MAX - (uint64_t)r.slot : 0};
    if ((rc = shim_agree(w, rec->priv)) != MPI_SUCCESS) {
        run_free(&r);
        return shim_raise(a, rc);
    }
    rec->agreed++;
    uint64_t hit = w[0] >> SHIM_AGREE_OK & 1 ? w[0] & (((uint64_t)1 << SHIM_CACHE_MAX) - 1) : 0;
    int si = -1, planned = 0;
    if (hit) {
        si = __builtin_ctzll(hit);
        plan_algo algo = plan_choice_next(&rec->slot[si].choice);
        feedback(rec, (int)(w[0] >> SHIM_AGREE_TIMED & 1), w[1]);
        remeasure(rec, &rec->slot[si]);
        plan_choice_start(&rec->slot[si].choice, algo);
        /* unless every rank prepared the agreed slot (a rank that also matched another slot
         * prepared that one), all prepare it again and agree that it worked */
        if (w[2] != 1 + (uint64_t)si || w[3] != SHIM_CACHE_MAX - (uint64_t)si)
            rc = prepare_agreed(a, rec, &x, &rec->slot[si], algo, &r);
        if (rc != MPI_SUCCESS) {
            run_free(&r);
            return shim_raise(a, rc);
        }
    } else if (!(w[0] >> SHIM_AGREE_GATHER & 1)) {
        /* a rank cannot hold the P x P matrix: MPI does this call (and reports any error) */
        run_free(&r);
        rec->prev_slot = -1;
        shim_log(2, "%s on %d ranks: a rank has no memory for the pattern; native",
                 shim_args_name(a), p);
        return run_unchecked(a, rec, site, 0);
    } else {
        feedback(rec, (int)(w[0] >> SHIM_AGREE_TIMED & 1), w[1]);
        si = MISS_DONE;
        rc = miss(a, rec, &x, &f, row_hash, key, status, &r, &si, &planned);
        if (si < 0) {
            run_free(&r);
            rec->prev_slot = -1;
            return si == MISS_NATIVE ? run_unchecked(a, rec, site, 0) : rc;
        }
    }
    rec->prev_slot = -1;
    shim_slot *s = &rec->slot[si];
    s->used = rec->calls;
    uint64_t ps;
    rc = execute(a, rec, &x, &r, &ps);
    run_free(&r);
    if (rc != MPI_SUCCESS)
        return r.algo == PLAN_ALGO_NATIVE ? rc : shim_raise(a, rc);
    /* What the choice compares: a plan's whole call (the agreement, the preparation and the
     * self-copy are part of its price) against MPI's exchange alone (what an unchecked native
     * call costs); a new pattern's first call (gather and planning) is not measured. */
    double t = shim_ticks_seconds(shim_ticks() - t0);
    rec->prev_slot = hit ? si : -1;
    rec->prev_gen = s->gen;
    rec->prev_algo = r.algo;
    rec->prev_ps = r.algo == PLAN_ALGO_NATIVE ? ps : (uint64_t)(t * 1e12);
    rec->last = (int)r.algo;

    uint64_t bytes = 0;
    for (int j = 0; j < p; j++)
        bytes += rec->row[j];
    account(site, r.algo, bytes, t, hit != 0, planned, (double)s->model_native_ps * 1e-12,
            native_estimate(s, r.algo, (double)ps * 1e-12), 0);
    const shim_prog *pg = r.algo == PLAN_ALGO_NATIVE ? NULL : s->prog[r.algo];
    shim_log(2,
             "%s on %d ranks: %s (%s), %zu steps, %llu bytes sent and %llu staging bytes on this "
             "rank, %.6f s",
             shim_args_name(a), p, plan_algo_name(r.algo), hit ? "cached" : "new pattern",
             pg ? pg->nsteps : 0, (unsigned long long)bytes,
             (unsigned long long)(pg ? pg->staging : 0), t);
    update_quiet(rec, s);
    return MPI_SUCCESS;
}

/* The record of an intracommunicator comm, created on first use (collective), or NULL for an
 * intercommunicator or when it cannot be created. A communicator with a record is an
 * intracommunicator, so the common case is one attribute lookup. */
static shim_comm *record_of(MPI_Comm comm)
{
    unsigned epoch = shim_comm_epoch();
    if (comm == last_comm && epoch == last_epoch)
        return last_rec;
    shim_comm *rec = NULL;
    int flag = 0, inter = 0;
    if (PMPI_Comm_get_attr(comm, shim_g.keyval, &rec, &flag) != MPI_SUCCESS || !flag) {
        if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
            return NULL;
        if (!(rec = shim_comm_get(comm)))
            return NULL;
        epoch = shim_comm_epoch();
    }
    last_comm = comm;
    last_rec = rec;
    last_epoch = epoch;
    return rec;
}

/* Runs an intercepted call (see shim.h). */
int shim_alltoall_any(const shim_args *a)
{
    if (!shim_g.active || shim_depth > 0 || a->comm == MPI_COMM_NULL)
        return shim_args_pmpi(a);
    shim_depth++;
    shim_comm *rec = record_of(a->comm);
    int rc;
    if (!rec) {
        rc = shim_args_pmpi(a);
    } else {
        shim_site *site = shim_site_of(&rec->sites, a->caller, shim_g.cfg.site_depth);
        int request = rec->request != SHIM_REQUEST_ENV ? rec->request : shim_g.cfg.algo;
        rec->calls++;
        if (request == PLAN_ALGO_NATIVE)
            rc = run_unchecked(a, rec, site, 0);
        else if (rec->calls <= rec->quiet_until)
            rc = run_unchecked(a, rec, site, 1);
        else
            rc = run_agreed(a, rec, site, request, shim_ticks());
    }
    shim_depth--;
    return rc;
}
