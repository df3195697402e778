/* The agreed path of an intercepted call (exchange.c's file comment tells it whole): before the
 * agreement, this rank's description, cache match, the pick of a cached slot's candidate
 * (exploring one, or MPI's algorithm while it waits for the budget), the prepared run and the
 * pattern's summary; after it, what the previous call's times teach, the hit (picked again
 * where the times condemn the plan), or the miss (the forecast before gathering, then the
 * gather); then the run, its times kept for the next agreement, and its accounting. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "plan/choose_lost.h"
#include "plan/hash.h"
#include "shim/agree.h"
#include "shim/clock.h"
#include "shim/describe.h"
#include "shim/exchange.h"
#include "shim/history.h"
#include "shim/lineage.h"
#include "shim/log.h"
#include "shim/lost.h"
#include "shim/miss.h"
#include "shim/node_gather.h"
#include "shim/settled.h"
#include "shim/state.h"
#include "shim/validate.h"

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
    shim_describe_col(&c->x, rec->col);
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
void shim_remember(shim_site *site, uint64_t pattern)
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
uint64_t shim_pattern_hash(uint64_t row_hash, const shim_facts *f)
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
    c->facts = (shim_facts){.kind = (int)c->a->kind,
                            .inplace = inplace,
                            .request = c->request,
                            .types = c->status ? 0 : shim_type_facts(&c->x, inplace)};
    uintptr_t key = c->site ? c->site->key : 0;
    c->row_hash = c->status ? 0 : plan_hash_words(PLAN_HASH_START, rec->row, (size_t)p);
    uint64_t mask = c->status ? 0
                              : shim_cache_match(rec, rec->row, c->row_hash, &c->facts, key, &c->x);
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
    c->pattern = c->status ? 0 : shim_pattern_hash(c->row_hash, &c->facts);
    long idx = c->site ? (long)(c->site - rec->sites.site) : -1;
    *ag = (shim_agreement){.slots = mask,
                           .ok = c->status == 0,
                           .timed = rec->prev.timed,
                           .can_gather = mask || shim_miss_buffer(rec, c->request) == 0,
                           .repeat = c->site && c->pattern && recent(c->site, c->pattern),
                           .again = c->pattern && c->pattern == rec->last_pattern,
                           .lost = !mask && c->request == SHIM_AUTO &&
                                   shim_lost_find(shim_g.world, rec, c->site, c->pattern),
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
    shim_remeasure(rec, &rec->slot[si]);
    cand = repick(c, ag, si, cand);
    plan_choice_start(&rec->slot[si].choice, cand.algo, cand.variant);
    if (ag->prepared != si)
        return shim_run_prepare_agreed(c->a, rec, &c->x, &rec->slot[si], cand.algo, cand.variant,
                                       &c->run);
    return MPI_SUCCESS;
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

/* Keeps the process's memory of calls whose plans lost (lost.h) after call c on slot s under
 * auto: where MPI's algorithm runs on and starts a run (native) and every plan measured on the
 * slot lost to it (plan_choice_plans_lost; a plan whose only call was the pattern's first, by
 * that call's exchange alone), the call is remembered, once per filling of the slot;
 * where a plan runs it as the best estimate (not exploring), forgotten. From agreed values, so
 * alike on every rank of the communicator. */
static void remember_loss(const shim_call *c, shim_slot *s, int native)
{
    if (c->run.algo != PLAN_ALGO_NATIVE && !c->explored) {
        shim_lost_forget(shim_g.world, c->rec, c->site, c->pattern);
        return;
    }
    if (!native || s->lost_noted ||
        !plan_choice_plans_lost(&s->choice, s->first_algo, s->first_variant, s->first_exchange_ps))
        return;
    s->lost_noted = 1;
    shim_lost_note(shim_g.world, c->rec, c->site, c->pattern);
    shim_log(2,
             "on %d ranks: every plan measured on this pattern lost to MPI's algorithm: "
             "remembered for its checks on other communicators of this size",
             c->rec->p);
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
                            .site = shim_site_index(c),
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
    rec->last_variant = r->variant;
    if (r->algo != PLAN_ALGO_NATIVE) { /* a plan runs it: no longer settled on MPI's */
        shim_settled_forget(shim_g.world, rec, c->site, c->pattern);
        shim_lineage_forget(shim_g.world, rec);
    }

    /* the site's figures are what the call took, the window's making included (in its
     * exploring time where the call explored) */
    uint64_t bytes = shim_row_bytes(rec);
    shim_account(c->site, r->algo, r->variant, bytes, t + r->setup_s, hit, planned,
                 (double)s->model_native_ps * 1e-12,
                 shim_native_estimate(s, r->algo, (double)ps * 1e-12));
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
    /* MPI's algorithm chosen (and not watched after a tie: plan_choice_watching), or running while
     * a candidate waits for the budget: the next calls may go unchecked (their time adds to the
     * budget). The wait was decided before this agreement's measurements reached the choice: where
     * they let the candidate run now (a pattern's first call of a plan counted as measured: on 8
     * emulated hosts x 4 ranks a node-direct that took 570 ms against MPI's 730 - 930 waited
     * through a run sized by the budget), no run starts and the next call is agreed. */
    int waiting = c->waiting, explored;
    plan_wait wait = c->wait;
    uint64_t best;
    if (waiting)
        pick(rec, s, &explored, &waiting, &wait, &best);
    int native = r->algo == PLAN_ALGO_NATIVE &&
                 (waiting ||
                  (s->choice.settled && plan_choice_next(&s->choice) == PLAN_ALGO_NATIVE &&
                   !plan_choice_watching(&s->choice)));
    uint64_t floor_len = native && c->again ? plan_run_floor(shim_agree_measured(rec, c->cls),
                                                             shim_native_measured(s))
                                            : 0;
    shim_update_quiet(rec, !native, c->again, waiting ? &wait : NULL, floor_len);
    if (c->request == SHIM_AUTO)
        remember_loss(c, s, native);
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

/* The end of a call whose pattern was not cached: the run miss() prepared, MPI's algorithm
 * without checks, or miss()'s error. Returns an MPI error code. */
static int after_miss(shim_call *c, shim_miss_result res, uint64_t t0)
{
    if (res.outcome == SHIM_MISS_RUN) {
        c->explored = res.explored;
        return finish(c, res.slot, 0, res.planned, t0);
    }
    shim_run_free(&c->run);
    return res.outcome == SHIM_MISS_NATIVE ? shim_run_unchecked(c->a, c->rec, c->site, 0) : res.rc;
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
    return shim_run_unchecked(c->a, c->rec, c->site, 0);
}

/* The agreed path (see exchange.c's file comment). */
int shim_run_agreed(shim_call *c, uint64_t t0)
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
    c->lost = ag.lost && !hit;
    rec->last_pattern = c->pattern;
    c->hist = site ? ag.site : -1;
    c->cls = c->request == SHIM_AUTO && ag.ok
                 ? plan_learn_class(plan_summary_bound(&rec->summary, shim_g.cfg.duplex))
                 : -1;
    /* the check after a run its site's drifting calls' settlement started explores nothing:
     * every fresh communicator there would measure the plans that lost again (one node, 2
     * ranks, drifting 1 MiB per rank: 1.055 and 1.086 x MPI's time over 20 calls) */
    const shim_prev *pv = &rec->prev;
    c->drift_settled = !hit && c->cls >= 0 && pv->first && pv->alike_done &&
                       c->cls == pv->alike_cls;
    shim_history_first(rec, c);
    shim_feedback(rec, &ag);
    shim_note_native_seen(rec, &ag, c->again);
    shim_history_update(rec, &ag, site, news);
    if (c->site) {
        c->site->unchecked_mark = c->site->st.unchecked;
        shim_remember(c->site, c->pattern);
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
        return shim_run_unchecked(c->a, rec, c->site, 0);
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
        if (c->lost) /* it decided this check */
            shim_lost_use(shim_g.world, rec, c->site, c->pattern);
        if (fc.action == PLAN_FORECAST_NATIVE)
            return shim_run_before_gather(c, &fc, t0);
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
        int explored = forecast->explore != PLAN_ALGO_NATIVE;
        plan_history_gather_result(rec->hist, ran_plan, explored);
        if (site)
            plan_history_gather_result(site, ran_plan, explored);
    }
    return after_miss(c, res, t0);
}
