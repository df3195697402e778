/* The measured choice's internals shared by its files (plan/choose*.c, not a public header):
 * choose_round.c holds a round's lookups and the comparisons of measured times, choose.c the
 * round's bookkeeping and order, choose_window.c when a family's small-window variant is
 * measured, choose_watch.c what a settled choice does with its later calls, choose_lost.c whether
 * its plans all lost. */
#ifndef HRELAY_PLAN_CHOOSE_RULES_H
#define HRELAY_PLAN_CHOOSE_RULES_H

#include <stdint.h>

#include "plan/choose.h"

/* Index of candidate (algo, variant), or -1. */
int choice_find(const plan_choice *ch, plan_algo algo, int variant);

/* Whether r's call k of the round (by start) followed another candidate's (a cold call). */
int choice_cold_call(const plan_samples *r, uint32_t k);

/* Whether candidate c is MPI's algorithm (its base variant). */
int choice_is_native(const plan_candidate *c);

/* The calls explored candidate i is measured over in the current round: `trials`, or for MPI's
 * algorithm `reference` (more where its measurement was in doubt). */
uint32_t choice_target(const plan_choice *ch, int i);

/* Marks explored candidate i as done for the round: not run again while exploring. */
void choice_done(plan_choice *ch, int i);

/* The smallest score of the explored candidates (UINT64_MAX if none measured). */
uint64_t choice_best_score(const plan_choice *ch);

/* Widens [*lo, *hi] to hold the n times t. */
void choice_widen(const uint64_t *t, uint32_t n, uint64_t *lo, uint64_t *hi);

/* The fastest (*lo) and slowest (*hi) of the calls in r (UINT64_MAX and 0 if none). */
void choice_extremes(const plan_samples *r, uint64_t *lo, uint64_t *hi);

/* The fastest of MPI's calls seen before the round (plan_choice_native_seen; UINT64_MAX if
 * none). */
uint64_t choice_seen_fastest(const plan_choice *ch);

/* Explored candidate i's fastest measured call: for MPI's algorithm, of the round or of the
 * same exchange before it (plan_choice_native_seen); UINT64_MAX if none. */
uint64_t choice_fastest_call(const plan_choice *ch, int i);

/* Whether score is more than pct percent of best. */
int choice_beyond(uint64_t score, uint64_t best, uint32_t pct);

/* Whether explored candidate i (-1: none) has at least two calls of the round and its slowest
 * took more than pct percent of its fastest. */
int choice_spread_beyond(const plan_choice *ch, int i, uint32_t pct);

/* Points next at the candidate of the block under way (ch->last: started fewer than its
 * target's times (`trials`, or `reference` for MPI's algorithm), or warming); else settles
 * when every explored candidate has its target's measurements, unless MPI's measurement is in
 * doubt (its target becomes 2 trials + 1, at most PLAN_CHOICE_SECOND); else points next at a
 * new block: MPI's algorithm's if it was started fewer than its target's times, else the
 * explored candidate started the fewest times below its target (the lowest index on ties;
 * not a window variant that waits, choice_window_waits), or, when all were started so often,
 * the fastest so far. Window variants judged moot are done first (choice_window_moot). */
void choice_advance(plan_choice *ch);

/* The index of explored candidate i's family as configured (PLAN_VARIANT_BASE), if i is its
 * small-window variant modeled no faster than it and both are explored in a first round; else
 * -1. */
int choice_window_base(const plan_choice *ch, int i);

/* Whether a window variant whose family is explored candidate b (choice_window_base; -1: none)
 * waits for measurements: MPI's algorithm is explored and not measured to its target, or the
 * family is not, unless it was measured and MPI's calls stall or the fastest calls of both are
 * far from the bound (PLAN_CHOICE_STALL, PLAN_CHOICE_FAR). */
int choice_window_waits(const plan_choice *ch, int b);

/* Whether explored candidate i, not started yet, need not be measured (choice_window_base): its
 * family was measured and does not beat some other explored candidate's score (its own
 * variant's aside) by PLAN_CHOICE_EDGE percent, and the calls of neither stall (the family's
 * of the round, MPI's of the round or seen before it across a network, or both far from the
 * bound). */
int choice_window_moot(const plan_choice *ch, int i);

#endif
