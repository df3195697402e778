/* One intercepted call, start to end.
 *
 *   Pass-through (not initialised, disabled, intercommunicator, MPI_COMM_NULL, nested call).
 *   Unchecked native: HRELAY_ALGO=native, or the communicator is in a run of calls that the
 *     last agreements decided to leave to MPI (every recent pattern runs native): PMPI with
 *     accounting, no communication of hrelay's own. Such a run lasts 8 calls at first and
 *     doubles up to HRELAY_RECHECK, so tiny repeated exchanges pay almost nothing.
 *   Agreed: every rank validates its arguments (describe.c, validate.c: MPICH's checks, in its
 *     order), matches its part of the pattern against the cache, prepares the cached plan's
 *     run (run.c; before agreeing, so that nothing can fail on one rank after the others
 *     committed), and one small allreduce (agree.c) tells every rank whether all arguments are
 *     fine and which cached pattern all ranks match, and carries the slowest rank's time of the
 *     previous agreed call for the measured choice.
 *     Hit: run what the slot's choice says (plan_choice_next).
 *     Miss (or an argument error anywhere): miss.c gathers the pattern, raises an argument
 *     error on every rank, agrees on truncation (then every rank runs the MPI library's own
 *     exchange, which reports MPI_ERR_TRUNCATE on the truncated ranks as without hrelay), on
 *     the new pattern's candidates and on the run every rank prepared, and fills a slot.
 *   Then the self-copy and the plan (or PMPI), the time for the next agreement, accounting to
 *     the call site, and the decision whether the following calls may run unchecked. */
#include <stdio.h>

#include "plan/hash.h"
#include "shim/agree.h"
#include "shim/call.h"
#include "shim/clock.h"
#include "shim/describe.h"
#include "shim/log.h"
#include "shim/miss.h"
#include "shim/node_gather.h"
#include "shim/state.h"
#include "shim/validate.h"

/* Calls on a communicator and agreements between the tuning steps of exchange.c. */
enum {
    QUIET_AFTER = 4, /* agreed calls without a plan before native runs unchecked */
    SAMPLE = 16,     /* unchecked calls: time and bytes measured on one in this many */
    REMEASURE = 64   /* calls after a pattern's first before its candidates are measured a
                        second time */
};

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
 * settled by measuring, once) when REMEASURE calls have passed since its pattern was new: its
 * first measurements ran in the pattern's first calls, which the MPI library's cold start can
 * slow down (connections, registration caches, protocol selection: a plan measured 8x its
 * steady-state time there). Decided from agreed values only (the call count and the slot's
 * generation), so on every rank alike. */
static void remeasure(shim_comm *rec, shim_slot *s)
{
    if (rec->calls - s->gen < REMEASURE || !plan_choice_reopen(&s->choice))
        return;
    shim_log(1, "measuring again on %d ranks, %llu calls after the pattern was new",
             rec->p, (unsigned long long)(rec->calls - s->gen));
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
    if (rec->agreed - rec->last_planned < QUIET_AFTER)
        return;
    uint64_t len = rec->quiet_len < (uint64_t)shim_g.cfg.recheck ? rec->quiet_len
                                                                  : (uint64_t)shim_g.cfg.recheck;
    rec->quiet_until = rec->calls + len;
    rec->quiet_len = 2 * len;
    rec->prev_slot = -1;
}

/* Adds one agreed call to a site's statistics (site may be NULL: out of memory, not
 * counted). */
static void account(shim_site *site, plan_algo algo, uint64_t bytes, double t, int hit,
                    int planned, double modeled_native, double native)
{
    if (!site)
        return;
    shim_stats *st = &site->st;
    st->calls++;
    st->bytes += bytes;
    st->algo_calls[algo]++;
    st->plans_computed += (uint64_t)planned;
    st->cache_hits += (uint64_t)hit;
    st->time_s += t;
    st->modeled_native_s += modeled_native;
    st->native_s += native;
}

/* The unchecked path: PMPI with accounting (quiet: the call reused the communicator's
 * decision, counted as a cache hit). Calls are counted exactly; time and bytes are measured
 * on one call in SAMPLE of each site and scaled, which keeps the clock and the datatype
 * query off the other calls (a few bytes per pair take 0.4 us natively). */
static int run_unchecked(const shim_args *a, shim_comm *rec, shim_site *site, int quiet)
{
    int timed = site && site->st.calls % SAMPLE == 0;
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
        double t = shim_ticks_seconds(shim_ticks() - t0) * SAMPLE;
        st->time_s += t;
        st->native_s += t;
        st->bytes += shim_local_bytes(a, rec->p) * SAMPLE;
    }
    rec->last = PLAN_ALGO_NATIVE;
    return rc;
}

/* The agreed path, first part: describes the call, matches it against the cache and prepares
 * the likely run (nothing may fail after the agreement); *ag is this rank's part of it. */
static void prepare_call(shim_call *c, shim_agreement *ag)
{
    shim_comm *rec = c->rec;
    int p = rec->p, inplace = c->a->sendbuf == MPI_IN_PLACE;
    c->status = shim_describe(c->a, rec, &c->x, rec->row);
    c->facts = (shim_facts){.kind = (int)c->a->kind, .inplace = inplace, .request = c->request,
                            .types = c->status ? 0 : shim_type_facts(&c->x, inplace)};
    uintptr_t key = c->site ? c->site->key : 0;
    c->row_hash = c->status ? 0 : plan_hash_words(PLAN_HASH_START, rec->row, (size_t)p);
    uint64_t mask =
        c->status ? 0 : shim_cache_match(rec, rec->row, c->row_hash, &c->facts, key, &c->x);
    c->run = (shim_run){.slot = -1, .algo = PLAN_ALGO_NATIVE};
    if (mask) {
        int i = __builtin_ctzll(mask);
        plan_algo algo = plan_choice_next(&rec->slot[i].choice);
        if (algo == PLAN_ALGO_NATIVE ||
            shim_run_prepare(c->a, rec, &c->x, rec->slot[i].prog[algo], &c->run) == 0) {
            c->run.slot = i;
            c->run.algo = algo;
        } else {
            mask = 0;
        }
    }
    *ag = (shim_agreement){.slots = mask,
                           .ok = c->status == 0,
                           .timed = rec->prev_slot >= 0,
                           /* node-shim: the node path's metadata or the P x P matrix */
                           .can_gather = mask || shim_miss_buffer(rec, c->request) == 0,
                           .prev_ps = rec->prev_ps,
                           .prepared = c->run.slot};
}

/* A hit on slot si of every rank: the measured time of the previous call, maybe a second round
 * of measurements, and the run of the slot's choice (prepared again and agreed unless every
 * rank prepared this slot: a rank that also matched another slot prepared that one). Returns
 * an MPI error code. */
static int reuse(shim_call *c, const shim_agreement *ag, int si)
{
    shim_comm *rec = c->rec;
    plan_algo algo = plan_choice_next(&rec->slot[si].choice);
    feedback(rec, ag->timed, ag->prev_ps);
    remeasure(rec, &rec->slot[si]);
    plan_choice_start(&rec->slot[si].choice, algo);
    if (ag->prepared != si)
        return shim_run_prepare_agreed(c->a, rec, &c->x, &rec->slot[si], algo, &c->run);
    return MPI_SUCCESS;
}

/* The agreed path, last part: runs the call on slot si (a cache hit, or a new pattern that
 * built `planned` plans), keeps its time for the next agreement and accounts for it. */
static int finish(shim_call *c, int si, int hit, int planned, uint64_t t0)
{
    shim_comm *rec = c->rec;
    shim_run *r = &c->run;
    rec->prev_slot = -1;
    shim_slot *s = &rec->slot[si];
    s->used = rec->calls;
    uint64_t ps;
    int rc = shim_run_execute(c->a, rec, &c->x, r, &ps);
    shim_run_free(r);
    if (rc != MPI_SUCCESS)
        return r->algo == PLAN_ALGO_NATIVE ? rc : shim_raise(c->a, rc);
    /* What the choice compares: a plan's whole call (the agreement, the preparation and the
     * self-copy are part of its price) against MPI's exchange alone (what an unchecked native
     * call costs); a new pattern's first call (gather and planning) is not measured. */
    double t = shim_ticks_seconds(shim_ticks() - t0);
    rec->prev_slot = hit ? si : -1;
    rec->prev_gen = s->gen;
    rec->prev_algo = r->algo;
    rec->prev_ps = r->algo == PLAN_ALGO_NATIVE ? ps : (uint64_t)(t * 1e12);
    rec->last = (int)r->algo;

    uint64_t bytes = 0;
    for (int j = 0; j < rec->p; j++)
        bytes += rec->row[j];
    account(c->site, r->algo, bytes, t, hit, planned, (double)s->model_native_ps * 1e-12,
            native_estimate(s, r->algo, (double)ps * 1e-12));
    const shim_prog *pg = r->algo == PLAN_ALGO_NATIVE ? NULL : s->prog[r->algo];
    shim_log(2,
             "%s on %d ranks: %s (%s), %zu steps, %llu bytes sent and %llu staging bytes on this "
             "rank, %.6f s",
             shim_args_name(c->a), rec->p, plan_algo_name(r->algo), hit ? "cached" : "new pattern",
             pg ? pg->nsteps : 0, (unsigned long long)bytes,
             (unsigned long long)(pg ? pg->staging : 0), t);
    update_quiet(rec, s);
    return MPI_SUCCESS;
}

/* The agreed path (see the file comment). */
static int run_agreed(shim_call *c, uint64_t t0)
{
    shim_comm *rec = c->rec;
    shim_agreement ag;
    prepare_call(c, &ag);
    int rc = shim_agree(&ag, rec->priv);
    if (rc != MPI_SUCCESS) {
        shim_run_free(&c->run);
        return shim_raise(c->a, rc);
    }
    rec->agreed++;
    uint64_t hit = ag.ok ? ag.slots : 0;
    if (hit) {
        int si = __builtin_ctzll(hit);
        if ((rc = reuse(c, &ag, si)) != MPI_SUCCESS) {
            shim_run_free(&c->run);
            return shim_raise(c->a, rc);
        }
        return finish(c, si, 1, 0, t0);
    }
    if (!ag.can_gather) {
        /* a rank cannot hold the P x P matrix: MPI does this call (and reports any error) */
        shim_run_free(&c->run);
        rec->prev_slot = -1;
        shim_log(2, "%s on %d ranks: a rank has no memory for the pattern; native",
                 shim_args_name(c->a), rec->p);
        return run_unchecked(c->a, rec, c->site, 0);
    }
    feedback(rec, ag.timed, ag.prev_ps);
    /* node-shim: node-direct gathers node-level metadata, never the P x P matrix */
    shim_miss_result res =
        shim_node_path(rec, c->request) ? shim_node_miss(c, ag.ok) : shim_miss(c);
    if (res.outcome == SHIM_MISS_RUN)
        return finish(c, res.slot, 0, res.planned, t0);
    shim_run_free(&c->run);
    rec->prev_slot = -1;
    return res.outcome == SHIM_MISS_NATIVE ? run_unchecked(c->a, rec, c->site, 0) : res.rc;
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
        if (request == PLAN_ALGO_NATIVE) {
            rc = run_unchecked(a, rec, site, 0);
        } else if (rec->calls <= rec->quiet_until) {
            rc = run_unchecked(a, rec, site, 1);
        } else {
            shim_call c = {.a = a, .rec = rec, .site = site, .request = request};
            rc = run_agreed(&c, shim_ticks());
        }
    }
    shim_depth--;
    return rc;
}
