/* A settled choice's later calls: observed against the other candidates' scores, a
 * settlement contradicted is measured again (a second round), or a tie passed to the tied plan
 * (see choose.h: plan_choice_observe, _reopen, _watching, _switch). */
#include "plan/choose_rules.h"

/* A network whose state changed: MPI's algorithm fast in a pattern's first calls and twice as
 * slow later, or slow every other call: a fast call in between must not hide it. */
int plan_choice_observe(plan_choice *ch, plan_algo ran, int variant, uint64_t measured_ps)
{
    int i = choice_find(ch, ran, variant);
    if (!ch->settled || i != ch->next)
        return 0;
    uint64_t other = UINT64_MAX;
    for (int k = 0; k < ch->explore; k++)
        if (k != i && ch->cand[k].score_ps < other)
            other = ch->cand[k].score_ps;
    ch->watch[ch->watched++ % PLAN_CHOICE_WATCH] = measured_ps;
    uint32_t seen = ch->watched < PLAN_CHOICE_WATCH ? ch->watched : PLAN_CHOICE_WATCH;
    ch->strikes = 0;
    ch->strike_ps = UINT64_MAX;
    for (uint32_t k = 0; other != UINT64_MAX && k < seen; k++)
        if (choice_beyond(ch->watch[k], other, PLAN_CHOICE_LOSS)) {
            ch->strikes++;
            if (ch->watch[k] < ch->strike_ps)
                ch->strike_ps = ch->watch[k];
        }
    if (ch->strikes < PLAN_CHOICE_STRIKES)
        return 0;
    ch->cand[i].score_ps = ch->strike_ps; /* what it takes now, for plan_choice_reopen */
    return 1;
}

int plan_choice_reopen(plan_choice *ch)
{
    int recheck = ch->strikes >= PLAN_CHOICE_STRIKES;
    if (!ch->settled || ch->explore < 2 || ch->trials == 0 ||
        (recheck ? ch->rechecks >= PLAN_CHOICE_RECHECKS : ch->reopened))
        return 0;
    /* a recheck measures every candidate measured before; the second round the close ones */
    uint64_t best = recheck ? UINT64_MAX / 2 : choice_best_score(ch),
             first[PLAN_CHOICE_EXPLORE_MAX];
    int close = 0;
    for (int i = 0; i < ch->explore; i++) {
        first[i] = ch->cand[i].score_ps;
        close += first[i] != UINT64_MAX && !choice_beyond(first[i], best, PLAN_CHOICE_CLOSE);
    }
    if (close < 2)
        return 0;
    for (int i = 0; i < ch->explore; i++) {
        ch->cand[i].runs = ch->cand[i].started = 0;
        ch->samples[i] = (plan_samples){0};
        ch->cand[i].score_ps = UINT64_MAX;
    }
    if (!ch->reopened && ch->trials <= (UINT32_MAX - 1) / 2)
        ch->trials = 2 * ch->trials + 1;
    ch->reference = ch->trials;
    ch->rechecks += (uint32_t)recheck;
    ch->strikes = ch->watched = 0;
    for (int i = 0; i < ch->explore; i++)
        if (first[i] == UINT64_MAX || choice_beyond(first[i], best, PLAN_CHOICE_CLOSE))
            choice_done(ch, i);
    ch->settled = 0;
    ch->reopened = 1;
    ch->last = -1;
    choice_advance(ch);
    return 1;
}

int plan_choice_watching(const plan_choice *ch)
{
    return ch->settled && ch->tied && ch->watched < PLAN_CHOICE_WATCH;
}

int plan_choice_switch(plan_choice *ch)
{
    if (!ch->settled || !ch->tied || ch->strikes < PLAN_CHOICE_STRIKES ||
        ch->rechecks >= PLAN_CHOICE_RECHECKS)
        return 0;
    ch->next = ch->tied - 1;
    ch->tied = 0;
    ch->rechecks++;
    ch->strikes = ch->watched = 0;
    return 1;
}
