/* The parts of one intercepted call's path (exchange.c) that its files share: the agreed path
 * (exchange_agreed.c), the calls that run MPI's algorithm and the runs of unchecked calls
 * (exchange_native.c), and what an agreed call learns from the previous one's measured times
 * (exchange_feedback.c). Internal to the call path: nothing else includes it. */
#ifndef HRELAY_SHIM_EXCHANGE_H
#define HRELAY_SHIM_EXCHANGE_H

#include <stdint.h>

#include "plan/forecast.h"
#include "plan/plan.h"
#include "shim/agree.h"
#include "shim/args.h"
#include "shim/cache.h"
#include "shim/call.h"
#include "shim/comm.h"
#include "shim/site.h"

/* Calls on a communicator and agreements between the tuning steps of one call's path
 * (exchange.c and the files this header joins). */
enum {
    QUIET_AFTER = 2,  /* agreed calls without a plan before native runs unchecked (1 where
                        the last one was the previous agreed call again, no byte of it left
                        its node, or a candidate waits for the budget) */
    REMEASURE = 64,   /* calls after a pattern's first before its candidates are measured a
                        second time */
    FLOOR_SAMPLES = 1 /* calls a run's floor (plan_run_floor) is measured over: the first one
                         counts (cold, its agreement tends to be slower: a longer run) */
};

/* ---- the agreed path (exchange_agreed.c) ---- */

/* Runs agreed call c (c->a, c->rec, c->site and c->request set; t0: the ticks when the call
 * started) through the agreed path: the same outcome on every rank of the communicator (a
 * cached plan, a new pattern's, MPI's algorithm, or an error raised on every rank). Returns what
 * the MPI call returns. Collective. */
int shim_run_agreed(shim_call *c, uint64_t t0);

/* This rank's part of a described call's pattern from the hash of its row (row_hash) and its
 * facts f: the same row and facts give the same value; never 0. */
uint64_t shim_pattern_hash(uint64_t row_hash, const shim_facts *f);

/* Makes pattern one of site's last SHIM_SITE_RECENT patterns (unchanged where it is one; else
 * the oldest goes). */
void shim_remember(shim_site *site, uint64_t pattern);

/* ---- calls that run MPI's algorithm, runs of unchecked calls (exchange_native.c) ---- */

/* Runs call a with PMPI and its own arguments (no communication of hrelay's own) and counts it
 * at site (NULL: not counted; quiet: as a reuse of the communicator's decision). Returns what
 * PMPI returns. */
int shim_run_unchecked(const shim_args *a, shim_comm *rec, shim_site *site, int quiet);

/* Runs agreed call c, a new pattern that forecast fc leaves to MPI's algorithm, without
 * gathering: its times kept for the next agreement, accounted at its site, and the unchecked run
 * that follows decided from agreed values only (the same on every rank). t0: the ticks when the
 * call started. Returns an MPI error code. */
int shim_run_before_gather(shim_call *c, const plan_forecast *fc, uint64_t t0);

/* After an agreed call on rec: decides from agreed values only whether the next calls run MPI's
 * algorithm unchecked, and for how many (rec->quiet_until): none with HRELAY_RECHECK=0, while a
 * plan may run (may_plan) or before enough agreed calls in a row without one (fewer with
 * again); never more than HRELAY_RECHECK, floor_len at least where that is no more, and with
 * wait (NULL: none) not past the call at which exploring the waiting candidate is expected to be
 * allowed. Returns the length of the run it started, 0 for none. */
uint64_t shim_update_quiet(shim_comm *rec, int may_plan, int again, const plan_wait *wait,
                           uint64_t floor_len);

/* Adds one agreed call of family algo run as variant `variant` (PLAN_VARIANT_*) to site's
 * statistics: nothing where site is NULL. */
void shim_account(shim_site *site, plan_algo algo, int variant, uint64_t bytes, double t, int hit,
                  int planned, double modeled_native, double native);

/* This rank's index of call c's site among its communicator's sites, -1 where it has none. */
long shim_site_index(const shim_call *c);

/* The bytes this rank sends in rec's current call: the sum of its row. */
uint64_t shim_row_bytes(const shim_comm *rec);

/* ---- what agreed calls learn from measured ones (exchange_feedback.c) ---- */

/* Feeds the agreed time ag carries of the previous agreed call (rec->prev) to the measured
 * choice of the slot it measured, where it was timed and that slot still holds the same
 * pattern; else changes nothing. The same on every rank. */
void shim_feedback(shim_comm *rec, const shim_agreement *ag);

/* Once REMEASURE calls have passed since slot s's pattern was new, reopens its choice for a
 * second round of measurements where plan_choice_reopen allows it (once, after it settled by
 * measuring); else changes nothing. The same on every rank. */
void shim_remeasure(shim_comm *rec, shim_slot *s);

/* Keeps in rec->native_seen the MPI exchanges measured in the current row of agreed calls each
 * the previous one again (again: this call is; the last PLAN_CHOICE_SECOND), none once the row
 * breaks. The same on every rank. */
void shim_note_native_seen(shim_comm *rec, const shim_agreement *ag, int again);

/* The estimated time (s) of MPI's algorithm for a call of slot s that ran algo in t seconds:
 * t itself where algo is MPI's. */
double shim_native_estimate(const shim_slot *s, plan_algo algo, double t);

/* The agreement's cost (ps) on rec in size class cls as measured over FLOOR_SAMPLES calls or
 * more; 0 where not measured (or cls < 0). */
uint64_t shim_agree_measured(const shim_comm *rec, int cls);

/* MPI's algorithm's measured time (ps) on slot s; 0 where not measured. */
uint64_t shim_native_measured(const shim_slot *s);

#endif
