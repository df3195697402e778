/* A call whose pattern is not in the cache everywhere (or that has an argument error
 * somewhere): the pattern is gathered, checked and decided, and a cache slot filled
 * (miss.c). */
#ifndef HRELAY_SHIM_MISS_H
#define HRELAY_SHIM_MISS_H

#include "plan/forecast.h"
#include "plan/plan.h"
#include "shim/call.h"

/* What the call does after the miss path. */
typedef enum shim_miss_outcome {
    SHIM_MISS_RUN,    /* run family `algo` (c->run is prepared for it) on slot `slot` */
    SHIM_MISS_NATIVE, /* MPI runs this call (a displacement hrelay cannot address somewhere) */
    SHIM_MISS_DONE    /* the call is over; `rc` is its result */
} shim_miss_outcome;

typedef struct shim_miss_result {
    shim_miss_outcome outcome;
    int slot;       /* SHIM_MISS_RUN: the slot now holding the pattern */
    plan_algo algo; /* SHIM_MISS_RUN: the family (c->run.algo) */
    int planned;    /* SHIM_MISS_RUN: plans built for the pattern */
    int explored;   /* SHIM_MISS_RUN: the call runs the family the forecast explores */
    int rc;         /* SHIM_MISS_DONE: an error raised through the communicator's error
                       handler, or the MPI library's own exchange of a truncated call */
} shim_miss_result;

/* The miss path of agreed call c (collective over its communicator, every rank the same
 * outcome): gathers every rank's [status, type facts, row]; raises an argument error on every
 * rank (a rank's own class, else the lowest erroneous rank's); agrees on truncation (then every
 * rank runs the MPI library's own exchange), on the staging each candidate needs and on
 * whether every rank could prepare the likely run; fills a cache slot (sharing the plans of a
 * slot with the same pattern, else deciding: auto with the forecast fc, which says what to
 * plan and what this call explores) and prepares the agreed run. */
shim_miss_result shim_miss(shim_call *c, const plan_forecast *fc);

#endif
