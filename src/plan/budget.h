/* The exploration budget of a communicator: what its calls cost, what went into exploring
 * (running a candidate other than the best estimate, to measure it), whether exploring one
 * more fits or pays for itself, and the runs of unchecked calls. Pure C, no MPI, integer
 * arithmetic on agreed values: every rank decides the same. */
#ifndef HRELAY_PLAN_BUDGET_H
#define HRELAY_PLAN_BUDGET_H

#include <stdint.h>

/* Percent a family must be estimated faster than MPI's algorithm for a new pattern to be
 * gathered for it (its correction comes from single calls, whose noise must not decide), and a
 * candidate not measured yet is modeled slower when planned (the model's error is unknown). */
enum { PLAN_FORECAST_SAFETY = 10 };

/* Where a site's patterns do not repeat, every call is decided alone, as a measured round's
 * candidates are: a family whose correction rests on at least PLAN_FORECAST_STEADY_SAMPLES
 * calls that agree within 5/4 wins where it is estimated faster than MPI's algorithm by this
 * percent (the edge a measured plan needs over MPI's measured calls in a round) instead of
 * PLAN_FORECAST_SAFETY: on 8 emulated hosts x 2 ranks a sample sort's node-direct calls took
 * 140 - 155 ms, estimated 6 - 8 % below MPI's estimate (from its first calls, 80 - 150 ms),
 * and MPI's algorithm ran 6 - 29 of 30 calls where its calls took 200 ms and more. */
enum { PLAN_FORECAST_DRIFT_EDGE = 3, PLAN_FORECAST_STEADY_SAMPLES = 2 };

/* An estimated saving pays exploring back over 1 / PLAN_FORECAST_PAYBACK_SHARE of the calls made
 * so far (plan_budget_pays_back): an estimate is not a measurement. */
enum { PLAN_FORECAST_PAYBACK_SHARE = 2 };

/* Percent of the time of all calls so far that exploring on an estimated saving
 * (plan_budget_pays_back) may risk, beyond the budget: the exploring call's whole set-up and
 * the agreements of the calls that measure the candidate, which are paid whatever it turns out
 * to save (plan_forecast_explore_risk), together with what the calls of MPI's algorithm have
 * cost beyond its exchange (their agreements: plan_budget.overhead_ps). Below the promise of at
 * most 5 % over MPI's time: on 8 emulated hosts x 4 ranks at 1 KiB per pair, a gather and the
 * measuring calls' agreements cost about two of MPI's calls, and a node-direct estimated 18 %
 * faster measured no faster; at 4 KiB per pair a fresh communicator's first agreements cost 2 -
 * 4 % of a 21-call run, so that an exploration whose risk alone fit 4 % made it 1.08 - 1.10 x
 * MPI's time. */
enum { PLAN_FORECAST_RISK_PCT = 4 };

/* What a communicator's calls cost, and what of that went into exploring (calls that ran a
 * candidate other than the best estimate, to measure it). Zero-initialised. */
typedef struct plan_budget {
    uint64_t total_ps;       /* measured calls, and unchecked ones at last_native_ps */
    uint64_t explore_ps;     /* exploring calls' excess over the best estimate */
    uint64_t last_native_ps; /* the last measured call of MPI's algorithm */
    uint64_t overhead_ps;    /* measured calls of MPI's algorithm: their cost beyond its
                                exchange (agreements, a gather that chose it) */
} plan_budget;

/* A candidate whose exploring waits for the budget: what exploring it is predicted to cost
 * beyond the best estimate (plan_forecast_explore_cost), what it risks whatever it saves
 * (plan_forecast_explore_risk; 0: nothing beyond that, in a gathered pattern's round whose
 * set-up is paid), its estimate and the best estimate per call. */
typedef struct plan_wait {
    uint64_t pred_ps, risk_ps, est_ps, best_ps;
} plan_wait;

/* Whether exploring a candidate predicted to cost predicted_ps more than the best estimate
 * fits the budget: the exploration spent so far plus this one within budget_pct percent of
 * everything the calls cost. */
int plan_budget_allows(const plan_budget *b, uint64_t predicted_ps, uint32_t budget_pct);

/* Whether exploring w may go ahead: pred_ps within budget_pct (plan_budget_allows), or paying
 * for itself (plan_budget_pays_back) with risk_ps, added to the overhead of MPI's calls so far
 * (b->overhead_ps), within PLAN_FORECAST_RISK_PCT; never with a budget_pct of 0. */
int plan_wait_allows(const plan_budget *b, const plan_wait *w, uint32_t budget_pct);

/* How many more calls of MPI's algorithm (at b->last_native_ps each) the communicator must
 * make before exploring a candidate predicted to cost predicted_ps fits the budget
 * (plan_budget_allows): 0 if it fits now, UINT64_MAX if it never will (budget_pct 0, or no
 * call of MPI's algorithm measured yet). */
uint64_t plan_budget_calls_until(const plan_budget *b, uint64_t predicted_ps, uint32_t budget_pct);

/* How many more calls of MPI's algorithm (at b->last_native_ps each) the communicator must
 * make before exploring w may go ahead (plan_wait_allows), by the budget
 * (plan_budget_calls_until) or by paying for itself (plan_budget_pays_back, its risk within
 * PLAN_FORECAST_RISK_PCT), whichever comes first: 0 if it may now, UINT64_MAX if neither ever
 * will (budget_pct 0, no call of MPI's algorithm measured yet, or an estimate that never pays
 * back). Only the time of the calls changes meanwhile, not the estimates. */
uint64_t plan_wait_calls_until(const plan_budget *b, const plan_wait *w, uint32_t budget_pct);

/* Runs of unchecked calls (MPI's algorithm without an agreement) that a repeated call starts. */
enum {
    PLAN_RUN_SHARE = 128, /* the agreement that ends a run costs at most this share of it ... */
    PLAN_RUN_MAX = 64     /* ... or the run lasts this many calls (a change of pattern is
                            noticed after at most this many) */
};

/* The shortest run in which one agreement of agree_ps costs at most 1 / PLAN_RUN_SHARE of the
 * run's time at native_ps per call, at most PLAN_RUN_MAX calls; 0 where either time is 0
 * (unknown). The same inputs give the same length on every rank. */
uint64_t plan_run_floor(uint64_t agree_ps, uint64_t native_ps);

/* Whether exploring a candidate predicted to cost predicted_ps beyond the best estimate (best_ps
 * per call: MPI's algorithm until a plan is measured), estimated at est_ps per call, pays for
 * itself though the budget does not allow it yet: est_ps is at least PLAN_FORECAST_SAFETY
 * percent below best_ps, and what it would save per call, over half as many calls as the
 * communicator has made so far (PLAN_FORECAST_PAYBACK_SHARE; b->total_ps in calls of best_ps:
 * what has run that long is expected to run as long again; half, because the estimate is not
 * a measurement: on 16 emulated hosts at 64 KiB per rank, families estimated 9 - 14 % faster
 * than MPI's algorithm measured 40 % slower), covers all exploring so far and this one. */
int plan_budget_pays_back(const plan_budget *b, uint64_t predicted_ps, uint64_t best_ps,
                          uint64_t est_ps);

/* What exploring a candidate estimated at est_ps is predicted to cost beyond the best estimate
 * best_ps: the difference, at least a tenth of the best. */
uint64_t plan_budget_predicted(uint64_t est_ps, uint64_t best_ps);

/* Accounts `unchecked` calls that ran MPI's algorithm unmeasured (at b->last_native_ps). */
void plan_budget_unchecked(plan_budget *b, uint64_t unchecked);

/* Accounts a measured call: its cost; if it explored, its excess over best_ps; native_ps, if
 * not 0, the time of MPI's exchange it ran (the cost of later unchecked calls), and its cost
 * beyond that exchange the overhead of MPI's calls. */
void plan_budget_cost(plan_budget *b, uint64_t cost_ps, uint64_t native_ps, int explored,
                      uint64_t best_ps);
#endif
