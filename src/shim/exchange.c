/* One intercepted call, start to end.
 *
 *   Pass-through (not initialised, disabled, intercommunicator, MPI_COMM_NULL, nested call).
 *   Unchecked native: HRELAY_ALGO=native, or the communicator is in a run of calls that the
 *     last agreements decided to leave to MPI (every recent pattern runs native, or the last
 *     one, where no byte of it left its node): PMPI with
 *     accounting, no communication of hrelay's own. Such a run lasts 8 calls at first (after
 *     the same call twice, long enough for the agreement to cost a 128th of it, and 64 calls
 *     for a call too small to explore after the same call or one alike) and doubles up to
 *     HRELAY_RECHECK, so tiny repeated exchanges pay almost nothing. An MPI_Alltoall too small
 *     to explore by its bytes (the same on every rank) runs so at once, without a run, once one
 *     was agreed on the communicator (tiny_alltoall); so does a communicator's first call where
 *     its record's creation agreed that no rank moves enough bytes to explore (first_call).
 *     The call after such a first call, and the first call after a run that a call too small
 *     to explore started, is decided by one allreduce of five words instead of the agreement
 *     where that finds every rank's call too small to explore and the last agreed call again,
 *     or alike at its site, with no truncation (tiny_again): it runs MPI's algorithm and
 *     starts the run the agreement would start (64 calls, then doubling). A communicator's
 *     second call that is its first again at the same site, where this process remembers an
 *     earlier communicator of its size settling that call on MPI's algorithm (settled.h), is
 *     decided so by its record's creation alone and starts the run remembered. A communicator
 *     of a group met before (a duplicate of MPI_COMM_WORLD, a repeated split's half) starts
 *     with the run the last first agreement on one of that group started, where its lineage
 *     has it (lineage.h): its first calls run MPI's algorithm unchecked through that run, and
 *     the call after is agreed as a second call.
 *   Agreed: every rank validates its arguments (describe.c, validate.c: MPICH's checks, in its
 *     order), matches its part of the pattern against the cache, prepares the cached plan's
 *     run (run.c; before agreeing, so that nothing can fail on one rank after the others
 *     committed), summarises its part of the pattern (plan/summary.h), and one small allreduce
 *     (agree.c) tells every rank whether all arguments are fine, which cached pattern all ranks
 *     match and whether the pattern is the site's last one, and carries the slowest rank's
 *     times of the previous agreed call and the combined summary. The previous call's times
 *     teach the histories (history.c) and the measured choice of its slot.
 *     Hit: run what the slot's choice says (plan_choice_current), or the best estimate while
 *       exploring does not fit the budget.
 *     Miss: auto forecasts the call from the summary and what was learned (plan/forecast.h):
 *       where no plan can win by enough, or every rank remembers the call's plans losing to
 *       MPI's algorithm on an earlier communicator (lost.h: an AND bit of the agreement), MPI's
 *       algorithm runs at once, without gathering ("decided before gathering"); else (and for
 *       a named family, or an argument error anywhere) miss.c gathers the pattern, raises an
 *       argument error on every rank, agrees on truncation (then every rank runs the MPI
 *       library's own exchange, which reports MPI_ERR_TRUNCATE on the truncated ranks as
 *       without hrelay), on the new pattern's candidates and on the run every rank prepared,
 *       and fills a slot.
 *   Then the self-copy and the plan (or PMPI), the times for the next agreement, accounting to
 *     the call site, and the decision whether the following calls may run unchecked.
 *
 * This file takes a call to its path: the communicator's record, its first call, and the
 * unchecked calls decided without agreement. The agreed path is exchange_agreed.c; the calls
 * that run MPI's algorithm and the runs of unchecked calls, exchange_native.c; what measured
 * calls teach, exchange_feedback.c (shared through exchange.h). */
#include <string.h>

#include "plan/hash.h"
#include "shim/agree.h"
#include "shim/call.h"
#include "shim/clock.h"
#include "shim/describe.h"
#include "shim/exchange.h"
#include "shim/history.h"
#include "shim/lineage.h"
#include "shim/log.h"
#include "shim/lost.h"
#include "shim/quiet.h"
#include "shim/settled.h"
#include "shim/state.h"
#include "shim/validate.h"

SHIM_TLS shim_thread shim_this_thread;

/* Whether call a on rec runs MPI's algorithm unchecked without agreement as a tiny
 * MPI_Alltoall (shim_tiny_alltoall). An erroneous call (counts or types that differ between
 * ranks) gets MPI's own behaviour, as any unchecked call; the communicator's first such call is
 * agreed, so its errors are hrelay's. */
static int tiny_alltoall(const shim_args *a, const shim_comm *rec, int request)
{
    if (!rec->tiny_alltoall || !shim_alltoall_kind(a))
        return 0;
    int inplace = a->sendbuf == MPI_IN_PLACE;
    MPI_Datatype type = inplace ? a->rtype : a->stype;
    MPI_Count size = 0;
    const exec_type *memo = &rec->type_memo[inplace];
    if (memo->size > 0 && memo->type == type)
        size = memo->size;
    else if (shim_check_type(type, shim_g.self) != MPI_SUCCESS ||
             PMPI_Type_size_c(type, &size) != MPI_SUCCESS)
        return 0;
    return shim_tiny_alltoall(rec, request, inplace ? a->rcount : a->scount, size);
}

/* A communicator's first call under auto, where its record's creation agreed that no byte of
 * it leaves its node (rec->first_on_node; nothing crosses a NIC, which every agreement of it
 * would decide whatever MPI's algorithm measures, plan/forecast.c): it starts a run of
 * unchecked calls, as the agreed call that starts the communicator's first run (on 8 emulated
 * hosts x 4 ranks an FFT's Y -> Z transpose, all within nodes, paid 20 - 35 ms per agreement
 * of a fresh communicator against MPI's 42 ms per call). A function of agreed values only. */
static void first_on_node(shim_comm *rec)
{
    uint64_t cap = (uint64_t)shim_g.cfg.recheck;
    uint64_t len = rec->quiet_len < cap ? rec->quiet_len : cap;
    rec->quiet_len = 2 * len;
    rec->quiet_until = rec->calls + len;
    shim_log(2,
             "on %d ranks: no byte of the first agreed call (call %llu) leaves its node: it and "
             "the next %llu calls run MPI's algorithm unchecked",
             rec->p, (unsigned long long)rec->calls + 1, (unsigned long long)len - 1);
}

/* This rank's part of call a's pattern (shim_pattern_hash of its row, in rec->row; *x the
 * described call), 0 where its arguments cannot be described. */
static uint64_t local_pattern(shim_comm *rec, const shim_args *a, exec_exchange *x)
{
    int inplace = a->sendbuf == MPI_IN_PLACE;
    if (shim_describe(a, rec, x, rec->row) != MPI_SUCCESS)
        return 0;
    shim_facts f = {.kind = (int)a->kind, .inplace = inplace, .types = shim_type_facts(x, inplace)};
    return shim_pattern_hash(plan_hash_words(PLAN_HASH_START, rec->row, (size_t)rec->p), &f);
}

/* Makes a communicator's first call, too small to explore by its agreed bound
 * (rec->first_load), stand for the agreed call the next one is compared with (rec->prev: too
 * small, its size class, its site; pattern, this rank's part of it, remembered at its site and
 * as the last one; counted in rec->agreed). */
static void first_tiny(shim_comm *rec, shim_site *site, uint64_t pattern)
{
    rec->agreed++;
    rec->prev = (shim_prev){.slot = -1,
                            .algo = PLAN_ALGO_NATIVE,
                            .hist = 0,
                            .site = site ? site - rec->sites.site : -1,
                            .cls = plan_learn_class(rec->first_load),
                            .tiny = 1};
    rec->last_pattern = pattern;
    if (site && pattern)
        shim_remember(site, pattern);
}

/* A communicator's first call a at site under auto, where its record's creation agreed that
 * no rank moves SHIM_EXPLORE_MIN_BYTES (rec->first_load: too small to explore, which every
 * agreement of it would decide): it runs MPI's algorithm unchecked, and stands for the agreed
 * call the next one is compared with (rec->prev: too small, its size class, the first site;
 * its pattern remembered at its site and as the last one; counted in rec->agreed), so that a
 * second call alike at the same site starts the long run at once, and a second call of its
 * pattern at the site is no new pattern. One agreement of the first 51 calls of a tiny exchange
 * on a fresh communicator instead of two. A function of agreed values (the creation's) only,
 * so on every rank alike; the site is the record's first on every rank that could note it (an
 * out-of-memory rank's differs: what follows is a longer or shorter run, never a different
 * call on one rank). */
static void first_call(shim_comm *rec, const shim_args *a, shim_site *site)
{
    int request = shim_comm_request(rec);
    if (request != SHIM_AUTO || shim_g.cfg.recheck == 0)
        return;
    if (rec->first_load >= SHIM_EXPLORE_MIN_BYTES) {
        if (rec->first_on_node)
            first_on_node(rec);
        return;
    }
    rec->quiet_until = rec->calls + 1;
    exec_exchange x;
    first_tiny(rec, site, local_pattern(rec, a, &x));
    shim_log(2,
             "on %d ranks: the first agreed call (call %llu) moves at most %llu bytes per rank, "
             "too few to explore: MPI's algorithm unchecked",
             rec->p, (unsigned long long)rec->calls + 1, (unsigned long long)rec->first_load);
}

/* Whether call a on rec is the first after a run of unchecked calls that a call too small to
 * explore started (rec->prev.tiny: the last agreed call, or first_call, ran MPI's algorithm
 * before gathering, too small to explore; first_call's run is that call alone), under auto
 * with learning and re-checks, where the agreement would decide MPI's algorithm again for a
 * call alike (too few bytes: nothing but MPI's algorithm runs, whatever is measured). A
 * function of agreed values only. */
static int after_tiny_run(const shim_comm *rec, int request)
{
    return request == SHIM_AUTO && shim_g.cfg.tune > 0 && shim_g.cfg.recheck > 0 &&
           rec->prev.tiny && !rec->prev.waited && rec->calls == rec->quiet_until + 1;
}

/* The picoseconds since tick t0 (shim_ticks). */
static uint64_t ps_since(uint64_t t0)
{
    return (uint64_t)(shim_ticks_seconds(shim_ticks() - t0) * 1e12);
}

/* Runs call a, decided by agreed words without the agreement to run MPI's algorithm (what:
 * why, for the log): counted as decided before gathering, its time teaching nothing unless the
 * caller makes it (returned: this rank's picoseconds of MPI's call, 0 where it failed); it
 * stands for the agreed call the next check compares with (its pattern, this rank's part) and
 * starts the run an agreement would start for the agreed call again (again) or not, at least
 * floor_len calls (shim_update_quiet). *rc: MPI's result. */
static uint64_t run_decided(shim_comm *rec, const shim_args *a, shim_site *site,
                            uint64_t pattern, int again, const char *what, uint64_t floor_len,
                            int *rc)
{
    rec->agreed++;
    rec->last_pattern = pattern;
    uint64_t t0 = shim_ticks();
    if ((*rc = shim_args_pmpi(a)) != MPI_SUCCESS)
        return 0; /* MPI's own error, through the communicator's handler */
    uint64_t ps = ps_since(t0);
    double t = (double)ps * 1e-12;
    shim_account(site, PLAN_ALGO_NATIVE, PLAN_VARIANT_BASE, shim_row_bytes(rec), t, 0, 0, t, t);
    if (site) {
        site->st.before_gather++;
        site->unchecked_mark = site->st.unchecked;
        shim_remember(site, pattern);
    }
    rec->last = PLAN_ALGO_NATIVE;
    rec->last_variant = PLAN_VARIANT_BASE;
    shim_log(2,
             "%s on %d ranks: %s: native (decided before gathering, without the agreement), "
             "%.6f s",
             shim_args_name(a), rec->p, what, t);
    shim_update_quiet(rec, 0, again, NULL, floor_len);
    return ps;
}

/* Runs call a, the last agreed call again (again) or a call alike at its site, too small to
 * explore on every rank and decided so by agreed words (tiny_again, deferred_second): as
 * run_decided, with the longest run (PLAN_RUN_MAX). *rc: MPI's result. */
static void run_tiny_again(shim_comm *rec, const shim_args *a, shim_site *site, uint64_t pattern,
                           int again, int *rc)
{
    run_decided(rec, a, site, pattern, again,
                again ? "the last agreed call again, too small to explore"
                      : "a call alike at the last agreed call's site, too small to explore",
                PLAN_RUN_MAX, rc);
    if (*rc == MPI_SUCCESS && shim_alltoall_kind(a)) /* every rank called MPI_Alltoall(_c),
                                                        too small to explore */
        rec->tiny_alltoall = 1 + shim_tiny_pair_bytes(rec->p);
}

/* The call after a tiny run (after_tiny_run) where every rank's call is too small to explore
 * and is either the last agreed call again on every rank or, on every rank, a call at that
 * call's site in its size class: the cases where the agreement would run MPI's algorithm
 * before gathering and start the next, longer run of unchecked calls (shim_run_before_gather's
 * tiny_again). One allreduce of five words says so instead of the agreement, and the call runs
 * MPI's algorithm and starts that run; it counts as decided before gathering, its time
 * teaching nothing (as the first call's), and stands for the agreed call the next check
 * compares with (its pattern; the site and class stay the tiny call's, which are its own).
 * Returns 1 where it ran the call (*rc: MPI's result, or the allreduce's error raised), 0
 * where some rank's call is none of these (then every rank agrees on it in full). On 2 ranks
 * of one node at 1 KiB per rank a fresh communicator's second call's excess over MPI's call
 * fell from 1.4 to 1.1 us, and to 0.8 with the words as one element of hrelay's reduction
 * (shim_agree_few), about what the allreduce itself costs; a re-check after a run 1.0 - 1.1 us
 * where its agreement cost 2.2 - 2.4. */
static int tiny_again(shim_comm *rec, const shim_args *a, shim_site *site, int *rc)
{
    exec_exchange x;
    uint64_t pattern = local_pattern(rec, a, &x);
    uint64_t load = shim_args_load(a, rec->p, rec->rank, shim_g.cfg.duplex == PLAN_DUPLEX_HALF,
                                   NULL, NULL);
    int cls = plan_learn_class(load);
    uint64_t balance = 1; /* an erroneous call is agreed in full, its error raised there */
    if (pattern) {
        shim_describe_col(&x, rec->col);
        balance = plan_summary_balance(rec->p, rec->rank, rec->row, rec->col);
    }
    /* SUM over ranks: [ranks whose pattern differs from the last agreed call's, ranks too big
     * to be alike (to explore, or above the tiny call's size class), ranks in its class, ranks
     * at another site than the tiny call's, the balance (zero: no truncation anywhere)] */
    uint64_t w[5] = {!pattern || pattern != rec->last_pattern,
                     load >= SHIM_EXPLORE_MIN_BYTES || cls > rec->prev.cls, cls == rec->prev.cls,
                     !site || site - rec->sites.site != rec->prev.site, balance};
    *rc = shim_agree_few(w, 5, 0, 5, rec->comm);
    if (*rc != MPI_SUCCESS) {
        *rc = shim_raise(a, *rc);
        return 1;
    }
    int again = w[0] == 0;
    if (w[1] || w[4] || (!again && (w[3] || !w[2])))
        return 0;
    run_tiny_again(rec, a, site, pattern, again, rc);
    return 1;
}

/* A communicator's first call where its record's creation waits for the next call
 * (shim_comm_defers), or one of the rec->defer calls after it that its group's lineage lets
 * run first (lineage.h): it runs MPI's algorithm unchecked, without any communication of
 * hrelay's (all but the first and the last may take shim_quiet_begin's path: rec->quiet_until),
 * and the last of them leaves in the record what the next call's agreement compares with (this
 * rank's bound, pattern, site and time of it; shim_comm_settle agrees them); that
 * agreement then takes it for the communicator's first call. A wrong call gets MPI's own
 * behaviour, as any unchecked call. */
static int deferred_first(shim_comm *rec, const shim_args *a, shim_site *site)
{
    if (rec->calls == 0 && rec->defer > 0)
        shim_log(2,
                 "%s on %d ranks: of its group's lineage: the first %llu calls run MPI's algorithm "
                 "unchecked, the run an earlier communicator's first agreement started",
                 shim_args_name(a), rec->p, (unsigned long long)rec->defer + 1);
    if (rec->calls++ < rec->defer)
        return shim_run_unchecked(a, rec, site, 1);
    exec_exchange x;
    uint64_t load;
    shim_comm_flags(rec, a, &load);
    rec->first_load = load;
    rec->last_pattern = local_pattern(rec, a, &x);
    rec->prev.site = site ? site - rec->sites.site : -1;
    uint64_t t0 = shim_ticks();
    int rc = shim_run_unchecked(a, rec, site, 1);
    rec->prev.exec_ps = ps_since(t0);
    return rc;
}

/* The bits of the second call's agreement above the creation's flags, combined by AND: this
 * rank's call is its part of the first call again, is at the first call's site, is a call this
 * process remembers settled (settled.h), is at a site whose drifting calls it remembers
 * settled, this rank found the communicator's lineage, is a call whose plans this process
 * remembers lost with checks left to decide (lost.h), and remembers those drifting calls
 * settled where no family waited for the exploration budget. */
enum {
    SECOND_AGAIN = 8,
    SECOND_SITE = 16,
    SECOND_SETTLED = 32,
    SECOND_DRIFT = 64,
    SECOND_LINEAGE = 128,
    SECOND_LOST = 256,
    SECOND_DRIFT_DONE = 512
};

/* Makes a call of MPI's algorithm on rec at site index `site` (exec_ps: this rank's time of it;
 * creation_ps: of the creation's allreduce before it) stand for an agreed call whose time the
 * next agreement learns from (rec->prev timed, its class and model filled in by that
 * agreement's summary where the call is the same again, or, alike_cls >= 0, where it is of that
 * size class at an agreed site: shim_history_first). */
static void teach_native(shim_comm *rec, uint64_t exec_ps, uint64_t creation_ps, long site,
                         int alike_cls)
{
    rec->prev = (shim_prev){.timed = 1,
                            .exec_ps = exec_ps,
                            .whole_ps = exec_ps + creation_ps,
                            .slot = -1,
                            .algo = PLAN_ALGO_NATIVE,
                            .hist = -1,
                            .site = site,
                            .cls = -1,
                            .over_key = PLAN_LEARN_HIT,
                            .over_model_ps = shim_agree_model(rec->p),
                            .first = 1,
                            .alike_cls = alike_cls};
    rec->last_agreed = rec->calls; /* its time is charged as an agreed call's */
}

/* The second call on rec, whose first deferred its record's creation, where it is not run as
 * a tiny call again (deferred_second; flags: the agreed flags, consistent: no receiver expects
 * other bytes than are sent): the first call, MPI's algorithm unchecked, stands for the agreed
 * call the second's agreement learns from, timed (this rank's time of MPI's exchange, the
 * slowest rank's once agreed; and with it creation_ps, this rank's time of the creation's
 * allreduce, which teaches what hrelay's checks cost: one element of the agreement's
 * reduction), where the second is its part of the first again and at its site on every rank,
 * under auto with learning, and no run of unchecked calls starts first (first_on_node): its
 * size class and model are then the second call's agreed summary's (shim_history_first), so
 * the second call finds MPI's algorithm measured once at the size and the same call twice,
 * and what an agreement costs, as an agreed first call left it: where MPI's algorithm settles
 * it, the run that starts is sized by both (an incast of 1 KiB per rank on 16 emulated hosts
 * paid three allreduces in 20 calls, two at the second and one at the third; with the first
 * call's time alone, the third moved to the eleventh; with both, two).
 * Else the second call stands as the communicator's first agreed call, with nothing before
 * it. A function of agreed values only. */
static void teach_first(shim_comm *rec, int request, uint64_t flags, int consistent,
                        uint64_t creation_ps)
{
    uint64_t both = SECOND_AGAIN | SECOND_SITE;
    if (request != SHIM_AUTO || shim_g.cfg.tune == 0 || (flags & both) != both || !consistent ||
        rec->first_on_node) {
        rec->prev.site = -1;
        rec->last_pattern = 0;
        return;
    }
    teach_native(rec, rec->prev.exec_ps, creation_ps, rec->prev.site, -1);
}

/* Whether the second call on a communicator, after its record's creation agreed the words w
 * (deferred_second's), may run MPI's algorithm as an earlier communicator of its size settled
 * it: under auto with learning and re-checks, no truncation, and no run started at once (no
 * SHIM_ON_NODE, which is first_on_node). A function of agreed values only. */
static int second_may_settle(int request, const uint64_t *w)
{
    return request == SHIM_AUTO && shim_g.cfg.tune > 0 && shim_g.cfg.recheck > 0 &&
           !(w[0] & SHIM_ON_NODE) && w[1] == 0;
}

/* The run the second call starts as a call an earlier communicator settled (second_may_settle,
 * the words w): where every rank's call is its part of the first call again at the first
 * call's site and a call the process remembers settled, the longest run remembered (w[4]);
 * where every rank's call is at the first call's site, some rank's part differs from its part
 * of the first call (the calls drift: a fixed pattern at a site that also drifts is never
 * taken for drifting), and the site's drifting calls of this call's size class (by its agreed
 * bound, w[2]) every rank remembers settled, the longest run
 * remembered (w[6]'s low half; w[5] the highest class remembered, w[6]'s high half 255 less
 * the lowest); else 0. *drift: the second case. A function of agreed values only. */
static uint64_t settled_run(const uint64_t *w, int *drift)
{
    uint64_t call = SECOND_AGAIN | SECOND_SITE | SECOND_SETTLED, site = SECOND_SITE | SECOND_DRIFT;
    *drift = 0;
    if ((w[0] & call) == call && w[4] > 0)
        return w[4];
    uint64_t cls = (uint64_t)plan_learn_class(w[2]);
    if ((w[0] & site) != site || (w[0] & SECOND_AGAIN) || w[5] != cls || 255 - (w[6] >> 32) != cls)
        return 0;
    *drift = 1;
    return w[6] & UINT32_MAX;
}

/* The second call a on a communicator whose first call deferred its record's creation (rec,
 * pending; NULL on a rank that could not make it, shim_comm_unmade): one allreduce of seven
 * words agrees the creation (shim_comm_flags: SHIM_MADE and the others, the call's bound),
 * what the five words of tiny_again check after a tiny first call (the first call's bound,
 * whether each rank's call is its part of the first call again or at its site, the balance)
 * and what the process remembers settled (settled.h): the run of this call, or the class and
 * run of its site's drifting calls.
 * Where the first call was too small to explore and this one is that call again or alike at
 * its site, it runs MPI's algorithm and starts the run an agreement would start: a tiny
 * exchange's first 66 calls pay one allreduce (before: the creation's at the first call and
 * tiny_again's at the second). Else the record is settled with this call's bound (unknown where
 * some receiver expects other bytes than are sent: that call is agreed, as at tiny_again) and
 * the call is decided as a first call (first_call, then the usual path), after the first call
 * where teach_first says so; but where an earlier communicator of its size settled it on MPI's
 * algorithm before gathering (settled_run: every rank's call its part of the first again at
 * its site and remembered, or a drifting call at the first call's site whose drifting calls of
 * its class every rank remembers), it runs MPI's algorithm and starts the run remembered (a
 * benchmark's fresh communicators of an incast of 1 KiB per rank on 16 emulated hosts with 5
 * ms switch buffers paid two allreduces at the second call, 1.4 - 2.7 ms against calls of 0.6
 * - 1.5; of a sample sort of 8 KiB per rank with new splitters on every call on one node, two
 * allreduces at the second call and one at each of the next two, 14 % of 20 calls); so it does,
 * with a run of the usual first length, where every rank's call is its part of the first call
 * again at its site and a call whose plans the process remembers lost (lost.h; one of the
 * checks that memory decides: the second call of a fresh communicator of an MPI_Alltoall of
 * 1 MiB per rank on one node took 7 - 25 us more than MPI's call with the agreement after the
 * creation's allreduce). Returns 1
 * where it ran the call (*rc), 0 where the caller goes on with *rec (NULL: the record could not
 * be made on some rank; the call runs MPI's algorithm). *settled: the call ran MPI's algorithm
 * as too small to explore, or as the same call an earlier communicator settled (the runs the
 * lineage keeps: shim_lineage_note). A function of agreed values only. */
static int deferred_second(shim_comm **recp, const shim_args *a, shim_site *site, int *rc,
                           int *settled)
{
    shim_comm *rec = *recp;
    uint64_t pattern = 0, balance = 1, load, run = 0, site_run = 0;
    int site_cls = 0;
    uint64_t flags = shim_comm_flags(rec, a, &load);
    if (rec) {
        exec_exchange x;
        pattern = local_pattern(rec, a, &x);
        if (pattern) {
            shim_describe_col(&x, rec->col);
            balance = plan_summary_balance(rec->p, rec->rank, rec->row, rec->col);
        }
        if (pattern && pattern == rec->last_pattern)
            flags |= SECOND_AGAIN;
        if (site && site - rec->sites.site == rec->prev.site)
            flags |= SECOND_SITE;
        if (flags & SECOND_AGAIN && flags & SECOND_SITE)
            run = shim_settled_find(shim_g.world, rec, site, pattern);
        if (run)
            flags |= SECOND_SETTLED;
        if (flags & SECOND_AGAIN && flags & SECOND_SITE &&
            shim_lost_find(shim_g.world, rec, site, pattern))
            flags |= SECOND_LOST;
        int site_waited = 0;
        if (flags & SECOND_SITE)
            site_run = shim_settled_find_site(shim_g.world, rec, site, &site_cls, &site_waited);
        if (site_run)
            flags |= SECOND_DRIFT | (site_waited ? 0 : SECOND_DRIFT_DONE);
        if (rec->lineage)
            flags |= SECOND_LINEAGE;
    }
    /* over ranks: AND of the flags, SUM of the balance (zero: no truncation anywhere), MAX of
     * this call's bound, of the first call's, of the run remembered, of the class of the
     * site's drifting calls remembered and of 255 less it with their run below */
    site_run = site_run < UINT32_MAX ? site_run : UINT32_MAX;
    uint64_t w[7] = {flags,
                     balance,
                     load,
                     rec ? rec->first_load : 0,
                     run,
                     (uint64_t)site_cls,
                     (uint64_t)(255 - site_cls) << 32 | site_run};
    uint64_t t0 = shim_ticks();
    if ((*rc = shim_agree_few(w, 7, 1, 1, a->comm)) != MPI_SUCCESS)
        w[0] = 0;
    uint64_t creation_ps = ps_since(t0);
    int request = rec ? shim_comm_request(rec) : SHIM_AUTO;
    int cls1 = plan_learn_class(w[3]), cls2 = plan_learn_class(w[2]);
    int tiny = request == SHIM_AUTO && w[3] < SHIM_EXPLORE_MIN_BYTES &&
               w[2] < SHIM_EXPLORE_MIN_BYTES && w[1] == 0 &&
               ((w[0] & SECOND_AGAIN) || ((w[0] & SECOND_SITE) && cls2 == cls1)) && cls2 <= cls1;
    if (w[1]) /* some receiver expects other bytes than are sent: agreed in full, as at a
                 re-check */
        w[0] &= ~(uint64_t)SHIM_ON_NODE;
    long site1 = rec ? rec->prev.site : -1;
    uint64_t pattern1 = rec ? rec->last_pattern : 0;
    *recp = rec = shim_comm_settle(a->comm, rec, w[0], tiny ? w[3] : w[1] ? UINT64_MAX : w[2]);
    if (*rc != MPI_SUCCESS) {
        *rc = shim_raise(a, *rc);
        return 1;
    }
    if (!rec)
        return 0;
    int drift = 0;
    /* a communicator that started with an inherited run (rec->defer, equal on every rank) ran
     * that run already: a remembered one after it would only delay what the agreement finds */
    uint64_t run_settled = !tiny && rec->defer == 0 && second_may_settle(request, w)
                               ? settled_run(w, &drift)
                               : 0;
    /* the lineage keeps it only where every rank found the lineage: a rank that could not
     * would agree the next communicator's second call while the others ran it unchecked */
    *settled = (tiny || (run_settled && !drift)) && (w[0] & SECOND_LINEAGE);
    uint64_t lost_bits = SECOND_AGAIN | SECOND_SITE | SECOND_LOST;
    int lost = !run_settled && !tiny && rec->defer == 0 && second_may_settle(request, w) &&
               (w[0] & lost_bits) == lost_bits;
    if (lost) /* it decided this check, as an agreement that finds it (exchange_agreed.c) */
        shim_lost_use(shim_g.world, rec, site, pattern);
    if (run_settled || lost) {
        rec->calls++;
        rec->last_agreed = rec->calls;
        uint64_t ps = run_decided(
            rec, a, site, pattern, 1,
            lost    ? "the first call again, whose plans lost to MPI's algorithm on an earlier "
                      "communicator of its size"
            : drift ? "a call at the first call's site, whose drifting calls of its size settled "
                      "on MPI's algorithm on an earlier communicator of its size"
                    : "the first call again, settled on MPI's algorithm on an earlier "
                      "communicator of its size",
            run_settled, rc);
        /* its time teaches the check after the run (second_may_settle implies learning):
         * else that check finds MPI's algorithm not measured at the size and the next one
         * decides the run (16 emulated hosts, a sample sort's drifting 64 KiB per rank:
         * three allreduces in 20 calls instead of two) */
        if (*rc != MPI_SUCCESS) {
            rec->prev = shim_prev_none(site1);
            return 1;
        }
        teach_native(rec, ps, creation_ps, site1, drift ? plan_learn_class(w[2]) : -1);
        /* where a family waited for the budget then, it was never measured: explored as usual */
        rec->prev.alike_done = drift && (w[0] & SECOND_DRIFT_DONE);
        return 1;
    }
    if (!tiny) {
        teach_first(rec, request, w[0], w[1] == 0, creation_ps);
        return 0;
    }
    /* the first call, as first_call leaves it, then this one as tiny_again runs it */
    first_tiny(rec, site1 >= 0 ? &rec->sites.site[site1] : NULL, pattern1);
    rec->quiet_until = rec->calls++;
    run_tiny_again(rec, a, site, pattern, (w[0] & SECOND_AGAIN) != 0, rc);
    return 1;
}

/* The record of call a's communicator (an intracommunicator), created at its first call
 * (collective; *created set), or NULL for an intercommunicator or when it cannot be created. A
 * communicator with a record is an intracommunicator, so the common case is one attribute
 * lookup, and none for the thread's last few communicators (shim_thread). */
static shim_comm *record_of(const shim_args *a, int *created)
{
    MPI_Comm comm = a->comm;
    shim_thread *t = &shim_this_thread;
    shim_comm *rec = shim_thread_find(t, comm);
    if (rec)
        return rec;
    if (!(rec = shim_comm_find(comm))) {
        int inter = 0;
        if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
            return NULL;
        if (shim_comm_unmade(comm)) {
            *created = -1;
            return NULL;
        }
        if (shim_comm_defers(comm))
            rec = shim_comm_open(comm);
        else if ((rec = shim_comm_create(comm, a)))
            *created = 1;
        if (!rec)
            return NULL;
    }
    unsigned epoch = shim_comm_epoch();
    if (epoch != t->epoch) { /* a record was deleted: forget every entry */
        memset(t->rec, 0, sizeof t->rec);
        t->epoch = epoch;
        t->next = t->last = 0;
    }
    t->comm[t->next] = comm;
    t->rec[t->next] = rec;
    t->last = t->next;
    t->next = (t->next + 1) % SHIM_THREAD_COMMS;
    return rec;
}

int shim_alltoall_any(const shim_args *a)
{
    if (!shim_g.active || shim_this_thread.depth > 0 || a->comm == MPI_COMM_NULL)
        return shim_args_pmpi(a);
    shim_this_thread.depth++;
    int created = 0, rc;
    shim_comm *rec = record_of(a, &created);
    shim_site *site = rec ? shim_site_of(&rec->sites, a->caller, shim_g.cfg.site_depth) : NULL;
    int first = created > 0, ran = 0, second = 0, settled = 0;
    if (rec && rec->pending && rec->calls <= rec->defer) {
        rc = deferred_first(rec, a, site);
        ran = 1;
    } else if (created < 0 && shim_lineage_defer(a->comm)) {
        rc = shim_args_pmpi(a); /* as deferred_first on the ranks that made their record */
        ran = 1;
    } else if ((rec && rec->pending) || created < 0) {
        ran = deferred_second(&rec, a, site, &rc, &settled);
        first = 1; /* else this call stands as the record's first */
        second = rec != NULL;
    }
    if (ran) {
        /* run */
    } else if (!rec) {
        rc = shim_args_pmpi(a);
    } else {
        if (first)
            first_call(rec, a, site);
        int request = shim_comm_request(rec);
        rec->calls++;
        if (request == PLAN_ALGO_NATIVE || rec->no_private) {
            rc = shim_run_unchecked(a, rec, site, 0);
        } else if (rec->calls <= rec->quiet_until || tiny_alltoall(a, rec, request)) {
            rc = shim_run_unchecked(a, rec, site, 1);
        } else if (!after_tiny_run(rec, request) || !tiny_again(rec, a, site, &rc)) {
            shim_call c = {.a = a, .rec = rec, .site = site, .request = request};
            rc = shim_run_agreed(&c, shim_ticks());
        }
    }
    if (second)
        shim_lineage_note(shim_g.world, rec, settled);
    shim_this_thread.depth--;
    return rc;
}
