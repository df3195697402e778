/* Choosing among candidate families by model, then by measurement (see choose.h). */
#include <string.h>

#include "plan/choose_rules.h"
#include "plan/learn.h"

/* Orders candidates by model, then by family number, then by variant. */
static int before(const plan_candidate *a, const plan_candidate *b)
{
    if (a->model_ps != b->model_ps)
        return a->model_ps < b->model_ps;
    return a->algo != b->algo ? a->algo < b->algo : a->variant < b->variant;
}

/* Index of the first candidate of family algo, or -1. */
static int find_family(const plan_choice *ch, plan_algo algo)
{
    for (int i = 0; i < ch->n; i++)
        if (ch->cand[i].algo == algo)
            return i;
    return -1;
}

/* The smallest, over the explored candidates measured at least twice in this round, of their
 * slowest call (UINT64_MAX if none): what a clear loser's fastest call is compared with, so
 * that one lucky call of a candidate fast only now and then drops nobody. *who is the
 * candidate it comes from (-1 if none). */
static uint64_t loss_bar(const plan_choice *ch, int *who)
{
    uint64_t bar = UINT64_MAX, lo, worst;
    *who = -1;
    for (int i = 0; i < ch->explore; i++) {
        choice_extremes(&ch->samples[i], &lo, &worst);
        if (ch->samples[i].n >= 2 && worst < bar) {
            bar = worst;
            *who = i;
        }
    }
    return bar;
}

/* Whether explored candidate who's calls of the round spread by more than PLAN_CHOICE_LOSS
 * percent (its slowest against its fastest). */
static int spread(const plan_choice *ch, int who)
{
    return choice_spread_beyond(ch, who, PLAN_CHOICE_LOSS);
}

/* model, for explored candidate i, raised to the score of any other variant of its family
 * measured in the round: a variant is no faster than its family as measured (on 16 emulated
 * hosts `direct` was modeled 1.3 x faster than MPI's algorithm on `uniform` and measured as
 * fast, and its small-window variant then lost). */
static uint64_t family_model(const plan_choice *ch, int i, uint64_t model)
{
    for (int k = 0; k < ch->explore; k++)
        if (k != i && ch->cand[k].algo == ch->cand[i].algo && ch->cand[k].runs &&
            ch->cand[k].score_ps > model)
            model = ch->cand[k].score_ps;
    return model;
}

/* Whether explored candidate i's calls of the round cannot show it a clear loser against the
 * loss bar set by candidate `who` (loss_bar): across a network (plan_choice_network) each of
 * its measured calls (none yet, or a pattern's first call and one after MPI's block) followed
 * another candidate's (and inherited that one's connections, or a gather); and
 * - in the first round, i's model (family_model) beats who's by the
 *   loss margin, or by the forecast's safety margin (PLAN_FORECAST_SAFETY: what a model must
 *   claim for a pattern to be gathered) where who's own calls spread by more than the loss
 *   margin (a network whose calls vary that much cannot judge by one call);
 * - in a later round, i's fastest measured call (of any round) beats who's by the loss margin
 *   (under TCP BBR node-direct's 0.4 s calls against MPI's 1.4 s: a round that measured them
 *   both must not be stalled by one cold call of 2 - 5 s; where they measured alike, as
 *   `direct` and MPI's algorithm on 16 emulated hosts, one cold call judges).
 * A plan modeled or measured to tie is judged by one cold call. */
static int cold_exempt(const plan_choice *ch, int i, int who)
{
    const plan_samples *r = &ch->samples[i];
    if (!ch->network || r->warm || !choice_cold_call(r, 0) || who < 0 || who == i)
        return 0;
    if (ch->reopened)
        return ch->cand[i].best_ps != UINT64_MAX &&
               choice_beyond(ch->cand[who].best_ps, ch->cand[i].best_ps, PLAN_CHOICE_LOSS);
    uint64_t mine = family_model(ch, i, ch->cand[i].model_ps), theirs = ch->cand[who].model_ps;
    return choice_beyond(theirs, mine, PLAN_CHOICE_LOSS) ||
           (choice_beyond(theirs, mine, 100u + PLAN_FORECAST_SAFETY) && spread(ch, who));
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

/* The lower median of explored candidate i's calls t[from .. n) of the round where, across a
 * network (plan_choice_network), a plan's cold call (one that followed another candidate's)
 * counts as no slower than its slowest warm call of the round, if it has one: once settled, the
 * plan's calls follow its own (under TCP BBR in blocks node-direct's calls after MPI's block
 * took 3.2 and 4.8 s, its warm one 0.57 s, MPI's 1.4 s). */
static uint64_t round_score(const plan_choice *ch, int i, uint32_t from)
{
    const plan_samples *r = &ch->samples[i];
    uint64_t v[PLAN_CHOICE_SECOND], cap = 0;
    for (uint32_t k = 0; ch->network && !choice_is_native(&ch->cand[i]) && k < r->n; k++)
        if (!choice_cold_call(r, k) && r->t[k] > cap) /* k < PLAN_CHOICE_SECOND: call k */
            cap = r->t[k];
    for (uint32_t k = from; k < r->n; k++)
        v[k - from] = cap && choice_cold_call(r, k) && r->t[k] > cap ? cap : r->t[k];
    return lower_median(v, r->n - from);
}

/* Counts measured_ps as explored candidate i's next measured call of the round (measurements
 * arrive in the order the calls started): its fastest, samples and score. */
static void note(plan_choice *ch, int i, uint64_t measured_ps)
{
    plan_candidate *c = &ch->cand[i];
    c->runs++;
    if (measured_ps < c->best_ps)
        c->best_ps = measured_ps;
    plan_samples *round = &ch->samples[i];
    round->warm += !choice_cold_call(round, c->runs - 1);
    if (round->n < PLAN_CHOICE_SECOND) {
        round->t[round->n++] = measured_ps;
        uint32_t window = choice_is_native(c) ? PLAN_CHOICE_SECOND : ch->trials;
        c->score_ps = round_score(ch, i, round->n > window ? round->n - window : 0);
    }
}

/* Settles on the explored candidate with the smallest score (the best model if none
 * measured); MPI's algorithm, where measured, stays unless another beats its score by more
 * than ch->edge percent (a plan must win by more than the noise of a few calls); where it
 * stays, the fastest measured plan is watched (ch->tied) unless more than PLAN_CHOICE_EDGE
 * percent slower than it. */
static void settle(plan_choice *ch)
{
    int best = fastest(ch), native = choice_find(ch, PLAN_ALGO_NATIVE, 0);
    if (native >= 0 && native < ch->explore && ch->cand[native].score_ps != UINT64_MAX &&
        ch->cand[best].algo != PLAN_ALGO_NATIVE &&
        (unsigned __int128)ch->cand[best].score_ps * (100u + ch->edge) >
            (unsigned __int128)ch->cand[native].score_ps * 100u)
        best = native;
    ch->next = best;
    ch->settled = 1;
    ch->tied = 0;
    ch->watched = 0;
    if (best != native || ch->cand[native].score_ps == UINT64_MAX)
        return;
    int rival = -1; /* the fastest measured plan */
    for (int i = 0; i < ch->explore; i++)
        if (i != native && ch->cand[i].score_ps != UINT64_MAX &&
            (rival < 0 || ch->cand[i].score_ps < ch->cand[rival].score_ps))
            rival = i;
    if (rival >= 0 && !choice_beyond(ch->cand[rival].score_ps, ch->cand[native].score_ps,
                                     100u + PLAN_CHOICE_EDGE))
        ch->tied = rival + 1;
}

/* Whether r's last measured call was more than PLAN_CHOICE_WARM percent faster than the one
 * before. */
static int gets_faster(const plan_samples *r)
{
    return r->n >= 2 && (unsigned __int128)r->t[r->n - 1] * 100 <
                            (unsigned __int128)r->t[r->n - 2] * (100u - PLAN_CHOICE_WARM);
}

/* Whether candidate i is a plan started fewer than PLAN_CHOICE_SECOND times whose last measured
 * call was more than PLAN_CHOICE_WARM percent faster than the one before. */
static int still_warming(const plan_choice *ch, int i)
{
    return !choice_is_native(&ch->cand[i]) && ch->cand[i].started < PLAN_CHOICE_SECOND &&
           gets_faster(&ch->samples[i]);
}

/* Whether explored candidate i, a plan whose block reached its trials, is still warming up:
 * its last measured call was more than PLAN_CHOICE_WARM percent faster than the one before and
 * faster than every other explored candidate's score, and it was started fewer than
 * PLAN_CHOICE_SECOND times. MPI's algorithm never is: it is the reference, measured as the
 * program runs it. */
static int warming(const plan_choice *ch, int i)
{
    const plan_samples *r = &ch->samples[i];
    if (!still_warming(ch, i))
        return 0;
    for (int k = 0; k < ch->explore; k++)
        if (k != i && ch->cand[k].score_ps <= r->t[r->n - 1])
            return 0;
    return 1;
}

/* Whether the first round would settle on a plan that MPI's algorithm's fastest call of the
 * round, or before it (plan_choice_native_seen), beats or ties (by the settling rule), while
 * MPI's calls were measured only `trials` times (fewer than PLAN_CHOICE_SECOND): MPI's calls on
 * a congested network can be fast or slow (two modes), and a few of them in the slow mode must
 * not hand the pattern to a plan that loses to the fast one (16 emulated hosts, `powerlaw`:
 * MPI's calls 67 - 74 ms before the round, 78 - 137 in it; `direct` settled at 71 and took
 * 1.24 x MPI's time over the run, its own calls slow as often). */
static int in_doubt(const plan_choice *ch)
{
    int best = fastest(ch), native = choice_find(ch, PLAN_ALGO_NATIVE, 0);
    if (ch->reopened || native < 0 || native >= ch->explore || ch->reference != ch->trials ||
        ch->trials >= PLAN_CHOICE_SECOND || choice_is_native(&ch->cand[best]) ||
        ch->cand[native].score_ps == UINT64_MAX)
        return 0;
    uint64_t fast = choice_fastest_call(ch, native);
    unsigned __int128 won = (unsigned __int128)ch->cand[best].score_ps * (100u + ch->edge);
    return won <= (unsigned __int128)ch->cand[native].score_ps * 100u &&
           won > (unsigned __int128)fast * 100u;
}

/* MPI's calls seen before the round that can stand for its block (see seen_stands). */
enum { PLAN_CHOICE_SEEN = 2 };

/* Whether, across a network, MPI's calls seen before the round stand for its block of the first
 * round (plan_choice_start): it is explored and was not started in the round, at least
 * PLAN_CHOICE_SEEN of its calls were seen, every other explored candidate was measured to its
 * target (or is done), and the fastest one's score beats each call seen by PLAN_CHOICE_EDGE
 * percent. */
static int seen_stands(const plan_choice *ch)
{
    int native = choice_find(ch, PLAN_ALGO_NATIVE, 0), best = fastest(ch);
    if (!ch->network || ch->reopened || native < 0 || native >= ch->explore ||
        ch->cand[native].started || ch->seen_n < PLAN_CHOICE_SEEN || best == native ||
        ch->cand[best].score_ps == UINT64_MAX)
        return 0;
    for (int i = 0; i < ch->explore; i++)
        if (i != native && ch->cand[i].runs < choice_target(ch, i))
            return 0;
    return (unsigned __int128)ch->cand[best].score_ps * (100u + PLAN_CHOICE_EDGE) <=
           (unsigned __int128)choice_seen_fastest(ch) * 100u;
}

/* Counts MPI's calls seen before the round as its block's (seen_stands): its score is theirs. */
static void stand_in(plan_choice *ch)
{
    int native = choice_find(ch, PLAN_ALGO_NATIVE, 0);
    for (uint32_t k = 0; k < ch->seen_n; k++) {
        ch->cand[native].started++;
        note(ch, native, ch->seen[k]);
    }
}

void choice_advance(plan_choice *ch)
{
    if (ch->settled)
        return;
    if (ch->explore < 2) {
        settle(ch);
        return;
    }
    int last = ch->last;
    if (last >= 0 && last < ch->explore &&
        (ch->cand[last].started < choice_target(ch, last) || warming(ch, last))) {
        ch->next = last;
        return;
    }
    for (int i = 0; i < ch->explore; i++)
        if (choice_window_moot(ch, i))
            choice_done(ch, i);
    if (seen_stands(ch)) {
        stand_in(ch);
        settle(ch);
        return;
    }
    int measured = 1;
    for (int i = 0; i < ch->explore; i++)
        measured &= ch->cand[i].runs >= choice_target(ch, i);
    if (measured && in_doubt(ch)) {
        uint32_t more = 2 * ch->trials + 1;
        ch->reference = more < PLAN_CHOICE_SECOND ? more : PLAN_CHOICE_SECOND;
        measured = 0;
    }
    if (measured) {
        settle(ch);
        return;
    }
    int pick = choice_find(ch, PLAN_ALGO_NATIVE, 0);
    if (pick < 0 || pick >= ch->explore || ch->cand[pick].started >= choice_target(ch, pick)) {
        pick = -1;
        for (int i = 0; i < ch->explore; i++)
            if (ch->cand[i].started < choice_target(ch, i) &&
                !choice_window_waits(ch, choice_window_base(ch, i)) &&
                (pick < 0 || ch->cand[i].started < ch->cand[pick].started))
                pick = i;
    }
    ch->next = pick >= 0 ? pick : fastest(ch);
}

int plan_choice_close(uint64_t t_ps, uint64_t best_ps, uint32_t margin_pct)
{
    return t_ps <= best_ps ||
           (unsigned __int128)t_ps * 100 <= (unsigned __int128)best_ps * (100u + margin_pct);
}

int plan_choice_worth(const plan_candidate *c, uint64_t mpi_ps)
{
    return c->algo == PLAN_ALGO_NATIVE ||
           choice_beyond(mpi_ps, c->model_ps, 100u + PLAN_CHOICE_EDGE);
}

void plan_choice_init(plan_choice *ch, const plan_candidate *cands, int n, uint32_t margin_pct,
                      uint32_t trials)
{
    memset(ch, 0, sizeof *ch);
    ch->edge = PLAN_CHOICE_EDGE;
    for (int i = 0; i < n && i < PLAN_CHOICE_MAX; i++) { /* insertion sort: n is small */
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
    ch->trials = ch->reference = trials;
    int explore = 0;
    for (int i = 0; i < ch->n && explore < PLAN_CHOICE_EXPLORE_MAX; i++)
        if (plan_choice_close(ch->cand[i].model_ps, ch->cand[0].model_ps, margin_pct))
            explore++;
    int native = find_family(ch, PLAN_ALGO_NATIVE);
    if (native >= explore) { /* move native into the explored prefix, last */
        plan_candidate c = ch->cand[native];
        if (explore == PLAN_CHOICE_EXPLORE_MAX)
            explore--;
        memmove(&ch->cand[explore + 1], &ch->cand[explore], sizeof c * (size_t)(native - explore));
        ch->cand[explore++] = c;
    }
    ch->explore = explore;
    ch->next = 0;
    ch->last = -1;
    if (trials == 0 || explore < 2)
        settle(ch);
}

void plan_choice_opened(plan_choice *ch, plan_algo algo, int variant)
{
    int i = choice_find(ch, algo, variant);
    if (ch->settled || i < 0 || i >= ch->explore || ch->last >= 0)
        return;
    ch->next = ch->last = i;
}

const plan_candidate *plan_choice_opening(const plan_choice *ch)
{
    return &ch->cand[0];
}

plan_algo plan_choice_next(const plan_choice *ch)
{
    return ch->cand[ch->next].algo;
}

const plan_candidate *plan_choice_current(const plan_choice *ch)
{
    return &ch->cand[ch->next];
}

/* A borrowed model is only lowered by MPI's ratio: that ratio came, under TCP BBR, from calls
 * 2 x the round's (node-direct, modeled 0.75 x MPI's, waited for the budget). */
uint64_t plan_choice_estimate(const plan_choice *ch, const plan_candidate *c)
{
    int k = choice_find(ch, PLAN_ALGO_NATIVE, 0), i = choice_find(ch, c->algo, c->variant);
    int mpi = ch->network && k >= 0 && k < ch->explore && ch->cand[k].runs; /* in the round */
    uint64_t model = c->model_ps;
    if (mpi && c->borrowed && ch->cand[k].score_ps < ch->cand[k].model_ps) /* only lowered */
        model = (uint64_t)((unsigned __int128)model * ch->cand[k].score_ps / ch->cand[k].model_ps);
    if (!c->runs)
        return model;
    if (mpi && !choice_is_native(c) && i >= 0 && i < ch->explore && !ch->samples[i].warm &&
        (model = family_model(ch, i, model)) < c->score_ps) /* all cold: an upper bound */
        return model;
    return c->score_ps;
}

const plan_candidate *plan_choice_best(const plan_choice *ch)
{
    if (ch->settled)
        return &ch->cand[ch->next];
    int best = 0;
    uint64_t t = UINT64_MAX;
    for (int i = 0; i < ch->explore; i++) {
        uint64_t e = plan_choice_estimate(ch, &ch->cand[i]);
        if (e < t) {
            t = e;
            best = i;
        }
    }
    return &ch->cand[best];
}

const plan_candidate *plan_choice_incumbent(const plan_choice *ch)
{
    const plan_candidate *best = plan_choice_best(ch);
    if (ch->settled || best->runs || best->algo == PLAN_ALGO_NATIVE)
        return best;
    int i = find_family(ch, PLAN_ALGO_NATIVE);
    return i >= 0 ? &ch->cand[i] : best;
}

const plan_candidate *plan_choice_find(const plan_choice *ch, plan_algo algo, int variant)
{
    int i = choice_find(ch, algo, variant);
    return i >= 0 ? &ch->cand[i] : NULL;
}

plan_wait plan_choice_explore_wait(const plan_choice *ch, const plan_candidate *c)
{
    uint64_t best = plan_choice_estimate(ch, plan_choice_incumbent(ch));
    uint64_t est = plan_choice_estimate(ch, c);
    return (plan_wait){.pred_ps = plan_budget_predicted(est, best), .est_ps = est, .best_ps = best};
}

/* Marks explored candidate i's next call to start (its call `started` of the round) as cold:
 * it follows another candidate's call (calls from the 33rd on are never marked). */
static void mark_cold(plan_choice *ch, int i)
{
    if (ch->cand[i].started < 32)
        ch->samples[i].cold |= 1u << ch->cand[i].started;
}

/* The order of a round's calls: its candidates in blocks of consecutive calls, not in turns (on
 * a TCP network a call leaves its connections' state to the next one). The next call runs
 * the candidate started last until it was started `trials` times, and a plan (not MPI's algorithm,
 * the reference) further, at most PLAN_CHOICE_SECOND times, while it is still warming up: its last
 * measured call was more than PLAN_CHOICE_WARM percent faster than the one before and faster than
 * every other explored candidate's score. Then MPI's algorithm's block if it was started fewer than
 * `trials` times (a plan explored after it is charged against its measured time, and one whose
 * first call loses clearly runs no more), else that of the explored candidate started the fewest
 * times (the lowest index on ties); once every explored candidate was started `trials` times, the
 * fastest measured so far until the choice settles. In the first round, where it would settle on a
 * plan that MPI's fastest call of the round (or seen before it: plan_choice_native_seen) beats (by
 * PLAN_CHOICE_EDGE percent), MPI's block goes on to 2 trials + 1 calls (at most PLAN_CHOICE_SECOND)
 * first (choose.c's in_doubt). Across a network, where MPI's block of the first round is not begun,
 * every plan explored was measured, and the fastest one's score beats each of MPI's calls seen
 * before the round (at least two) by PLAN_CHOICE_EDGE percent, those calls stand for MPI's block
 * and the choice settles on the plan: a switch back would cost its warming up again. The first
 * round's first block is that of the pattern's first call (plan_choice_opened), else the best
 * model's; the second round's is MPI's.
 *
 * Blocks, not turns: on 8 emulated hosts x 4 ranks one message per NIC took 1.2 - 1.6 x its own
 * time right after MPI's algorithm's lossy calls, and 5 - 6 calls of its own to get back to it;
 * MPI's calls seen before the round stand for its block since a switch back would cost a plan's
 * warming up again (node-direct, `permutation`: 560 -> 360 ms a call, twice). */
void plan_choice_start(plan_choice *ch, plan_algo algo, int variant)
{
    int i = choice_find(ch, algo, variant);
    if (ch->settled || i < 0 || i >= ch->explore)
        return;
    if (ch->last != i)
        mark_cold(ch, i);
    ch->cand[i].started++;
    ch->last = i;
    choice_advance(ch);
}

void plan_choice_native_seen(plan_choice *ch, const uint64_t *t, uint32_t n)
{
    uint32_t from = n > PLAN_CHOICE_SECOND ? n - PLAN_CHOICE_SECOND : 0;
    ch->seen_n = n - from;
    memcpy(ch->seen, t + from, sizeof *t * ch->seen_n);
}

/* Measured: a candidate's first call after another's on 8 emulated hosts x 4 ranks under TCP
 * BBR took 0.7 - 5.3 s against 0.34 - 0.52 s once warm. */
void plan_choice_network(plan_choice *ch)
{
    ch->network = 1;
}

/* Within one node MPI's algorithm and the plans move the same bytes through the same memory,
 * and blocks of calls spread more than PLAN_CHOICE_EDGE: on 2 ranks of one node an FFT's
 * transpose measured `direct` 5 - 7 % slower than MPI's algorithm in one round and 6 % faster
 * in the next, and was 4 - 6 % slower over the runs that settled on it. */
void plan_choice_shared(plan_choice *ch)
{
    ch->edge = PLAN_CHOICE_EDGE_SHARED;
}

void plan_choice_bound(plan_choice *ch, uint64_t bound_ps)
{
    ch->bound_ps = bound_ps;
}

/* Whether explored candidate i's block, across a network, still warms up towards a win the
 * budget must not cut short: i is a plan started fewer than PLAN_CHOICE_SECOND times in the
 * round, its last measured call was more than PLAN_CHOICE_WARM percent faster than the one
 * before (gets_faster), and its model (no faster than its family's measured score) beats the
 * incumbent's estimate by PLAN_CHOICE_EDGE percent. */
static int warming_to_win(const plan_choice *ch, int i)
{
    if (!ch->network || !still_warming(ch, i))
        return 0;
    uint64_t best = plan_choice_estimate(ch, plan_choice_incumbent(ch));
    return (unsigned __int128)family_model(ch, i, ch->cand[i].model_ps) *
               (100u + PLAN_CHOICE_EDGE) <=
           (unsigned __int128)best * 100u;
}

int plan_choice_unjudged(const plan_choice *ch)
{
    int i = ch->next, who;
    if (ch->settled || i != ch->last || i >= ch->explore)
        return 0;
    loss_bar(ch, &who);
    return cold_exempt(ch, i, who) || warming_to_win(ch, i);
}

/* The lower median of the last `trials`: a candidate fast only now and then must not win by
 * one lucky call, and a plan whose block went on while it warmed up is scored by its warm
 * calls. */
void plan_choice_record(plan_choice *ch, plan_algo ran, int variant, uint64_t measured_ps)
{
    int i = choice_find(ch, ran, variant);
    if (ch->settled || i < 0 || i >= ch->explore)
        return;
    note(ch, i, measured_ps);
    int who;
    uint64_t bar = loss_bar(ch, &who);
    for (int k = 0; !ch->reopened && bar != UINT64_MAX && k < ch->explore; k++)
        if (ch->cand[k].best_ps != UINT64_MAX && !cold_exempt(ch, k, who) &&
            choice_beyond(choice_fastest_call(ch, k), bar, PLAN_CHOICE_LOSS))
            choice_done(ch, k);
    choice_advance(ch);
}

uint64_t plan_choice_first_bar(const plan_choice *ch, plan_algo algo, int variant)
{
    int i = choice_find(ch, algo, variant);
    if (i < 0 || i >= ch->explore)
        return UINT64_MAX;
    uint64_t bar = UINT64_MAX;
    for (int k = 0; k < ch->explore; k++)
        if (k != i && plan_choice_estimate(ch, &ch->cand[k]) < bar)
            bar = plan_choice_estimate(ch, &ch->cand[k]);
    return bar;
}

int plan_choice_first(plan_choice *ch, plan_algo algo, int variant, uint64_t whole_ps,
                      uint64_t bar_ps)
{
    int i = choice_find(ch, algo, variant);
    if (ch->settled || i < 0 || i >= ch->explore || whole_ps >= bar_ps)
        return 0;
    if (ch->network) /* it followed another pattern's calls */
        mark_cold(ch, i);
    plan_choice_start(ch, algo, variant);
    plan_choice_record(ch, algo, variant, whole_ps);
    return 1;
}

/* Removes candidate i (see plan_choice_drop). */
static void drop_one(plan_choice *ch, int i)
{
    const plan_candidate *cur = plan_choice_current(ch);
    plan_algo current = cur->algo;
    int current_variant = cur->variant;
    memmove(&ch->cand[i], &ch->cand[i + 1], sizeof ch->cand[0] * (size_t)(ch->n - i - 1));
    ch->n--;
    if (i < ch->explore) { /* the explored candidates after it keep their samples */
        memmove(&ch->samples[i], &ch->samples[i + 1],
                sizeof ch->samples[0] * (size_t)(ch->explore - i - 1));
        ch->explore--;
    }
    ch->last = ch->last == i ? -1 : ch->last > i ? ch->last - 1 : ch->last;
    ch->tied = ch->tied == i + 1 ? 0 : ch->tied > i + 1 ? ch->tied - 1 : ch->tied;
    int at = choice_find(ch, current, current_variant);
    ch->next = at >= 0 ? at : 0;
    if (ch->settled) {
        if (at < 0)
            settle(ch); /* the final choice could not run: the fastest of the rest */
        return;
    }
    choice_advance(ch);
}

void plan_choice_drop(plan_choice *ch, plan_algo algo)
{
    int i;
    while ((i = find_family(ch, algo)) >= 0 && ch->n > 1)
        drop_one(ch, i);
}

void plan_choice_remove(plan_choice *ch, plan_algo algo, int variant)
{
    int i = choice_find(ch, algo, variant);
    if (i >= 0 && ch->n > 1)
        drop_one(ch, i);
}
