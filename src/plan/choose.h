/* Choosing the family of a repeated exchange: first by modeled cost, then, while the pattern
 * repeats, by measuring the candidates whose model is close to the best and keeping the
 * fastest; a candidate whose measured call loses clearly is not measured again. A candidate is
 * a family and a variant of it (the caller's: the shim runs a family with its configured window
 * or a small one). Pure C, no MPI, integer arithmetic: fed the same costs and the same measured
 * times (agreed over ranks by the caller), every rank makes the same choices. */
#ifndef HRELAY_PLAN_CHOOSE_H
#define HRELAY_PLAN_CHOOSE_H

#include <stdint.h>

#include "plan/budget.h"
#include "plan/plan.h"

/* At most this many candidates are measured before settling; of a round's calls of a candidate, the
 * first PLAN_CHOICE_SECOND are kept, the median of the last `trials` of them (of all for MPI's
 * algorithm) is its score. At most PLAN_CHOICE_MAX candidates: every family and one more variant.
 * In the first round a measured candidate whose fastest call is more than PLAN_CHOICE_LOSS percent
 * of the slowest call of another candidate measured at least twice is not measured again; the
 * second round measures only candidates whose first-round score was within PLAN_CHOICE_CLOSE
 * percent of the best. Settling keeps MPI's algorithm unless another candidate's score beats its
 * own by more than PLAN_CHOICE_EDGE percent (on one node _SHARED). Once settled, a choice whose
 * candidate measures PLAN_CHOICE_STRIKES of its last PLAN_CHOICE_WATCH calls more than
 * PLAN_CHOICE_LOSS percent of another's score is measured again, at most PLAN_CHOICE_RECHECKS
 * times (plan_choice_observe). A plan's block of calls goes on past `trials` while each call is
 * more than PLAN_CHOICE_WARM percent faster than the one before (plan_choice_start); in a first
 * round, a small-window variant modeled like its family runs only where the family won by
 * PLAN_CHOICE_EDGE or calls stall: by PLAN_CHOICE_STALL percent, PLAN_CHOICE_FAR over the bound. */
enum {
    PLAN_CHOICE_EXPLORE_MAX = 4,
    PLAN_CHOICE_SECOND = 16,
    PLAN_CHOICE_MAX = PLAN_ALGO_COUNT + 2,
    PLAN_CHOICE_LOSS = 125,
    PLAN_CHOICE_CLOSE = 120,
    PLAN_CHOICE_EDGE = 3,
    PLAN_CHOICE_EDGE_SHARED = 10,
    PLAN_CHOICE_STRIKES = 2,
    PLAN_CHOICE_WATCH = 4,
    PLAN_CHOICE_RECHECKS = 2,
    PLAN_CHOICE_WARM = 3,
    PLAN_CHOICE_STALL = 150,
    PLAN_CHOICE_FAR = 200
};

/* One candidate (a family and its variant) with its modeled and measured times. */
typedef struct plan_candidate {
    plan_algo algo;
    int variant;       /* the caller's variant of the family (0: the usual one) */
    uint64_t model_ps; /* modeled time of one call */
    int borrowed;      /* model_ps corrected by MPI's ratio (see plan_choice_estimate) */
    uint64_t best_ps;  /* fastest measured call of either round; UINT64_MAX before any */
    uint64_t score_ps; /* what the choice compares: the lower median of the calls measured so
                          far in the current round (a plan's last `trials` of them); UINT64_MAX
                          before any */
    uint32_t runs;     /* calls measured (in the current round) */
    uint32_t started;  /* calls started while exploring (measurements may arrive later) */
} plan_candidate;

/* A round's measured times of one explored candidate (the first PLAN_CHOICE_SECOND). */
typedef struct plan_samples {
    uint32_t n;
    uint32_t warm; /* measured calls that followed a call of the same candidate */
    uint32_t cold; /* bit k: the candidate's call k of the round (by start) followed another's */
    uint64_t t[PLAN_CHOICE_SECOND];
} plan_samples;

/* The state of one pattern's choice. */
typedef struct plan_choice {
    int n;                                 /* candidates, best model first */
    plan_candidate cand[PLAN_CHOICE_MAX];
    int explore;                           /* cand[0 .. explore) are measured */
    uint32_t trials;                       /* measured calls per explored candidate a round */
    uint32_t reference;                    /* measured calls of MPI's algorithm in this round:
                                              trials, more where in doubt */
    int next;                              /* index of the candidate the next call runs */
    int last;                              /* index of the explored candidate started last in
                                              this round (-1: none): its block */
    int network;                           /* calls cross a network that keeps state between
                                              them (plan_choice_network) */
    uint32_t edge;                         /* settling's percent: PLAN_CHOICE_EDGE(_SHARED) */
    int settled;                           /* exploration over: cand[next] is final */
    int reopened;                          /* plan_choice_reopen started a second round */
    int tied;                              /* settled on MPI's algorithm with a plan measured
                                              within PLAN_CHOICE_EDGE: 1 + its index (0: no) */
    uint32_t strikes;                      /* settled: of the last PLAN_CHOICE_WATCH calls,
                                              those that contradicted it */
    uint64_t strike_ps;                    /* the fastest of them */
    uint32_t watched;                      /* settled calls observed since settling */
    uint64_t watch[PLAN_CHOICE_WATCH];     /* the last of them (ring, by watched) */
    uint32_t rechecks;                     /* rounds started because it was contradicted */
    uint64_t bound_ps;                     /* plan_choice_bound's (0: unknown) */
    uint64_t seen[PLAN_CHOICE_SECOND];     /* plan_choice_native_seen's calls, oldest first */
    uint32_t seen_n;                       /* how many */
    plan_samples samples[PLAN_CHOICE_EXPLORE_MAX]; /* of cand[0 .. explore), this round */
} plan_choice;

/* Whether a candidate modeled at t_ps, at most margin_pct percent above the best model
 * best_ps, is worth measuring. */
int plan_choice_close(uint64_t t_ps, uint64_t best_ps, uint32_t margin_pct);

/* Whether candidate c is worth measuring beside MPI's algorithm modeled at mpi_ps: MPI's
 * algorithm, or a plan modeled faster by more than PLAN_CHOICE_EDGE percent (shim/decide.c). */
int plan_choice_worth(const plan_candidate *c, uint64_t mpi_ps);

/* Sets up a choice among cands[0 .. n) (1 <= n <= PLAN_CHOICE_MAX, distinct (family, variant)
 * pairs; the measured fields are reset). Candidates are ordered by model_ps, ties by family
 * number (native first), then variant. Explored: every candidate close to the best model
 * (plan_choice_close with margin_pct), and native whenever it is a candidate, at most
 * PLAN_CHOICE_EXPLORE_MAX (best models first, native kept). With trials == 0 or a single
 * explored candidate the choice is settled on the best model at once. The first call runs the
 * best model (plan_choice_opening), or what plan_choice_opened says. */
void plan_choice_init(plan_choice *ch, const plan_candidate *cands, int n, uint32_t margin_pct,
                      uint32_t trials);

/* Marks the choice's calls as crossing a network between nodes (_network), whose connections
 * keep state from one call to the next: a candidate's first call after another's is not its own
 * time, and does not judge a candidate modeled clearly faster (first round) or measured so
 * (later; plan_choice_unjudged; choose.c has the measurements); or as moving within one
 * shared-memory node (_shared): a plan must beat MPI's by PLAN_CHOICE_EDGE_SHARED percent. */
void plan_choice_network(plan_choice *ch);
void plan_choice_shared(plan_choice *ch);

/* Notes the pattern's lower bound by a calibrated cost model (bound_ps; 0: not known): where
 * the fastest calls of both a family and MPI's algorithm took more than PLAN_CHOICE_FAR percent
 * of it, every call stalls, and the family's small-window variant is measured without waiting
 * for the rest of the family's block (choose_window.c: choice_window_waits, choice_window_moot). */
void plan_choice_bound(plan_choice *ch, uint64_t bound_ps);

/* Notes MPI's measured calls of the same exchange just before the choice began, t[0 .. n) (the
 * last PLAN_CHOICE_SECOND): their fastest counts as MPI's fastest call of the first round
 * (plan_choice_start, plan_choice_record); across a network they count for its stalls and can
 * stand for its block of the first round (plan_choice_start; choose_window.c: window_mends). */
void plan_choice_native_seen(plan_choice *ch, const uint64_t *t, uint32_t n);

/* Notes that the pattern's first call (which gathered and planned, and is measured only
 * through plan_choice_first) ran candidate (algo, variant): if it is explored, the round's
 * first block is its own, so that its measured calls follow its own first (see
 * plan_choice_start). Ignored once settled, once a call was started, or if not explored. */
void plan_choice_opened(plan_choice *ch, plan_algo algo, int variant);

/* The candidate a new pattern's first call runs where none is explored on purpose: the best
 * (_opening); the explored candidate with the best estimate now (_best, plan_choice_estimate). */
const plan_candidate *plan_choice_opening(const plan_choice *ch);
const plan_candidate *plan_choice_best(const plan_choice *ch);

/* The family, and the candidate (family and variant), the next call should run; candidate
 * (algo, variant) of the choice, or NULL (_find). */
plan_algo plan_choice_next(const plan_choice *ch);
const plan_candidate *plan_choice_current(const plan_choice *ch);
const plan_candidate *plan_choice_find(const plan_choice *ch, plan_algo algo, int variant);

/* What candidate c of ch is expected to take per call: its round's score where measured, else
 * its model. Across a network (plan_choice_network), once MPI's calls of the round are
 * measured, a borrowed model is scaled by MPI's score over its model where below 1, and a plan
 * whose measured calls all followed another candidate's (or a gather) is at most that model
 * (choose.c's plan_choice_estimate has why). */
uint64_t plan_choice_estimate(const plan_choice *ch, const plan_candidate *c);

/* What running another candidate is charged against: the best estimate (plan_choice_best) where
 * it was measured, is MPI's algorithm or the choice is settled; else MPI's algorithm where it is
 * a candidate (a plan not measured yet is explored, within the budget); else the best model. */
const plan_candidate *plan_choice_incumbent(const plan_choice *ch);

/* Exploring candidate c instead of the incumbent (plan_choice_incumbent), for plan_wait_allows:
 * both estimates (plan_choice_estimate) and the predicted cost (plan_budget_predicted); no risk
 * beyond it (the pattern's set-up is paid). */
plan_wait plan_choice_explore_wait(const plan_choice *ch, const plan_candidate *c);

/* Notes that a call that will be measured started with candidate (algo, variant) (what
 * plan_choice_current said, or the incumbent while exploring waits) and sets the next call's: a
 * round measures its candidates in blocks of consecutive calls, each explored candidate at
 * least `trials` times unless it lost clearly, MPI's algorithm more where the choice is in
 * doubt, then the fastest until it settles (choose.c's plan_choice_start has the order).
 * Measurements may arrive later (plan_choice_record). Ignored once settled. */
void plan_choice_start(plan_choice *ch, plan_algo algo, int variant);

/* Whether the next call continues, whatever the budget says, the block of a candidate across a
 * network (plan_choice_network) whose measured calls of the round all came right after another
 * candidate's, when the loss bar's candidate cannot judge it by that call (first round: its
 * model, no faster than its family's score, beats that one's by PLAN_CHOICE_LOSS percent, or
 * PLAN_FORECAST_SAFETY where that one's calls spread by more; later: its fastest call beats
 * that one's by PLAN_CHOICE_LOSS percent), or of a plan still warming up (its last call >
 * PLAN_CHOICE_WARM % faster than the one before) whose model beats the incumbent's estimate. */
int plan_choice_unjudged(const plan_choice *ch);

/* Records that a call ran candidate (ran, variant) in measured_ps (ignored if it is not an explored
 * candidate or the choice is settled). Its score is the lower median of its last `trials` calls in
 * the round (of the first PLAN_CHOICE_SECOND; MPI's algorithm, not warming up, of all of them);
 * across a network a plan's call that followed another candidate's counts as no slower than its
 * slowest warm call of the round, if any. In the first round, a measured candidate whose fastest
 * call (MPI's: of the round or before it, plan_choice_native_seen) is more than PLAN_CHOICE_LOSS
 * percent of the slowest call of a candidate measured twice is done (not run again while
 * exploring), unless across a network its calls all followed another's and its model beats that
 * one's clearly (plan_choice_network; a second round measures each fully). Once every explored
 * candidate has its measurements (or is done) and no block is under way, the choice settles on the
 * smallest score_ps (the lower index on ties). */
void plan_choice_record(plan_choice *ch, plan_algo ran, int variant, uint64_t measured_ps);

/* What a new pattern's first call must take less than to count as measuring the candidate it ran
 * (plan_choice_first): the other explored ones' best estimate (UINT64_MAX: none, or unexplored). */
uint64_t plan_choice_first_bar(const plan_choice *ch, plan_algo algo, int variant);

/* A new pattern's first call ran candidate (algo, variant) in whole_ps, its gather and planning
 * included: an upper bound of what the candidate takes once warm. If that is below bar_ps
 * (plan_choice_first_bar, or lower) the call counts as a started and measured call of the
 * candidate (plan_choice_start, plan_choice_record; across a network a cold one): a plan that
 * wins even with its set-up is not made to wait for the exploration budget behind a candidate
 * modeled close to it. Otherwise, or once settled, nothing changes. Returns 1 if it counted. */
int plan_choice_first(plan_choice *ch, plan_algo algo, int variant, uint64_t whole_ps,
                      uint64_t bar_ps);

/* After the choice settled: notes a measured call of the candidate it settled on (others are
 * ignored). Returns 1 when at least PLAN_CHOICE_STRIKES of the last PLAN_CHOICE_WATCH such
 * calls each took more than PLAN_CHOICE_LOSS percent of the best score of the other measured
 * candidates: the settlement is contradicted: the candidate's score becomes the fastest of
 * those calls, and plan_choice_reopen measures again. */
int plan_choice_observe(plan_choice *ch, plan_algo ran, int variant, uint64_t measured_ps);

/* Whether the calls of a choice settled on MPI's algorithm in a tie (a plan's score within
 * PLAN_CHOICE_EDGE percent of its own) are to be observed, not run unchecked: until
 * PLAN_CHOICE_WATCH of them were (plan_choice_observe). Its fast calls may hide a slow mode that
 * the plan does not have (8 emulated hosts x 4 ranks, uniform: 320 or 560 - 830 ms). */
int plan_choice_watching(const plan_choice *ch);

/* Where plan_choice_observe found a settlement in a tie contradicted: the choice goes to the
 * tied plan at once, still settled (it measured as fast as MPI's fast calls; a round of
 * measurements could again catch MPI's algorithm in its fast mode), counted as a recheck
 * (at most PLAN_CHOICE_RECHECKS). Returns 1 if it did; else nothing changes. */
int plan_choice_switch(plan_choice *ch);

/* Starts a second round of measurement among the explored candidates of a choice that
 * settled by measuring them: each is measured 2 trials + 1 more times (trials becomes that),
 * in blocks, and the choice settles on the smallest lower median of a candidate's last
 * second-round calls (of the first PLAN_CHOICE_SECOND; a few slowed calls cannot move it).
 * Only candidates whose first-round score was within PLAN_CHOICE_CLOSE percent of the best are
 * measured again. Once per choice, and again (at most PLAN_CHOICE_RECHECKS times, trials not
 * raised further) where plan_choice_observe found it contradicted: such a recheck measures
 * every candidate measured before. Returns 1 if it reopened the choice, 0 if it was not
 * settled, was settled without measuring (fewer than two explored or trials == 0), fewer than
 * two candidates were close enough (measured, for a recheck), or was reopened before and is not
 * contradicted (or was rechecked that often). */
int plan_choice_reopen(plan_choice *ch);

/* Removes family `algo` (every variant; _remove: candidate (algo, variant), unless absent)
 * from the candidates (it cannot run: planning failed, memory limit); the choice continues
 * among the others and settles if fewer than two explored remain. Never removes the last. */
void plan_choice_drop(plan_choice *ch, plan_algo algo);
void plan_choice_remove(plan_choice *ch, plan_algo algo, int variant);

#endif
