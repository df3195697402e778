/* Deciding how a new pattern runs: candidate families, their plans and modeled times, and the
 * choice among them (decide.c). */
#ifndef HRELAY_SHIM_DECIDE_H
#define HRELAY_SHIM_DECIDE_H

#include <stdint.h>

#include "plan/cost.h"
#include "plan/forecast.h"
#include "plan/matrix.h"
#include "plan/plan.h"
#include "shim/cache.h"
#include "shim/comm.h"

/* auto measures the best plan also with a small window (SHIM_SMALL_WINDOW) where its mean
 * transfer has at least this many bytes. */
#define SHIM_WINDOW_MIN_TRANSFER ((uint64_t)64 << 10)

/* Transpose grain for dense types when HRELAY_GRAIN is not set: this many bytes, rounded down
 * to a multiple of the type size (at least one element). */
#define SHIM_DEFAULT_GRAIN ((uint64_t)4096)

/* First half of deciding a new pattern m (every rank the same, except where memory runs out):
 * the candidates in s->cand with their modeled times, their plans in s->prog. The request's
 * family if it names one (then direct for a family that needs staging, not planned yet, then
 * native, as fallbacks); else (auto) native at the forecast's corrected time and the families
 * the forecast fc says to plan that can plan m within the limits, each at its corrected plan
 * time with the agreement, the gather and its planning spread over the calls expected per
 * pattern (plan_forecast_plan), and the best of them also with a small window where its
 * transfers are large. Families that failed to plan are in s->failed; s->planned counts the
 * plans built; s->overhead_ps is the model of the call's cost beyond its exchange; s->trials
 * the measured calls per candidate (0 on exchanges too small to explore). */
void shim_decide(shim_comm *rec, shim_slot *s, const plan_matrix *m, const plan_options *o,
                 plan_native_kind kind, const plan_forecast *fc);

/* Second half: the choice among s's candidates without those in drop (a bit per family; native
 * is never dropped; a fixed family measured in two variants, if not dropped, among those
 * alone), across a network (plan_choice_network) where rec's ranks are on several
 * nodes, knowing MPI's exchanges of the same call just before (rec->native_seen,
 * plan_choice_native_seen) and the pattern's calibrated bound (s->bound_ps, plan_choice_bound).
 * Called first with the families that failed on this rank
 * (s->failed), to prepare the likely run before the ranks agree, then again if the agreed drop
 * differs. */
void shim_decide_choose(const shim_comm *rec, shim_slot *s, uint32_t drop);

/* Last: releases the plans of dropped families and of candidates that will never run (not
 * measured, not the first, not family `keep`, which the first call explores), so that every
 * candidate left has its plan; with HRELAY_VERBOSE=1 (auto) prints the decision with every
 * candidate's modeled time (m: the pattern). */
void shim_decide_trim(shim_comm *rec, shim_slot *s, const plan_matrix *m, uint32_t drop,
                      plan_algo keep);

/* Makes sure s has a program for family algo (planning it if needed, with options o, for the
 * pattern m): 0 on success, -1 if planning failed (the same on every rank, except when memory
 * runs out on one rank: callers agree on the outcome). *planned is set when a plan was built.
 * Rank 0 dumps a new plan to HRELAY_DUMP. */
int shim_slot_prog(shim_comm *rec, shim_slot *s, plan_algo algo, const plan_matrix *m,
                   const plan_options *o, int *planned);

/* The transpose grain of a call: cfg_grain if not 0; else, from the facts gathered over all
 * ranks (size_gcd: gcd of the send and receive type sizes; dense: every type is dense), one
 * element (size_gcd) for types that are not dense, and for dense types SHIM_DEFAULT_GRAIN
 * rounded down to a multiple of size_gcd (at least size_gcd). 1 when no type has bytes. */
uint64_t shim_grain(uint64_t cfg_grain, uint64_t size_gcd, int dense);

#endif
