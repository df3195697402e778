/* Whether a measured choice's plans all lost to MPI's algorithm (see choose_lost.h). */
#include "plan/choose_lost.h"

#include "plan/choose_rules.h"

/* What candidate i counts by in plan_choice_plans_lost: its fastest call; across a network its
 * fastest call of the round that followed one of its own (UINT64_MAX: none). */
static uint64_t lost_time(const plan_choice *ch, int i)
{
    if (!ch->network)
        return ch->cand[i].best_ps;
    uint64_t t = UINT64_MAX;
    const plan_samples *r = i < ch->explore ? &ch->samples[i] : NULL;
    for (uint32_t k = 0; r && k < r->n; k++)
        if (!choice_cold_call(r, k) && r->t[k] < t)
            t = r->t[k];
    return t;
}

int plan_choice_plans_lost(const plan_choice *ch, plan_algo first, int first_variant,
                           uint64_t first_exchange_ps)
{
    const plan_candidate *mpi = plan_choice_find(ch, PLAN_ALGO_NATIVE, 0);
    if (!mpi || mpi->best_ps == UINT64_MAX)
        return 0;
    int plans = 0;
    for (int i = 0; i < ch->n; i++) {
        const plan_candidate *c = &ch->cand[i];
        uint64_t t = lost_time(ch, i);
        if (c->best_ps == UINT64_MAX && !ch->network && first_exchange_ps && c->algo == first &&
            c->variant == first_variant)
            t = first_exchange_ps;
        if (c->algo == PLAN_ALGO_NATIVE || t == UINT64_MAX)
            continue;
        if ((unsigned __int128)t * 100 <
            (unsigned __int128)mpi->best_ps * (100 - (ch->edge < 100 ? ch->edge : 99)))
            return 0;
        plans++;
    }
    return plans > 0;
}
