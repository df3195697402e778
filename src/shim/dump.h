/* HRELAY_DUMP: each distinct plan written once as JSON (dump.c). */
#ifndef HRELAY_SHIM_DUMP_H
#define HRELAY_SHIM_DUMP_H

#include "plan/cost.h"
#include "plan/matrix.h"
#include "plan/plan.h"
#include "shim/state.h"

/* Writes pl (planned from m) to dir/plan-<hash>.json unless this process already wrote a plan
 * with the same hash (recorded in w). Returns 0, or -1 with errno set (directory or write
 * failure, out of memory). */
int shim_dump_plan(shim_world *w, const char *dir, const plan *pl, const plan_matrix *m,
                   const plan_cost_params *cost);

#endif
