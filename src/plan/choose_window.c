/* When a family's small-window variant (PLAN_VARIANT_SMALL_WINDOW) is measured in a first
 * round: not before its family and MPI's algorithm were, unless calls stall; not at all where
 * its family lost and nothing stalls (see choose_rules.h). */
#include "plan/choose_rules.h"
#include "plan/learn.h"

int choice_window_base(const plan_choice *ch, int i)
{
    const plan_candidate *c = &ch->cand[i];
    if (ch->reopened || c->variant != PLAN_VARIANT_SMALL_WINDOW || c->algo == PLAN_ALGO_NATIVE)
        return -1;
    int b = choice_find(ch, c->algo, PLAN_VARIANT_BASE);
    return b >= 0 && b < ch->explore && ch->cand[b].model_ps <= c->model_ps ? b : -1;
}

/* Whether explored candidate i's calls of the round stall (-1: none): its slowest took more
 * than PLAN_CHOICE_STALL percent of its fastest (a lost packet's retransmission timeout, not
 * the noise of a few percent). */
static int stalls(const plan_choice *ch, int i)
{
    return choice_spread_beyond(ch, i, PLAN_CHOICE_STALL);
}

/* Whether explored candidate i's fastest measured call (choice_fastest_call) took more than
 * PLAN_CHOICE_FAR percent of the pattern's bound, where that is known (-1: none). */
static int far(const plan_choice *ch, int i)
{
    return i >= 0 && i < ch->explore && ch->bound_ps && choice_fastest_call(ch, i) != UINT64_MAX &&
           choice_beyond(choice_fastest_call(ch, i), ch->bound_ps, PLAN_CHOICE_FAR);
}

/* Whether MPI's calls stall: of its calls of the round and, across a network, those seen
 * before it (plan_choice_native_seen), at least two, the slowest took more than
 * PLAN_CHOICE_STALL percent of the fastest. The calls seen count because the round's own can
 * all be lucky: on 16 emulated hosts with 20 ms switch buffers `samplesort`'s calls of MPI's
 * algorithm took 95 - 287 ms before the round and 94 in it, `direct` lost, its window of 4 was
 * never measured, and half the runs gained nothing (the runs that measured it took 0.79 -
 * 1.01 x MPI's time). */
static int native_stalls(const plan_choice *ch)
{
    int native = choice_find(ch, PLAN_ALGO_NATIVE, 0);
    if (native < 0 || native >= ch->explore)
        return 0;
    uint64_t lo, hi;
    uint32_t n = ch->samples[native].n;
    choice_extremes(&ch->samples[native], &lo, &hi);
    if (ch->network) {
        choice_widen(ch->seen, ch->seen_n, &lo, &hi);
        n += ch->seen_n;
    }
    return n >= 2 && choice_beyond(hi, lo, PLAN_CHOICE_STALL);
}

/* Whether a window variant whose family is explored candidate b (choice_window_base; -1: none)
 * waits for measurements: MPI's algorithm is explored and not measured to its target, or the
 * family is not, unless it was measured and MPI's calls stall (native_stalls) or the fastest calls
 * of both are far from the bound (far: every call stalls alike). The family's further calls wait
 * for the budget and would tell nothing the window does not: on 16 emulated hosts with 5 ms switch
 * buffers `hot-receivers`' variant ran first at call 12 - 23 of 31 behind them, and with 20 ms
 * `samplesort`'s never ran in 4 of 6 runs of 61 calls ("the next 8 (16, 32) calls run MPI's
 * algorithm unchecked" after `direct`'s first call). */
int choice_window_waits(const plan_choice *ch, int b)
{
    int native = choice_find(ch, PLAN_ALGO_NATIVE, 0);
    if (b < 0)
        return 0;
    if (native >= 0 && native < ch->explore && ch->cand[native].runs < choice_target(ch, native))
        return 1;
    return ch->cand[b].runs < choice_target(ch, b) &&
           !(ch->cand[b].runs && (native_stalls(ch) || (far(ch, b) && far(ch, native))));
}

/* Whether the calls of explored candidate b (choice_window_base) or of MPI's algorithm stall as a
 * small window may mend: either one's calls stall (b's of the round; MPI's: native_stalls), or
 * both are far from the bound (every call stalls alike). */
static int window_mends(const plan_choice *ch, int b)
{
    int native = choice_find(ch, PLAN_ALGO_NATIVE, 0);
    return stalls(ch, b) || native_stalls(ch) || (far(ch, b) && far(ch, native));
}

/* Whether explored candidate i, not started yet, need not be measured (choice_window_base): its
 * family was measured and does not win, i.e. does not beat some other explored candidate's score
 * (its own variant's aside) by PLAN_CHOICE_EDGE percent, and the calls of neither stall
 * (window_mends). A variant is estimated no faster than its family as measured (choose.c's
 * family_model), so on a steady network it could only win where its family does; measuring it
 * anyway costs a cold call (16 emulated hosts, 1 MiB per rank: 1.25 - 2 x MPI's on `uniform` and
 * `cyclic-pq`, where `direct` measured as fast as MPI's algorithm, about 2 % of a 31-call run).
 * Where calls stall (lost packets and TCP's retransmission timeouts under incast), fewer
 * operations in flight can avoid the losses: on 16 emulated hosts with 5 ms switch buffers
 * `samplesort`'s calls of MPI's algorithm and of `direct` took 110 or 270 ms alike, and `direct`
 * with a window of 4 took 105 - 115 ms; on `hot-receivers` every call of both took 2.6 - 3 x the
 * bound, nothing spread, and the window of 4 took 1.2 - 1.3 x. */
int choice_window_moot(const plan_choice *ch, int i)
{
    int b = choice_window_base(ch, i);
    if (b < 0 || ch->cand[i].started || choice_window_waits(ch, b) || window_mends(ch, b))
        return 0;
    for (int k = 0; k < ch->explore; k++)
        if (k != b && k != i && ch->cand[k].score_ps != UINT64_MAX &&
            (unsigned __int128)ch->cand[b].score_ps * (100u + PLAN_CHOICE_EDGE) >
                (unsigned __int128)ch->cand[k].score_ps * 100u)
            return 1;
    return 0;
}
