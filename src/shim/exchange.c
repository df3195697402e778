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
 *       where no plan can win by enough, MPI's algorithm runs at once, without gathering
 *       ("decided before gathering"); else (and for a named family, or an argument error
 *       anywhere) miss.c gathers the pattern, raises an argument error on every rank, agrees on
 *       truncation (then every rank runs the MPI library's own exchange, which reports
 *       MPI_ERR_TRUNCATE on the truncated ranks as without hrelay), on the new pattern's
 *       candidates and on the run every rank prepared, and fills a slot.
 *   Then the self-copy and the plan (or PMPI), the times for the next agreement, accounting to
 *     the call site, and the decision whether the following calls may run unchecked. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "plan/hash.h"
#include "shim/agree.h"
#include "shim/call.h"
#include "shim/clock.h"
#include "shim/describe.h"
#include "shim/history.h"
#include "shim/log.h"
#include "shim/miss.h"
#include "shim/node_gather.h"
#include "shim/quiet.h"
#include "shim/state.h"
#include "shim/validate.h"

/* Calls on a communicator and agreements between the tuning steps of exchange.c. */
enum {
    QUIET_AFTER = 2,  /* agreed calls without a plan before native runs unchecked (1 where
                        the last one was the previous agreed call again, or no byte of it
                        left its node) */
    REMEASURE = 64,   /* calls after a pattern's first before its candidates are measured a
                        second time */
    FLOOR_SAMPLES = 1 /* calls a run's floor (plan_run_floor) is measured over: the first one
                         counts (cold, its agreement tends to be slower: a longer run) */
};

SHIM_TLS shim_thread shim_this_thread;

/* Applies the agreed time of the previous agreed call to its slot's choice (a plan's whole
 * call against MPI's exchange alone: what an unchecked native call costs). */
static void feedback(shim_comm *rec, const shim_agreement *ag)
{
    const shim_prev *pv = &rec->prev;
    if (!ag->timed || pv->slot < 0)
        return;
    shim_slot *s = &rec->slot[pv->slot];
    if (!s->used || s->gen != pv->gen)
        return;
    uint64_t ps = pv->algo == PLAN_ALGO_NATIVE ? ag->prev_exec_ps : ag->prev_whole_ps;
    if (pv->first_bar_ps) {
        char name[48];
        if (plan_choice_first(&s->choice, pv->algo, pv->variant, ps, pv->first_bar_ps))
            shim_log(1, "first call of a pattern on %d ranks: %s took %.3g ms, gather and "
                        "planning included, less than the other candidates' estimates: "
                        "counted as measured",
                     rec->p, shim_run_name(pv->algo, pv->variant, name, sizeof name),
                     (double)ps * 1e-9);
        return;
    }
    if (s->choice.settled) {
        char name[48];
        if (!plan_choice_observe(&s->choice, pv->algo, pv->variant, ps))
            return;
        int strikes = (int)s->choice.strikes;
        if (plan_choice_reopen(&s->choice))
            shim_log(1, "measuring again on %d ranks: %s took %.3g ms or more in %d of its last "
                        "%d calls, slower than when it was chosen",
                     rec->p, shim_run_name(pv->algo, pv->variant, name, sizeof name),
                     (double)s->choice.strike_ps * 1e-9, strikes, (int)PLAN_CHOICE_WATCH);
        return;
    }
    plan_choice_record(&s->choice, pv->algo, pv->variant, ps);
    if (s->choice.settled) {
        char line[512], name[48];
        size_t n = 0;
        for (int i = 0; i < s->choice.explore && n < sizeof line; i++) {
            const plan_candidate *c = &s->choice.cand[i];
            const char *who = shim_run_name(c->algo, c->variant, name, sizeof name);
            const char *sep = i ? ", " : "";
            /* not measured: e.g. a window variant whose family did not win */
            if (c->score_ps == UINT64_MAX)
                n += (size_t)snprintf(line + n, sizeof line - n, "%s%s not measured", sep, who);
            else
                n += (size_t)snprintf(line + n, sizeof line - n, "%s%s %.3g ms", sep, who,
                                      (double)c->score_ps * 1e-9);
        }
        const plan_candidate *c = plan_choice_current(&s->choice);
        shim_log(1, "measured on %d ranks: %s (median of the %s round's calls); runs %s from "
                    "now on",
                 rec->p, line, s->choice.reopened ? "second" : "first",
                 shim_run_name(c->algo, c->variant, name, sizeof name));
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

/* The estimated native time of a call that ran algo in t seconds on slot s: MPI's fastest
 * measured call of the pattern, else its model as corrected when the pattern was gathered (the
 * candidate's), else (a named family) the model alone. */
static double native_estimate(const shim_slot *s, plan_algo algo, double t)
{
    if (algo == PLAN_ALGO_NATIVE)
        return t;
    for (int i = 0; i < s->choice.n; i++) {
        const plan_candidate *c = &s->choice.cand[i];
        if (c->algo == PLAN_ALGO_NATIVE)
            return (double)(c->runs ? c->best_ps : c->model_ps) * 1e-12;
    }
    return (double)s->model_native_ps * 1e-12;
}

/* The agreement's cost on rec as measured in size class cls over FLOOR_SAMPLES calls or more
 * (the correction learned for a call that reuses a decision), else 0. */
static uint64_t agree_measured(const shim_comm *rec, int cls)
{
    uint32_t r;
    if (cls < 0 || plan_learn_samples(&rec->hist->learn, PLAN_LEARN_HIT, cls) < FLOOR_SAMPLES)
        return 0;
    plan_learn_ratio(&rec->hist->learn, PLAN_LEARN_HIT, cls, &r);
    return plan_learn_apply(shim_agree_model(rec->p), r);
}

/* MPI's algorithm's measured time on slot s (the median of its round), 0 where not
 * measured. */
static uint64_t native_measured(const shim_slot *s)
{
    for (int i = 0; i < s->choice.n; i++)
        if (s->choice.cand[i].algo == PLAN_ALGO_NATIVE && s->choice.cand[i].runs &&
            s->choice.cand[i].score_ps != UINT64_MAX)
            return s->choice.cand[i].score_ps;
    return 0;
}

/* After an agreed call on rec that may have run a plan (or whose pattern may still be planned):
 * whether the next calls may run unchecked (see the file comment): after QUIET_AFTER agreed calls
 * in a row that may not, or one that may not and was the previous agreed call again on every
 * rank (again: shim_call.again; the same call twice in a row is as much evidence that the calls
 * stay alike, and on 16 emulated hosts an agreement costs as much as a call of 64 KiB per rank; a
 * recent pattern of the call's site is not enough: a repeated tiny call between drifting calls
 * that may plan would start runs that swallow them). wait (NULL: none): the call ran MPI's
 * algorithm while a candidate waits to be explored; the run then ends when exploring it is
 * expected to be allowed, not later, and does not lengthen the next: by the budget, or, for
 * the same call again, by the saving its estimate promises (plan_wait_calls_until; on 8
 * emulated hosts x 4 ranks a node-direct estimated a third faster than MPI's algorithm waited
 * for the budget alone through a run of 8 calls, where its estimate paid for exploring after
 * 2), at the last measured time of MPI's algorithm per call. Where the counts change, one
 * pattern's estimate says little of the next's: by the budget alone (on 16 emulated hosts, a
 * drifting MoE routing explored plans earlier and more often and took 1.05 - 1.10 x MPI's time
 * where the budget alone gave 1.01). A run lasts at least floor_len calls, which the callers
 * give only for the same call twice in a row (plan_run_floor), or two calls too small to
 * explore and alike (PLAN_RUN_MAX: on one node an agreement costs two calls of 1 KiB per rank);
 * 0 for none. */
static void update_quiet(shim_comm *rec, int may_plan, int again, const plan_wait *wait,
                         uint64_t floor_len)
{
    if (shim_g.cfg.recheck == 0)
        return;
    if (may_plan) {
        rec->last_planned = rec->agreed;
        rec->quiet_len = SHIM_QUIET_FIRST;
        return;
    }
    if (rec->agreed - rec->last_planned < (again ? 1u : QUIET_AFTER))
        return;
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
            return; /* exploring may go ahead at the next call */
        len = until;
    } else {
        rec->quiet_len = 2 * len;
    }
    rec->quiet_until = rec->calls + len;
    rec->prev.slot = -1;
    shim_log(2, "on %d ranks: the next %llu calls run MPI's algorithm unchecked", rec->p,
             (unsigned long long)len);
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
    if (timed) {
        double t = shim_ticks_seconds(shim_ticks() - t0) * SHIM_SAMPLE;
        st->time_s += t;
        st->native_s += t;
        st->bytes += shim_local_bytes(a, rec->p) * SHIM_SAMPLE;
    }
    shim_count_unchecked(rec, site, quiet);
    return rc;
}

/* The candidate a hit on slot s runs: the choice's (plan_choice_current), unless that explores
 * a plan (it is not the best estimate, nor MPI's algorithm: MPI's calls are what the program
 * pays without hrelay, and a plan measured faster must be measured against them; on 8
 * emulated hosts x 4 ranks, a permutation's node-direct measured first and MPI's block waiting
 * for the budget settled on node-direct at 1.14 x MPI's time) and exploring it neither fits
 * the budget nor pays for itself
 * (plan_budget_pays_back: estimated, as modeled or as measured in this round, clearly faster
 * than the best estimate) and it is not the second call of a block whose first one cannot
 * judge it (plan_choice_unjudged: across nodes, a call after another candidate's), then the
 * best (*waiting set, *wait what exploring it is predicted to cost, its estimate and the
 * best). Sets
 * *explored and the best estimate *best_ps. A function of agreed values only (the choice and
 * the budget), evaluated before and after the agreement alike. */
static plan_candidate pick(const shim_comm *rec, const shim_slot *s, int *explored, int *waiting,
                           plan_wait *wait, uint64_t *best_ps)
{
    const plan_choice *ch = &s->choice;
    plan_candidate cur = *plan_choice_current(ch);
    const plan_candidate *best = plan_choice_incumbent(ch);
    *explored = *waiting = 0;
    *best_ps = plan_choice_estimate(ch, best);
    if (ch->settled || cur.algo == PLAN_ALGO_NATIVE ||
        (cur.algo == best->algo && cur.variant == best->variant))
        return cur;
    plan_wait w = plan_choice_explore_wait(ch, &cur);
    /* the node's window, not made yet on the communicator, is made by exploring it (a window
     * grown later is charged to the budget when measured) */
    if (cur.algo == PLAN_ALGO_NODE_AGGREGATE && cur.variant == PLAN_VARIANT_NODE_WINDOW &&
        !rec->window_made) {
        uint64_t pred = w.pred_ps + s->window_make_ps;
        w.pred_ps = pred >= w.pred_ps ? pred : UINT64_MAX; /* its risk as it was */
    }
    *waiting = !plan_choice_unjudged(ch) &&
               !plan_wait_allows(&rec->budget, &w, (uint32_t)shim_g.cfg.budget);
    if (*waiting) {
        *wait = w;
        return *best;
    }
    *explored = 1;
    return cur;
}

/* This rank's summary of the call (auto with valid arguments; else zeros) into rec->summary:
 * its row, and its column from the receive counts. */
static void summarise(shim_call *c)
{
    shim_comm *rec = c->rec;
    plan_summary *s = &rec->summary;
    if (c->status || c->request != SHIM_AUTO) {
        memset(s->max, 0, sizeof s->max);
        memset(s->sum, 0, sizeof s->sum);
        memset(s->block, 0, s->nblocks * sizeof *s->block);
        s->p = rec->p;
        return;
    }
    const exec_side *r = &c->x.recv;
    for (int i = 0; i < rec->p; i++)
        rec->col[i] = (uint64_t)r->count[i] * (uint64_t)r->type.size;
    plan_summary_rank(s, rec->p, rec->rank, rec->row, rec->col, shim_topo_nodes(&rec->topo),
                      shim_g.cfg.packet, &shim_g.cfg.cost);
}

/* Whether pattern is one of the site's last SHIM_SITE_RECENT patterns. */
static int recent(const shim_site *site, uint64_t pattern)
{
    for (int i = 0; i < SHIM_SITE_RECENT; i++)
        if (site->recent[i] == pattern)
            return 1;
    return 0;
}

/* Remembers pattern among the site's recent ones (the oldest goes). */
static void remember(shim_site *site, uint64_t pattern)
{
    if (recent(site, pattern))
        return;
    memmove(site->recent + 1, site->recent, (SHIM_SITE_RECENT - 1) * sizeof *site->recent);
    site->recent[0] = pattern;
}

/* Calls run at site without agreement since its last agreed one (site may be NULL: 0). */
static uint64_t site_unchecked(const shim_site *site)
{
    return site ? site->st.unchecked - site->unchecked_mark : 0;
}

/* This rank's part of a described call's pattern: the hash of its row (row_hash) with the
 * call's kind, MPI_IN_PLACE and type facts; never 0. */
static uint64_t pattern_hash(uint64_t row_hash, const shim_facts *f)
{
    uint64_t facts[3] = {(uint64_t)f->kind, (uint64_t)f->inplace, f->types};
    return plan_hash_words(row_hash, facts, 3) | 1;
}

/* The agreed path, first part: describes the call, matches it against the cache, prepares the
 * likely run (nothing may fail after the agreement) and summarises the pattern; *ag is this
 * rank's part of the agreement. */
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
        int i = __builtin_ctzll(mask), explored, waiting;
        plan_wait wait;
        uint64_t best;
        plan_candidate cand = pick(rec, &rec->slot[i], &explored, &waiting, &wait, &best);
        if (cand.algo == PLAN_ALGO_NATIVE ||
            shim_run_prepare(c->a, rec, &c->x, rec->slot[i].prog[cand.algo], &c->run) == 0) {
            c->run.slot = i;
            c->run.algo = cand.algo;
            c->run.variant = cand.variant;
        } else {
            mask = 0;
        }
    }
    summarise(c);
    c->pattern = c->status ? 0 : pattern_hash(c->row_hash, &c->facts);
    long idx = c->site ? (long)(c->site - rec->sites.site) : -1;
    *ag = (shim_agreement){.slots = mask,
                           .ok = c->status == 0,
                           .timed = rec->prev.timed,
                           .can_gather = mask || shim_miss_buffer(rec, c->request) == 0,
                           .repeat = c->site && c->pattern && recent(c->site, c->pattern),
                           .again = c->pattern && c->pattern == rec->last_pattern,
                           .history = shim_history_ready(rec, idx),
                           .prev_exec_ps = rec->prev.exec_ps,
                           .prev_whole_ps = rec->prev.whole_ps,
                           .prev_setup_ps = rec->prev.setup_ps,
                           .prepared = c->run.slot,
                           .site = idx <= INT_MAX ? (int)idx : -1,
                           .unchecked = site_unchecked(c->site),
                           .summary = rec->summary};
}

/* The candidate a hit on slot si runs, given the agreement's measurements (fed to the choice
 * after pick chose cand): MPI's algorithm where cand is a plan and pick now says so (a plan
 * whose block's first call lost clearly, or a choice that settled on MPI's algorithm: the call
 * was picked before the measurement that condemns it arrived), else cand. Switching to MPI's
 * algorithm needs no preparation, so no further agreement: the run this rank prepared is
 * released and c's explored, waiting and best-estimate fields follow the new pick. */
static plan_candidate repick(shim_call *c, const shim_agreement *ag, int si, plan_candidate cand)
{
    if (cand.algo == PLAN_ALGO_NATIVE)
        return cand;
    int explored, waiting;
    plan_wait wait = {0};
    uint64_t best_ps;
    plan_candidate now = pick(c->rec, &c->rec->slot[si], &explored, &waiting, &wait, &best_ps);
    if (now.algo != PLAN_ALGO_NATIVE)
        return cand;
    char name[48];
    shim_log(2,
             "on %d ranks: %s no longer picked after the last call's measurement; this call runs "
             "MPI's algorithm",
             c->rec->p, shim_run_name(cand.algo, cand.variant, name, sizeof name));
    if (ag->prepared == si) {
        shim_run_free(&c->run);
        c->run.algo = PLAN_ALGO_NATIVE;
        c->run.variant = 0;
    }
    c->explored = explored;
    c->waiting = waiting;
    c->wait = wait;
    c->best_ps = best_ps;
    return now;
}

/* A hit on slot si of every rank: maybe a second round of measurements, and the run of
 * candidate cand (pick), or MPI's algorithm instead (repick) (prepared again and agreed unless
 * every rank prepared this slot: a rank that also matched another slot prepared that one).
 * Returns an MPI error code. */
static int reuse(shim_call *c, const shim_agreement *ag, int si, plan_candidate cand)
{
    shim_comm *rec = c->rec;
    remeasure(rec, &rec->slot[si]);
    cand = repick(c, ag, si, cand);
    plan_choice_start(&rec->slot[si].choice, cand.algo, cand.variant);
    if (ag->prepared != si)
        return shim_run_prepare_agreed(c->a, rec, &c->x, &rec->slot[si], cand.algo,
                                       cand.variant, &c->run);
    return MPI_SUCCESS;
}

/* This rank's index of the call's site (-1: none). */
static long site_index(const shim_call *c)
{
    return c->site ? (long)(c->site - c->rec->sites.site) : -1;
}

/* Bytes this rank sends in the call (its row). */
static uint64_t row_bytes(const shim_comm *rec)
{
    uint64_t bytes = 0;
    for (int j = 0; j < rec->p; j++)
        bytes += rec->row[j];
    return bytes;
}

/* Family a's most optimistic time on call c's agreed summary (what the forecast before
 * gathering starts from); 0 where nothing is learned from c (not auto) or the summary is not
 * consistent. */
static uint64_t optimistic(const shim_call *c, plan_algo a)
{
    const plan_summary *s = &c->rec->summary;
    if (c->cls < 0 || !plan_summary_consistent(s))
        return 0;
    return plan_summary_optimistic(s, a, (plan_duplex)shim_g.cfg.duplex, &shim_g.cfg.cost);
}

/* The agreed path, last part: runs the call on slot si (a cache hit, or a new pattern that
 * built `planned` plans), keeps its times for the next agreement and accounts for it. */
static int finish(shim_call *c, int si, int hit, int planned, uint64_t t0)
{
    shim_comm *rec = c->rec;
    shim_run *r = &c->run;
    shim_slot *s = &rec->slot[si];
    s->used = rec->calls;
    uint64_t ps;
    int rc = shim_run_execute(c->a, rec, &c->x, r, &ps);
    shim_run_free(r);
    if (rc != MPI_SUCCESS)
        return r->algo == PLAN_ALGO_NATIVE ? rc : shim_raise(c->a, rc);
    /* What the choice compares: a plan's whole call (the agreement, the preparation and the
     * self-copy are part of its price) against MPI's exchange alone (what an unchecked native
     * call costs); a new pattern's first call (gather and planning) teaches the histories and
     * counts for the choice only where it beats the other candidates' estimates even so. The
     * node's window, made at its first use, is not (as the private duplicate, private_comm). */
    double t = shim_ticks_seconds(shim_ticks() - t0) - r->setup_s;
    t = t > 0 ? t : 0;
    if (!hit) /* the round's first block: this candidate's */
        plan_choice_opened(&s->choice, r->algo, r->variant);
    const shim_prog *pg = r->algo == PLAN_ALGO_NATIVE ? NULL : s->prog[r->algo];
    uint64_t first_bar = 0;
    if (!hit && pg) {
        first_bar = plan_choice_first_bar(&s->choice, r->algo, r->variant);
        if (c->native_ps && c->native_ps < first_bar)
            first_bar = c->native_ps;
    }
    rec->prev = (shim_prev){.timed = 1,
                            .exec_ps = ps,
                            .whole_ps = (uint64_t)(t * 1e12),
                            .setup_ps = (uint64_t)(r->setup_s * 1e12),
                            .slot = hit || first_bar ? si : -1,
                            .gen = s->gen,
                            .algo = r->algo,
                            .variant = r->variant,
                            .hist = c->hist,
                            .site = site_index(c),
                            .cls = c->cls,
                            .model_ps = pg ? pg->model_ps : s->model_native_ps,
                            .optimistic_ps = pg ? optimistic(c, r->algo) : 0,
                            .over_key = hit ? PLAN_LEARN_HIT : PLAN_LEARN_MISS,
                            .over_model_ps = hit ? shim_agree_model(rec->p) : s->overhead_ps,
                            .explored = c->explored,
                            .waited = c->waiting,
                            .best_ps = c->best_ps,
                            .first_bar_ps = first_bar};
    rec->last = (int)r->algo;

    /* the site's figures are what the call took, the window's making included (in its
     * exploring time where the call explored) */
    uint64_t bytes = row_bytes(rec);
    account(c->site, r->algo, bytes, t + r->setup_s, hit, planned,
            (double)s->model_native_ps * 1e-12, native_estimate(s, r->algo, (double)ps * 1e-12));
    if (c->site) {
        c->site->st.explore_calls += (uint64_t)c->explored;
        c->site->st.explore_s += c->explored ? r->setup_s : 0;
    }
    char name[48];
    shim_log(2,
             "%s on %d ranks: %s (%s%s), %zu steps, %llu bytes sent and %llu staging bytes on "
             "this rank, %.6f s (the exchange %.6f s)",
             shim_args_name(c->a), rec->p, shim_run_name(r->algo, r->variant, name, sizeof name),
             hit ? "cached" : "new pattern", c->explored ? ", exploring" : "", pg ? pg->nsteps : 0,
             (unsigned long long)bytes, (unsigned long long)(pg ? pg->staging : 0), t,
             (double)ps * 1e-12);
    /* MPI's algorithm chosen, or running while a candidate waits for the budget: the next
     * calls may go unchecked (their time adds to the budget). The wait was decided before this
     * agreement's measurements reached the choice: where they let the candidate run now (a
     * pattern's first call of a plan counted as measured: on 8 emulated hosts x 4 ranks a
     * node-direct that took 570 ms against MPI's 730 - 930 waited through a run sized by the
     * budget), no run starts and the next call is agreed. */
    int waiting = c->waiting, explored;
    plan_wait wait = c->wait;
    uint64_t best;
    if (waiting)
        pick(rec, s, &explored, &waiting, &wait, &best);
    int native = r->algo == PLAN_ALGO_NATIVE &&
                 (waiting ||
                  (s->choice.settled && plan_choice_next(&s->choice) == PLAN_ALGO_NATIVE));
    uint64_t floor_len =
        native && c->again ? plan_run_floor(agree_measured(rec, c->cls), native_measured(s)) : 0;
    update_quiet(rec, !native, c->again, waiting ? &wait : NULL, floor_len);
    return MPI_SUCCESS;
}

/* Prints a forecast: every one at HRELAY_VERBOSE=2, at 1 only when its reason changes on the
 * communicator. */
static void log_forecast(shim_comm *rec, const shim_call *c, const plan_forecast *fc)
{
    if (shim_g.cfg.verbose < 1 || rec->rank != 0 ||
        (shim_g.cfg.verbose < 2 && fc->why == rec->last_why))
        return;
    rec->last_why = fc->why;
    char line[512] = "";
    size_t n = 0;
    for (int a = 1; a < PLAN_ALGO_COUNT && n < sizeof line; a++)
        if (fc->est_ps[a] != UINT64_MAX)
            n += (size_t)snprintf(line + n, sizeof line - n, ", %s %.3g ms%s",
                                  plan_algo_name((plan_algo)a), (double)fc->est_ps[a] * 1e-9,
                                  fc->state[a] == PLAN_LEARN_UNKNOWN ? " (not measured)" : "");
    if (fc->waiting && n < sizeof line)
        snprintf(line + n, sizeof line - n, "; exploring predicted at %.3g ms, risking %.3g",
                 (double)fc->wait.pred_ps * 1e-9, (double)fc->wait.risk_ps * 1e-9);
    shim_log(1,
             "before gathering on %d ranks (%llu bytes at most per rank): native %.3g ms "
             "(modeled %.3g)%s; %s: %s",
             rec->p, (unsigned long long)fc->bound, (double)fc->native_ps * 1e-9,
             (double)fc->native_model * 1e-9, line, fc->why,
             fc->action == PLAN_FORECAST_GATHER ? "gathers" : "runs native");
    (void)c;
}

/* Whether a is an MPI_Alltoall or MPI_Alltoall_c (one count for every pair). */
static int alltoall_kind(const shim_args *a)
{
    return a->kind == SHIM_ALLTOALL || a->kind == SHIM_ALLTOALL_C;
}

/* Whether call a on rec runs MPI's algorithm unchecked without agreement as a tiny
 * MPI_Alltoall (shim_tiny_alltoall). An erroneous call (counts or types that differ between
 * ranks) gets MPI's own behaviour, as any unchecked call; the communicator's first such call is
 * agreed, so its errors are hrelay's. */
static int tiny_alltoall(const shim_args *a, const shim_comm *rec, int request)
{
    if (!rec->tiny_alltoall || !alltoall_kind(a))
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

/* A new pattern that runs MPI's algorithm without gathering (forecast fc): the call, its times
 * for the next agreement, accounting. */
static int run_before_gather(shim_call *c, const plan_forecast *fc, uint64_t t0)
{
    shim_comm *rec = c->rec;
    /* a call too small to explore that is the previous agreed call again, or follows another
     * such call at its site in its size class (agreed values: as much evidence that the site's
     * calls stay too small where their counts drift; not where they grow by levels, as a
     * breadth-first search's) */
    int tiny_again = fc->tiny && (c->again || (rec->prev.tiny && c->hist >= 0 &&
                                               rec->prev.hist == c->hist &&
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
                            .site = site_index(c),
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
    uint64_t bytes = row_bytes(rec);
    account(c->site, PLAN_ALGO_NATIVE, bytes, t, 0, 0, (double)fc->native_model * 1e-12,
            (double)ps * 1e-12);
    if (c->site) {
        c->site->st.before_gather++;
        c->site->st.explore_calls += (uint64_t)fc->exploring;
    }
    shim_log(2, "%s on %d ranks: native (decided before gathering), %llu bytes sent on this "
                "rank, %.6f s",
             shim_args_name(c->a), rec->p, (unsigned long long)bytes, t);
    /* a call too small to explore runs MPI's algorithm whatever is measured: after tiny_again
     * its run is as long as measured times can make one, at once (the third agreement of 51
     * calls of 1 KiB per rank on one node cost 3 - 4 % of their time); another call's run
     * after the same call twice is sized by the times so far, the first call's included (on
     * 16 emulated hosts an agreement costs half a call of 64 KiB per rank: 31 such calls
     * agreed 4 times with runs of 8 and 16) */
    const plan_learn_view *v = &fc->learned;
    int measured = c->again && v->samples[PLAN_LEARN_HIT] >= FLOOR_SAMPLES &&
                   v->samples[plan_learn_key(PLAN_ALGO_NATIVE, fc->native_variant)] >=
                       FLOOR_SAMPLES;
    uint64_t floor_len =
        tiny_again ? PLAN_RUN_MAX
        : measured ? plan_run_floor(plan_learn_apply(shim_agree_model(rec->p), fc->ratio_hit),
                                    fc->native_ps)
                   : 0;
    /* nothing crosses a NIC: settled whatever the pattern and MPI's times, so the run starts
     * after this agreement as after the same call twice (on 8 emulated hosts x 4 ranks an
     * FFT's Y -> Z transpose, all within nodes, paid 20 - 35 ms for its second agreement
     * against MPI's 42 ms per call) */
    int held = c->again || (fc->on_node && fc->settled);
    if (!hold)
        update_quiet(rec, !fc->settled, held, fc->waiting ? &fc->wait : NULL, floor_len);
    if (fc->bound < SHIM_EXPLORE_MIN_BYTES && alltoall_kind(c->a))
        rec->tiny_alltoall = 1 + shim_tiny_pair_bytes(rec->p); /* every rank called
                                                                  MPI_Alltoall(_c) */
    return MPI_SUCCESS;
}

/* The end of a call whose pattern was not cached: the run miss() prepared, MPI's algorithm
 * without checks, or miss()'s error. Returns an MPI error code. */
static int after_miss(shim_call *c, shim_miss_result res, uint64_t t0)
{
    if (res.outcome == SHIM_MISS_RUN) {
        c->explored = res.explored;
        return finish(c, res.slot, 0, res.planned, t0);
    }
    shim_run_free(&c->run);
    return res.outcome == SHIM_MISS_NATIVE ? run_unchecked(c->a, c->rec, c->site, 0) : res.rc;
}

/* Makes sure c's communicator has its private duplicate (shim_comm_private, collective);
 * the time this takes moves *t0 forward: a communicator's one-time set-up is not the price of
 * the pattern whose call made it (as its record's creation, before t0). */
static int private_comm(shim_call *c, uint64_t *t0)
{
    if (c->rec->priv != MPI_COMM_NULL)
        return 1;
    uint64_t d0 = shim_ticks();
    int ok = shim_comm_private(c->rec);
    *t0 += shim_ticks() - d0;
    return ok;
}

/* A call that would gather on a communicator without a private duplicate (shim_comm_private
 * declined, on every rank): MPI's algorithm, as every later call. */
static int no_private(shim_call *c)
{
    shim_run_free(&c->run);
    shim_log(2, "%s on %d ranks: no private communicator; native", shim_args_name(c->a), c->rec->p);
    return run_unchecked(c->a, c->rec, c->site, 0);
}

/* Keeps rec->native_seen_ps at an agreed call (again: the agreed call before it again) from
 * the previous agreed call's agreed time: the fastest of MPI's exchanges measured in a row of
 * agreed calls each the one before again, the same call as this one (the calls that ran MPI's
 * algorithm before its pattern was gathered, or between checks); agreed values only, the same
 * on every rank. */
static void note_native_seen(shim_comm *rec, const shim_agreement *ag, int again)
{
    uint64_t t = ag->prev_exec_ps, seen = rec->native_seen_ps;
    if (ag->timed && rec->prev.algo == PLAN_ALGO_NATIVE && t)
        rec->native_seen_ps = seen && seen < t ? seen : t;
    if (!again)
        rec->native_seen_ps = 0;
}

/* The agreed path (see the file comment). */
static int run_agreed(shim_call *c, uint64_t t0)
{
    shim_comm *rec = c->rec;
    shim_agreement ag;
    prepare_call(c, &ag);
    int rc = shim_agree(&ag, rec->comm, rec->agree_type, rec->agree_buf);
    if (rc != MPI_SUCCESS) {
        shim_run_free(&c->run);
        return shim_raise(c->a, rc);
    }
    rec->agreed++;
    rec->summary = ag.summary;
    uint64_t hit = ag.ok ? ag.slots : 0;
    int si = hit ? __builtin_ctzll(hit) : -1;
    plan_candidate cand = {.algo = PLAN_ALGO_NATIVE};
    c->explored = c->waiting = 0;
    c->best_ps = c->native_ps = 0;
    c->wait = (plan_wait){0};
    if (hit) /* before this agreement's measurements change the choice and the budget */
        cand = pick(rec, &rec->slot[si], &c->explored, &c->waiting, &c->wait, &c->best_ps);
    plan_history *site = shim_history_of(rec, &ag);
    int news = !hit && !ag.repeat && ag.ok;
    c->again = ag.again; /* never with an argument error: that rank's pattern is 0 */
    rec->last_pattern = c->pattern;
    c->hist = site ? ag.site : -1;
    c->cls = c->request == SHIM_AUTO && ag.ok
                 ? plan_learn_class(plan_summary_bound(&rec->summary, shim_g.cfg.duplex))
                 : -1;
    feedback(rec, &ag);
    note_native_seen(rec, &ag, c->again);
    shim_history_update(rec, &ag, site, news);
    if (c->site) {
        c->site->unchecked_mark = c->site->st.unchecked;
        remember(c->site, c->pattern);
        c->site->st.new_patterns += (uint64_t)news;
    }
    if (hit) {
        if ((rc = reuse(c, &ag, si, cand)) != MPI_SUCCESS) {
            shim_run_free(&c->run);
            return shim_raise(c->a, rc);
        }
        return finish(c, si, 1, 0, t0);
    }
    if (!ag.can_gather) {
        /* a rank cannot hold the P x P matrix: MPI does this call (and reports any error) */
        shim_run_free(&c->run);
        shim_log(2, "%s on %d ranks: a rank has no memory for the pattern; native",
                 shim_args_name(c->a), rec->p);
        return run_unchecked(c->a, rec, c->site, 0);
    }
    /* node-direct gathers node-level metadata, never the P x P matrix */
    if (shim_node_path(rec, c->request))
        return private_comm(c, &t0) ? after_miss(c, shim_node_miss(c, ag.ok), t0) : no_private(c);
    plan_forecast fc, *forecast = NULL;
    /* receive counts that differ from what is sent (a truncated call) are found on the
     * gathered pattern; such a call runs MPI's algorithm */
    if (c->request == SHIM_AUTO && ag.ok && plan_summary_consistent(&rec->summary)) {
        shim_forecast(rec, c, site, &fc);
        log_forecast(rec, c, &fc);
        if (fc.action == PLAN_FORECAST_NATIVE)
            return run_before_gather(c, &fc, t0);
        plan_history_gathered(rec->hist);
        if (site)
            plan_history_gathered(site);
        forecast = &fc;
        c->best_ps = fc.best_ps;
        c->native_ps = fc.native_ps;
    }
    if (!private_comm(c, &t0))
        return no_private(c);
    shim_miss_result res = forecast && forecast->node_path ? shim_node_miss(c, ag.ok)
                                                           : shim_miss(c, forecast);
    if (forecast) {
        res.explored |= forecast->exploring; /* a gather after a futile one is charged */
        int ran_plan = res.outcome == SHIM_MISS_RUN && res.algo != PLAN_ALGO_NATIVE;
        plan_history_gather_result(rec->hist, ran_plan);
        if (site)
            plan_history_gather_result(site, ran_plan);
    }
    return after_miss(c, res, t0);
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
             "on %d ranks: no byte of the first call leaves its node: the first %llu calls run "
             "MPI's algorithm unchecked",
             rec->p, (unsigned long long)len);
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
    rec->agreed++;
    rec->prev = (shim_prev){.slot = -1,
                            .algo = PLAN_ALGO_NATIVE,
                            .hist = 0,
                            .site = -1,
                            .cls = plan_learn_class(rec->first_load),
                            .tiny = 1};
    exec_exchange x;
    int inplace = a->sendbuf == MPI_IN_PLACE;
    if (shim_describe(a, rec, &x, rec->row) == MPI_SUCCESS) {
        shim_facts f = {
            .kind = (int)a->kind, .inplace = inplace, .types = shim_type_facts(&x, inplace)};
        rec->last_pattern = pattern_hash(plan_hash_words(PLAN_HASH_START, rec->row, (size_t)rec->p),
                                         &f);
        if (site)
            remember(site, rec->last_pattern);
    }
    shim_log(2,
             "on %d ranks: the first call moves at most %llu bytes per rank, too few to "
             "explore: MPI's algorithm unchecked",
             rec->p, (unsigned long long)rec->first_load);
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
        if (!(rec = shim_comm_create(comm, a)))
            return NULL;
        *created = 1;
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
    if (!rec) {
        rc = shim_args_pmpi(a);
    } else {
        shim_site *site = shim_site_of(&rec->sites, a->caller, shim_g.cfg.site_depth);
        if (created)
            first_call(rec, a, site);
        int request = shim_comm_request(rec);
        rec->calls++;
        if (request == PLAN_ALGO_NATIVE || rec->no_private) {
            rc = run_unchecked(a, rec, site, 0);
        } else if (rec->calls <= rec->quiet_until || tiny_alltoall(a, rec, request)) {
            rc = run_unchecked(a, rec, site, 1);
        } else {
            shim_call c = {.a = a, .rec = rec, .site = site, .request = request};
            rc = run_agreed(&c, shim_ticks());
        }
    }
    shim_this_thread.depth--;
    return rc;
}
