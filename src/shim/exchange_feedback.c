/* What an agreed call learns from the measured times of the agreed call before it: the time the
 * agreement carries fed to its slot's measured choice (a first call counted as measured, a choice
 * settling, or reopened or passed to the plan it tied with by a slower mode), a second round of
 * measurements after a pattern's cold start, the fastest of MPI's exchanges seen in a row of like
 * calls; and the measured figures the agreed path reads back (MPI's estimated and measured time on
 * a slot, the agreement's learned cost). Functions of agreed values, so every rank learns alike. */
#include <stdio.h>
#include <string.h>

#include "shim/exchange.h"
#include "shim/history.h"
#include "shim/log.h"
#include "shim/run.h"

/* How many times MPI's algorithm (its base variant) was started in choice ch's round; 0 where
 * it is no candidate. */
static uint32_t native_started(const plan_choice *ch)
{
    const plan_candidate *c = plan_choice_find(ch, PLAN_ALGO_NATIVE, 0);
    return c ? c->started : 0;
}

/* Logs (verbose 1) the measured scores of choice ch, which has just settled, and what runs
 * from now on; `stood_in`: MPI's score is that of its calls before the round (seen calls stood
 * in for its block). */
static void log_settled(const shim_comm *rec, const plan_choice *ch, int stood_in)
{
    char line[512], name[48];
    size_t n = 0;
    for (int i = 0; i < ch->explore && n < sizeof line; i++) {
        const plan_candidate *c = &ch->cand[i];
        const char *who = shim_run_name(c->algo, c->variant, name, sizeof name);
        const char *sep = i ? ", " : "";
        /* not measured: e.g. a window variant whose family did not win */
        if (c->score_ps == UINT64_MAX)
            n += (size_t)snprintf(line + n, sizeof line - n, "%s%s not measured", sep, who);
        else
            n += (size_t)snprintf(line + n, sizeof line - n, "%s%s %.3g ms", sep, who,
                                  (double)c->score_ps * 1e-9);
    }
    const plan_candidate *c = plan_choice_current(ch);
    shim_log(1, "measured on %d ranks: %s (median of the %s round's calls%s); runs %s from now on",
             rec->p, line, ch->reopened ? "second" : "first",
             stood_in ? ", MPI's of its calls just before the round" : "",
             shim_run_name(c->algo, c->variant, name, sizeof name));
}

/* Applies the agreed time of the previous agreed call to its slot's choice (a plan's whole
 * call against MPI's exchange alone: what an unchecked native call costs). */
void shim_feedback(shim_comm *rec, const shim_agreement *ag)
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
        s->first_algo = pv->algo;
        s->first_variant = pv->variant;
        s->first_exchange_ps = ag->prev_exec_ps;
        if (plan_choice_first(&s->choice, pv->algo, pv->variant, ps, pv->first_bar_ps))
            shim_log(1,
                     "first call of a pattern on %d ranks: %s took %.3g ms, gather and "
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
        if (plan_choice_switch(&s->choice)) {
            const plan_candidate *c = plan_choice_current(&s->choice);
            char to[48];
            shim_log(1,
                     "on %d ranks: %s took %.3g ms or more in %d of its last %d calls, slower "
                     "than when it was chosen in a tie; runs %s (%.3g ms) from now on",
                     rec->p, shim_run_name(pv->algo, pv->variant, name, sizeof name),
                     (double)s->choice.strike_ps * 1e-9, strikes, (int)PLAN_CHOICE_WATCH,
                     shim_run_name(c->algo, c->variant, to, sizeof to), (double)c->score_ps * 1e-9);
        } else if (plan_choice_reopen(&s->choice))
            shim_log(1,
                     "measuring again on %d ranks: %s took %.3g ms or more in %d of its last "
                     "%d calls, slower than when it was chosen",
                     rec->p, shim_run_name(pv->algo, pv->variant, name, sizeof name),
                     (double)s->choice.strike_ps * 1e-9, strikes, (int)PLAN_CHOICE_WATCH);
        return;
    }
    uint32_t native_before = native_started(&s->choice);
    plan_choice_record(&s->choice, pv->algo, pv->variant, ps);
    if (s->choice.settled)
        log_settled(rec, &s->choice,
                    pv->algo != PLAN_ALGO_NATIVE && !native_before && native_started(&s->choice));
}

/* Measures the candidates of slot s a second time (plan_choice_reopen: only a choice that
 * settled by measuring, once) when REMEASURE calls have passed since its pattern was new: its
 * first measurements ran in the pattern's first calls, which the MPI library's cold start can
 * slow down (connections, registration caches, protocol selection: a plan measured 8x its
 * steady-state time there). Decided from agreed values only (the call count and the slot's
 * generation), so on every rank alike. */
void shim_remeasure(shim_comm *rec, shim_slot *s)
{
    if (rec->calls - s->gen < REMEASURE || !plan_choice_reopen(&s->choice))
        return;
    shim_log(1, "measuring again on %d ranks, %llu calls after the pattern was new", rec->p,
             (unsigned long long)(rec->calls - s->gen));
}

/* The estimated native time of a call that ran algo in t seconds on slot s: MPI's fastest
 * measured call of the pattern, else its model as corrected when the pattern was gathered (the
 * candidate's), else (a named family) the model alone. */
double shim_native_estimate(const shim_slot *s, plan_algo algo, double t)
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
uint64_t shim_agree_measured(const shim_comm *rec, int cls)
{
    uint32_t r;
    if (cls < 0 || plan_learn_samples(&rec->hist->learn, PLAN_LEARN_HIT, cls) < FLOOR_SAMPLES)
        return 0;
    plan_learn_ratio(&rec->hist->learn, PLAN_LEARN_HIT, cls, &r);
    return plan_learn_apply(shim_agree_model(rec->p), r);
}

/* MPI's algorithm's measured time on slot s (the median of its round), 0 where not
 * measured. */
uint64_t shim_native_measured(const shim_slot *s)
{
    for (int i = 0; i < s->choice.n; i++)
        if (s->choice.cand[i].algo == PLAN_ALGO_NATIVE && s->choice.cand[i].runs &&
            s->choice.cand[i].score_ps != UINT64_MAX)
            return s->choice.cand[i].score_ps;
    return 0;
}

/* Keeps rec->native_seen at an agreed call (again: the agreed call before it again) from the
 * previous agreed call's agreed time: MPI's exchanges measured in a row of agreed calls each the
 * one before again, the same call as this one (the calls that ran MPI's algorithm before its
 * pattern was gathered, or between checks); agreed values only, the same on every rank. */
void shim_note_native_seen(shim_comm *rec, const shim_agreement *ag, int again)
{
    uint64_t t = ag->prev_exec_ps;
    if (ag->timed && rec->prev.algo == PLAN_ALGO_NATIVE && t) {
        if (rec->native_seen_n == PLAN_CHOICE_SECOND) { /* the oldest goes */
            memmove(rec->native_seen, rec->native_seen + 1,
                    sizeof rec->native_seen[0] * (PLAN_CHOICE_SECOND - 1));
            rec->native_seen_n--;
        }
        rec->native_seen[rec->native_seen_n++] = t;
    }
    if (!again)
        rec->native_seen_n = 0;
}
