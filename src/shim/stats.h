/* What the report counts: the statistics of one call site on one rank. */
#ifndef HRELAY_SHIM_STATS_H
#define HRELAY_SHIM_STATS_H

#include <stdint.h>

#include "plan/learn.h"
#include "plan/plan.h"

/* Accumulated over the calls of one call site on one rank (README "The report" names them). */
typedef struct shim_stats {
    uint64_t calls;
    uint64_t bytes;                       /* bytes this rank sent, self-copy included */
    uint64_t algo_calls[PLAN_ALGO_COUNT]; /* calls by the family that actually ran them */
    /* of algo_calls, the calls run as each variant but PLAN_VARIANT_BASE (index: the variant) */
    uint64_t variant_calls[PLAN_ALGO_COUNT][PLAN_VARIANT_NODE_WINDOW + 1];
    uint64_t plans_computed;              /* plans built for this site's patterns */
    uint64_t cache_hits;                  /* calls that reused a cached decision or plan */
    uint64_t unchecked;                   /* of those, native calls run without agreement */
    uint64_t new_patterns;                /* agreed calls whose pattern was new at the site */
    uint64_t before_gather;               /* calls decided without gathering the pattern */
    uint64_t explore_calls;               /* calls that ran a candidate to measure it */
    double explore_s;                     /* what they cost beyond the best estimate */
    double time_s;                        /* wall time inside the intercepted calls */
    double modeled_native_s;              /* the model's native time of the agreed calls */
    double native_s;                      /* estimated native time of all calls (see report) */
} shim_stats;

/* Adds b into a. */
void shim_stats_fold(shim_stats *a, const shim_stats *b);

#endif
