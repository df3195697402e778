/* Choosing among candidate families by model, then by measurement (see choose.h). */
#include <string.h>

#include "plan/choose.h"

/* Orders candidates by model, then by family number. */
static int before(const plan_candidate *a, const plan_candidate *b)
{
    return a->model_ps != b->model_ps ? a->model_ps < b->model_ps : a->algo < b->algo;
}

/* Index of algo among the candidates, or -1. */
static int find(const plan_choice *ch, plan_algo algo)
{
    for (int i = 0; i < ch->n; i++)
        if (ch->cand[i].algo == algo)
            return i;
    return -1;
}

/* The explored candidate with the smallest score so far (0 if none measured). */
static int fastest(const plan_choice *ch)
{
    int best = 0;
    for (int i = 1; i < ch->explore; i++)
        if (ch->cand[i].score_ps < ch->cand[best].score_ps)
            best = i;
    return best;
}

/* The lower middle one of v[0 .. n) (1 <= n <= PLAN_CHOICE_SECOND). */
static uint64_t lower_median(const uint64_t *v, uint32_t n)
{
    uint64_t s[PLAN_CHOICE_SECOND];
    for (uint32_t i = 0; i < n; i++) { /* insertion sort: n is at most 16 */
        uint32_t k = i;
        for (; k > 0 && s[k - 1] > v[i]; k--)
            s[k] = s[k - 1];
        s[k] = v[i];
    }
    return s[(n - 1) / 2];
}

/* Settles on the explored candidate with the smallest score (the best model if none
 * measured). */
static void settle(plan_choice *ch)
{
    ch->next = fastest(ch);
    ch->settled = 1;
}

/* Settles when every explored candidate has `trials` measurements; else points next at the
 * explored candidate started the fewest times, or, when all were started `trials` times, at
 * the fastest so far. */
static void advance(plan_choice *ch)
{
    if (ch->settled)
        return;
    int measured = 1;
    for (int i = 0; i < ch->explore; i++)
        measured &= ch->cand[i].runs >= ch->trials;
    if (ch->explore < 2 || measured) {
        settle(ch);
        return;
    }
    int pick = -1;
    for (int i = 0; i < ch->explore; i++)
        if (ch->cand[i].started < ch->trials &&
            (pick < 0 || ch->cand[i].started < ch->cand[pick].started))
            pick = i;
    ch->next = pick >= 0 ? pick : fastest(ch);
}

int plan_choice_close(uint64_t t_ps, uint64_t best_ps, uint32_t margin_pct, uint64_t slack_ps)
{
    return t_ps <= best_ps || t_ps - best_ps <= slack_ps ||
           (unsigned __int128)t_ps * 100 <= (unsigned __int128)best_ps * (100u + margin_pct);
}

void plan_choice_init(plan_choice *ch, const plan_candidate *cands, int n, uint32_t margin_pct,
                      uint64_t slack_ps, uint32_t trials)
{
    memset(ch, 0, sizeof *ch);
    for (int i = 0; i < n; i++) { /* insertion sort: n is at most PLAN_ALGO_COUNT */
        plan_candidate c = cands[i];
        c.best_ps = c.score_ps = UINT64_MAX;
        c.runs = c.started = 0;
        int k = ch->n++;
        while (k > 0 && before(&c, &ch->cand[k - 1])) {
            ch->cand[k] = ch->cand[k - 1];
            k--;
        }
        ch->cand[k] = c;
    }
    ch->trials = trials;
    int explore = 0;
    for (int i = 0; i < ch->n && explore < PLAN_CHOICE_EXPLORE_MAX; i++)
        if (plan_choice_close(ch->cand[i].model_ps, ch->cand[0].model_ps, margin_pct, slack_ps))
            explore++;
    int native = find(ch, PLAN_ALGO_NATIVE);
    if (native >= explore) { /* move native into the explored prefix, last */
        plan_candidate c = ch->cand[native];
        if (explore == PLAN_CHOICE_EXPLORE_MAX)
            explore--;
        memmove(&ch->cand[explore + 1], &ch->cand[explore],
                sizeof c * (size_t)(native - explore));
        ch->cand[explore++] = c;
    }
    ch->explore = explore;
    ch->next = 0;
    if (trials == 0 || explore < 2)
        settle(ch);
}

plan_algo plan_choice_next(const plan_choice *ch)
{
    return ch->cand[ch->next].algo;
}

void plan_choice_start(plan_choice *ch, plan_algo algo)
{
    int i = find(ch, algo);
    if (ch->settled || i < 0 || i >= ch->explore)
        return;
    ch->cand[i].started++;
    advance(ch);
}

void plan_choice_record(plan_choice *ch, plan_algo ran, uint64_t measured_ps)
{
    int i = find(ch, ran);
    if (ch->settled || i < 0 || i >= ch->explore)
        return;
    plan_candidate *c = &ch->cand[i];
    c->runs++;
    if (measured_ps < c->best_ps)
        c->best_ps = measured_ps;
    plan_samples *second = &ch->second[i];
    if (!ch->reopened)
        c->score_ps = c->best_ps;
    else if (second->n < PLAN_CHOICE_SECOND) {
        second->t[second->n++] = measured_ps;
        c->score_ps = lower_median(second->t, second->n);
    }
    advance(ch);
}

int plan_choice_reopen(plan_choice *ch)
{
    if (!ch->settled || ch->reopened || ch->explore < 2 || ch->trials == 0)
        return 0;
    for (int i = 0; i < ch->explore; i++) {
        ch->cand[i].runs = ch->cand[i].started = ch->second[i].n = 0;
        ch->cand[i].score_ps = UINT64_MAX;
    }
    if (ch->trials <= (UINT32_MAX - 1) / 2)
        ch->trials = 2 * ch->trials + 1;
    ch->settled = 0;
    ch->reopened = 1;
    advance(ch);
    return 1;
}

void plan_choice_drop(plan_choice *ch, plan_algo algo)
{
    int i = find(ch, algo);
    if (i < 0 || ch->n == 1)
        return;
    plan_algo current = plan_choice_next(ch);
    memmove(&ch->cand[i], &ch->cand[i + 1], sizeof ch->cand[0] * (size_t)(ch->n - i - 1));
    ch->n--;
    if (i < ch->explore) { /* the explored candidates after it keep their samples */
        memmove(&ch->second[i], &ch->second[i + 1],
                sizeof ch->second[0] * (size_t)(ch->explore - i - 1));
        ch->explore--;
    }
    int at = find(ch, current);
    ch->next = at >= 0 ? at : 0;
    if (ch->settled) {
        if (at < 0)
            settle(ch); /* the final choice could not run: the fastest of the rest */
        return;
    }
    advance(ch);
}
