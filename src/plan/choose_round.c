/* A round's candidates and their measured calls, as the measured choice's files read them:
 * lookups, targets and the comparisons of measured times (see choose_rules.h). */
#include "plan/choose_rules.h"

int choice_find(const plan_choice *ch, plan_algo algo, int variant)
{
    for (int i = 0; i < ch->n; i++)
        if (ch->cand[i].algo == algo && ch->cand[i].variant == variant)
            return i;
    return -1;
}

int choice_cold_call(const plan_samples *r, uint32_t k)
{
    return k < 32 && (r->cold >> k & 1u);
}

int choice_is_native(const plan_candidate *c)
{
    return c->algo == PLAN_ALGO_NATIVE && c->variant == 0;
}

uint32_t choice_target(const plan_choice *ch, int i)
{
    return choice_is_native(&ch->cand[i]) ? ch->reference : ch->trials;
}

void choice_done(plan_choice *ch, int i)
{
    plan_candidate *c = &ch->cand[i];
    uint32_t t = choice_target(ch, i);
    c->runs = c->runs > t ? c->runs : t;
    c->started = c->started > t ? c->started : t;
}

uint64_t choice_best_score(const plan_choice *ch)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < ch->explore; i++)
        best = ch->cand[i].score_ps < best ? ch->cand[i].score_ps : best;
    return best;
}

void choice_widen(const uint64_t *t, uint32_t n, uint64_t *lo, uint64_t *hi)
{
    for (uint32_t k = 0; k < n; k++) {
        *lo = t[k] < *lo ? t[k] : *lo;
        *hi = t[k] > *hi ? t[k] : *hi;
    }
}

void choice_extremes(const plan_samples *r, uint64_t *lo, uint64_t *hi)
{
    *lo = UINT64_MAX;
    *hi = 0;
    choice_widen(r->t, r->n, lo, hi);
}

uint64_t choice_seen_fastest(const plan_choice *ch)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    choice_widen(ch->seen, ch->seen_n, &lo, &hi);
    return lo;
}

uint64_t choice_fastest_call(const plan_choice *ch, int i)
{
    uint64_t t = ch->cand[i].best_ps, seen = choice_seen_fastest(ch);
    return choice_is_native(&ch->cand[i]) && seen < t ? seen : t;
}

int choice_beyond(uint64_t score, uint64_t best, uint32_t pct)
{
    return (unsigned __int128)score * 100 > (unsigned __int128)best * pct;
}

int choice_spread_beyond(const plan_choice *ch, int i, uint32_t pct)
{
    uint64_t lo, hi;
    if (i < 0 || i >= ch->explore || ch->samples[i].n < 2)
        return 0;
    choice_extremes(&ch->samples[i], &lo, &hi);
    return choice_beyond(hi, lo, pct);
}
