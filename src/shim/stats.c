/* Per-site statistics of one rank: adding calls up. (Merging over ranks: site_report.c.) */
#include "shim/stats.h"

void shim_stats_fold(shim_stats *a, const shim_stats *b)
{
    a->calls += b->calls;
    a->bytes += b->bytes;
    for (int i = 0; i < PLAN_ALGO_COUNT; i++) {
        a->algo_calls[i] += b->algo_calls[i];
        for (int v = PLAN_VARIANT_BASE + 1; v <= PLAN_VARIANT_NODE_WINDOW; v++)
            a->variant_calls[i][v] += b->variant_calls[i][v];
    }
    a->plans_computed += b->plans_computed;
    a->cache_hits += b->cache_hits;
    a->unchecked += b->unchecked;
    a->new_patterns += b->new_patterns;
    a->before_gather += b->before_gather;
    a->explore_calls += b->explore_calls;
    a->explore_s += b->explore_s;
    a->time_s += b->time_s;
    a->modeled_native_s += b->modeled_native_s;
    a->native_s += b->native_s;
}
