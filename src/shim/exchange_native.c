/* The calls hrelay leaves to MPI's algorithm, and the runs of them: an unchecked call (PMPI
 * with sampled accounting, no communication of hrelay's own), a new pattern decided before
 * gathering (MPI's algorithm after the agreement, its times kept and accounted), and after each
 * agreed call the decision whether the next calls run unchecked and for how long. Also the
 * per-site accounting and the small per-call figures (the site's index, the bytes sent) that
 * the agreed path shares. */
#include "shim/clock.h"
#include "shim/describe.h"
#include "shim/exchange.h"
#include "shim/history.h"
#include "shim/log.h"
#include "shim/quiet.h"
#include "shim/settled.h"
#include "shim/state.h"

/* After an agreed call on rec that may have run a plan (or whose pattern may still be planned):
 * whether the next calls may run unchecked (see exchange.c's file comment): after QUIET_AFTER
 * agreed calls in a row that may not, or one that may not and was the previous agreed call again on
 * every rank (again: shim_call.again; the same call twice in a row is as much evidence that the
 * calls stay alike, and on 16 emulated hosts an agreement costs as much as a call of 64 KiB per
 * rank; a recent pattern of the call's site is not enough: a repeated tiny call between drifting
 * calls that may plan would start runs that swallow them). wait (NULL: none): the call ran MPI's
 * algorithm while a candidate waits to be explored; the run then ends when exploring it is expected
 * to be allowed, not later, and does not lengthen the next: by the budget, or, for the same call
 * again, by the saving its estimate promises (plan_wait_calls_until; on 8 emulated hosts x 4 ranks
 * a node-direct estimated a third faster than MPI's algorithm waited for the budget alone through a
 * run of 8 calls, where its estimate paid for exploring after 2), at the last measured time of
 * MPI's algorithm per call; such a run needs no second agreed call before it, since it ends where
 * exploring may go ahead whatever the calls (on 16 emulated hosts a drifting MoE routing of 64 KiB
 * per rank agreed at calls 2, 3 and 4 of a fresh communicator before its first run, 1.05 x MPI's
 * time over 20 calls). Where the counts change, one pattern's estimate says little of the next's:
 * by the budget alone (on 16 emulated hosts, a drifting MoE routing explored plans earlier and more
 * often and took 1.05 - 1.10 x MPI's time where the budget alone gave 1.01). A run lasts at least
 * floor_len calls, which the callers give only for the same call twice in a row (plan_run_floor),
 * or two calls too small to explore and alike (PLAN_RUN_MAX: on one node an agreement costs two
 * calls of 1 KiB per rank); 0 for none. */
uint64_t shim_update_quiet(shim_comm *rec, int may_plan, int again, const plan_wait *wait,
                           uint64_t floor_len)
{
    if (shim_g.cfg.recheck == 0)
        return 0;
    if (may_plan) {
        rec->last_planned = rec->agreed;
        rec->quiet_len = SHIM_QUIET_FIRST;
        return 0;
    }
    if (rec->agreed - rec->last_planned < (again || wait ? 1u : QUIET_AFTER))
        return 0;
    uint64_t cap = (uint64_t)shim_g.cfg.recheck;
    uint64_t len = rec->quiet_len < cap ? rec->quiet_len : cap;
    if (floor_len > len)
        len = floor_len < cap ? floor_len : cap;
    uint32_t budget = (uint32_t)shim_g.cfg.budget;
    uint64_t until = !wait   ? UINT64_MAX
                     : again ? plan_wait_calls_until(&rec->budget, wait, budget)
                             : plan_budget_calls_until(&rec->budget, wait->pred_ps, budget);
    if (until < len) {
        if (until == 0)
            return 0; /* exploring may go ahead at the next call */
        len = until;
    } else {
        rec->quiet_len = 2 * len;
    }
    rec->quiet_until = rec->calls + len;
    rec->prev.slot = -1;
    shim_log(2, "on %d ranks: the next %llu calls run MPI's algorithm unchecked", rec->p,
             (unsigned long long)len);
    return len;
}

/* Adds one agreed call to a site's statistics (site may be NULL: out of memory, not
 * counted). */
void shim_account(shim_site *site, plan_algo algo, int variant, uint64_t bytes, double t, int hit,
                  int planned, double modeled_native, double native)
{
    if (!site)
        return;
    shim_stats *st = &site->st;
    st->calls++;
    st->bytes += bytes;
    st->algo_calls[algo]++;
    if (variant != PLAN_VARIANT_BASE)
        st->variant_calls[algo][variant]++;
    st->plans_computed += (uint64_t)planned;
    st->cache_hits += (uint64_t)hit;
    st->time_s += t;
    st->modeled_native_s += modeled_native;
    st->native_s += native;
}

/* The unchecked path: PMPI with accounting (quiet: the call reused the communicator's
 * decision, counted as a cache hit). Calls are counted exactly; time and bytes are measured
 * on one call in SHIM_SAMPLE of each site and scaled, which keeps the clock and the datatype
 * query off the other calls (a few bytes per pair take 0.4 us natively). */
int shim_run_unchecked(const shim_args *a, shim_comm *rec, shim_site *site, int quiet)
{
    int timed = site && site->st.calls % SHIM_SAMPLE == 0;
    uint64_t t0 = timed ? shim_ticks() : 0;
    int rc = shim_args_pmpi(a);
    if (rc != MPI_SUCCESS || !site)
        return rc;
    shim_stats *st = &site->st;
    if (timed) {
        double t = shim_ticks_seconds(shim_ticks() - t0) * SHIM_SAMPLE;
        st->time_s += t;
        st->native_s += t;
        st->bytes += shim_local_bytes(a, rec->p) * SHIM_SAMPLE;
    }
    shim_count_unchecked(rec, site, quiet);
    return rc;
}

/* This rank's index of the call's site (-1: none). */
long shim_site_index(const shim_call *c)
{
    return c->site ? (long)(c->site - c->rec->sites.site) : -1;
}

/* Bytes this rank sends in the call (its row). */
uint64_t shim_row_bytes(const shim_comm *rec)
{
    uint64_t bytes = 0;
    for (int j = 0; j < rec->p; j++)
        bytes += rec->row[j];
    return bytes;
}

/* The run a call settled on MPI's algorithm is remembered with (shim_settled_note for the same
 * call again, shim_settled_note_site for a new pattern at its site; 0: not remembered): worth,
 * what one agreement is worth at the measured times; where a family waits for the budget, at
 * most `started`, the run that started, and none where a plan (any family but MPI's algorithm)
 * ran an agreed call at the site on its communicator. From agreed decisions, so alike on every
 * rank with the site. */
static uint64_t site_run(const shim_site *site, int waiting, uint64_t worth, uint64_t started)
{
    if (!waiting)
        return worth;
    if (!site)
        return 0;
    for (int a = 1; a < PLAN_ALGO_COUNT; a++)
        if (site->st.algo_calls[a])
            return 0;
    return started < worth ? started : worth;
}

/* A new pattern that runs MPI's algorithm without gathering (forecast fc): the call, its times
 * for the next agreement, accounting. */
int shim_run_before_gather(shim_call *c, const plan_forecast *fc, uint64_t t0)
{
    shim_comm *rec = c->rec;
    /* a call too small to explore that is the previous agreed call again, or follows another
     * such call at its site in its size class (agreed values: as much evidence that the site's
     * calls stay too small where their counts drift; not where they grow by levels, as a
     * breadth-first search's) */
    int tiny_again = fc->tiny &&
                     (c->again || (rec->prev.tiny && c->hist >= 0 && rec->prev.hist == c->hist &&
                                   rec->prev.cls == fc->cls));
    /* a call too small to explore right after one that waited for the exploration budget
     * starts no run: its run would swallow the waiting candidate's next call, which the
     * waiting call's own run ends at (a sample sort's MPI_Alltoall of counts before each
     * MPI_Alltoallv of data: on 8 emulated hosts x 2 ranks the counts' runs kept the data site
     * from exploring for 12 of 30 iterations, before such an MPI_Alltoall stopped agreeing
     * after its first call; counts sent by MPI_Alltoallv still agree); the next such call
     * starts runs again */
    int hold = fc->tiny && rec->prev.waited;
    shim_run_free(&c->run);
    c->run = (shim_run){.slot = -1, .algo = PLAN_ALGO_NATIVE};
    uint64_t ps;
    int rc = shim_run_execute(c->a, rec, &c->x, &c->run, &ps);
    if (rc != MPI_SUCCESS)
        return rc; /* MPI's own error, through the communicator's handler */
    double t = shim_ticks_seconds(shim_ticks() - t0);
    rec->prev = (shim_prev){.timed = 1,
                            .exec_ps = ps,
                            .whole_ps = (uint64_t)(t * 1e12),
                            .slot = -1,
                            .algo = PLAN_ALGO_NATIVE,
                            .variant = fc->native_variant, /* the key of fc's native model */
                            .hist = c->hist,
                            .site = shim_site_index(c),
                            .cls = fc->cls,
                            .tiny = fc->tiny,
                            .waited = fc->waiting,
                            .model_ps = fc->native_model,
                            .over_key = PLAN_LEARN_HIT,
                            .over_model_ps = shim_agree_model(rec->p),
                            .explored = fc->exploring,
                            .beside = fc->beside,
                            .best_ps = fc->best_ps};
    rec->last = PLAN_ALGO_NATIVE;
    rec->last_variant = PLAN_VARIANT_BASE;
    uint64_t bytes = shim_row_bytes(rec);
    shim_account(c->site, PLAN_ALGO_NATIVE, PLAN_VARIANT_BASE, bytes, t, 0, 0,
                 (double)fc->native_model * 1e-12, (double)ps * 1e-12);
    if (c->site) {
        c->site->st.before_gather++;
        c->site->st.explore_calls += (uint64_t)fc->exploring;
    }
    shim_log(2,
             "%s on %d ranks: native (decided before gathering), %llu bytes sent on this "
             "rank, %.6f s",
             shim_args_name(c->a), rec->p, (unsigned long long)bytes, t);
    /* a call too small to explore runs MPI's algorithm whatever is measured: after tiny_again
     * its run is as long as measured times can make one, at once (the third agreement of 51
     * calls of 1 KiB per rank on one node cost 3 - 4 % of their time); another call's run
     * after the same call twice is sized by the times so far, the first call's included (on
     * 16 emulated hosts an agreement costs half a call of 64 KiB per rank: 31 such calls
     * agreed 4 times with runs of 8 and 16) */
    const plan_learn_view *v = &fc->learned;
    int measured = v->samples[PLAN_LEARN_HIT] >= FLOOR_SAMPLES &&
                   v->samples[plan_learn_key(PLAN_ALGO_NATIVE, fc->native_variant)] >=
                       FLOOR_SAMPLES;
    uint64_t worth = measured
                         ? plan_run_floor(plan_learn_apply(shim_agree_model(rec->p), fc->ratio_hit),
                                          fc->native_ps)
                         : 0;
    uint64_t floor_len = tiny_again ? PLAN_RUN_MAX : c->again ? worth : 0;
    /* nothing crosses a NIC: settled whatever the pattern and MPI's times, so the run starts
     * after this agreement as after the same call twice (on 8 emulated hosts x 4 ranks an
     * FFT's Y -> Z transpose, all within nodes, paid 20 - 35 ms for its second agreement
     * against MPI's 42 ms per call); so it does after a call too small to explore that follows
     * another at its site (tiny_again: as much evidence as the same call twice; a sample sort
     * of 8 KiB per rank with new splitters on every call, too short to explore on one node,
     * agreed a third call before its run) */
    int held = c->again || tiny_again || (fc->on_node && fc->settled);
    uint64_t started = hold ? 0
                            : shim_update_quiet(rec, !fc->settled, held,
                                                fc->waiting ? &fc->wait : NULL, floor_len);
    /* settled on MPI's algorithm, its run sized by measured times (or too small to explore),
     * crossing NICs: a fresh communicator of this size finds it at its second call
     * (settled.h), the same call again by its pattern, a new pattern whose run started by its
     * site, with site_run's run; not a call decided by the memory of plans that lost (lost.h),
     * whose span bounds how long it stands. Where a family waits for the budget too (on 16
     * emulated hosts a drifting MoE routing of 64 KiB per rank, where plans never ran, paid two
     * allreduces at each fresh communicator's second call and one at its third before that run;
     * fresh communicators of an FFT transpose of 64 KiB per rank, where `direct` waits, two at
     * the second call, 2 - 5 ms against calls of 3 ms), but not after a plan ran at the site (a
     * drifting sample sort of 1 MiB per rank, where plans win, ran them on 12 % of its calls
     * instead of 36 % where a communicator that waited after its plans ran was remembered). */
    int remember = started && fc->settled && !fc->on_node && !fc->exploring && !c->lost;
    uint64_t call_run = fc->waiting ? site_run(c->site, 1, worth, started) : floor_len;
    if (remember && c->again && call_run)
        shim_settled_note(shim_g.world, rec, c->site, c->pattern, call_run);
    else if (remember && !c->again)
        shim_settled_note_site(shim_g.world, rec, c->site, fc->cls,
                               site_run(c->site, fc->waiting, worth, started), fc->waiting);
    if (fc->bound < SHIM_EXPLORE_MIN_BYTES && shim_alltoall_kind(c->a))
        rec->tiny_alltoall = 1 + shim_tiny_pair_bytes(rec->p); /* every rank called
                                                                  MPI_Alltoall(_c) */
    return MPI_SUCCESS;
}
