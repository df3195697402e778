/* What a communicator and its call sites learn from measured calls, what exploring costs, and
 * the decision of a new pattern before gathering it (history.c): the shim's side of
 * plan/learn.h and plan/forecast.h. Everything here changes only at agreements, from agreed
 * values, identically on every rank. */
#ifndef HRELAY_SHIM_HISTORY_H
#define HRELAY_SHIM_HISTORY_H

#include <stdint.h>

#include "plan/forecast.h"
#include "shim/agree.h"
#include "shim/call.h"

/* Nothing is explored (candidates that may lose are not tried) on exchanges whose busiest rank
 * moves fewer bytes than this, or whose MPI call takes less than SHIM_EXPLORE_MIN_PS. */
enum { SHIM_EXPLORE_MIN_BYTES = 4096 };
#define SHIM_EXPLORE_MIN_PS ((uint64_t)20000000) /* 20 us */

/* The families auto may plan (a bit per plan_algo): the rank-level ones, and where some node
 * holds several ranks (shim_topo_nodes) the node-level ones too. */
#define SHIM_AUTO_FAMILIES                                                                     \
    ((1u << PLAN_ALGO_DIRECT) | (1u << PLAN_ALGO_WALKER_OTTO) | (1u << PLAN_ALGO_GREEDY) |     \
     (1u << PLAN_ALGO_STEPWISE) | (1u << PLAN_ALGO_FORWARD) | (1u << PLAN_ALGO_TRANSPOSE))
#define SHIM_NODE_FAMILIES                                                                     \
    ((1u << PLAN_ALGO_NODE_DIRECT) | (1u << PLAN_ALGO_NODE_TRANSPOSE) |                        \
     (1u << PLAN_ALGO_NODE_FORWARD) | (1u << PLAN_ALGO_NODE_AGGREGATE))

/* The modeled latency of one agreement on p ranks (an allreduce: a round trip per level of a
 * tree). */
uint64_t shim_agree_model(int p);

/* Before the agreement: whether this rank holds the history of its call site of index idx
 * (creating it on first use), or the site has none to hold (idx < 0, beyond
 * SHIM_HISTORY_SITES, or turned off); 0 when it cannot be created (out of memory). */
int shim_history_ready(shim_comm *rec, long idx);

/* After the agreement: the history of the call's site when every rank brought the same site and
 * holds its history, else NULL (the communicator's alone). A site some rank could not create a
 * history for is turned off on every rank. */
plan_history *shim_history_of(shim_comm *rec, const shim_agreement *ag);

/* After the agreement of call c (c->again, c->cls and c->hist set), before anything learns
 * from rec->prev: where that is the communicator's first call taught at its second (prev.first)
 * and c is that call again on every rank with a consistent summary, or (prev.alike_cls >= 0, a
 * drifting call decided by its record's creation) a call of that size class at an agreed site,
 * gives it c's size class, history and MPI's model of c's agreed summary, so that it teaches as
 * an agreed call of MPI's algorithm; where c is neither, it teaches nothing (its class stays
 * -1). Else changes nothing. A function of agreed values only. */
void shim_history_first(shim_comm *rec, const shim_call *c);

/* After the agreement: learns from the previous agreed call (rec->prev, its times agreed in
 * ag) into its site's history and the communicator's, charges it to the budget (and its
 * exploration to its site's statistics on this rank), then counts this call and the calls run
 * unchecked since the last agreement (site: the call's history, or NULL; news: the call's
 * pattern is new). */
void shim_history_update(shim_comm *rec, const shim_agreement *ag, plan_history *site,
                         int news);

/* After the agreement: what making a node's window for the call is estimated to cost, from
 * agreed figures: the cost model's window_make_ps, and its window_make_fs for every byte that
 * the busiest rank of the agreed summary in rec->summary moves, times the most ranks on a
 * node. */
uint64_t shim_window_make_estimate(const shim_comm *rec);

/* The forecast of call c (auto, arguments fine everywhere) from the agreed summary in
 * rec->summary, its site's history (or NULL) and the communicator's. */
void shim_forecast(const shim_comm *rec, const shim_call *c, const plan_history *site,
                   plan_forecast *fc);

#endif
