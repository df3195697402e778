/* Whether a measured choice's plans all lost to MPI's algorithm (choose_lost.c): what the shim
 * remembers across communicators so that a later one does not explore them again
 * (shim/lost.h). Pure C, no MPI. */
#ifndef HRELAY_PLAN_CHOOSE_LOST_H
#define HRELAY_PLAN_CHOOSE_LOST_H

#include <stdint.h>

#include "plan/choose.h"

/* Whether every plan measured in ch lost to MPI's algorithm: MPI's algorithm (base variant) has
 * a measured call, so has at least one plan, and no plan's fastest call beats MPI's fastest by
 * more than the percent a plan must settle by (ch->edge). Across a network
 * (plan_choice_network), where a plan's call after another candidate's is not its own time, a
 * plan counts by its fastest call of the round that followed one of its own, and not at all
 * without one. Elsewhere a plan with no measured call that ran the pattern's first call (first,
 * its variant first_variant) counts by that call's exchange alone, first_exchange_ps (0: not
 * known), its gather and planning left out. */
int plan_choice_plans_lost(const plan_choice *ch, plan_algo first, int first_variant,
                           uint64_t first_exchange_ps);

#endif
