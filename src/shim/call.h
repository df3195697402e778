/* One intercepted call in flight (exchange.c makes it, exchange_agreed.c runs it; miss.c takes a
 * new pattern's part). */
#ifndef HRELAY_SHIM_CALL_H
#define HRELAY_SHIM_CALL_H

#include <stdint.h>

#include "exec/exec.h"
#include "shim/args.h"
#include "shim/cache.h"
#include "shim/comm.h"
#include "shim/run.h"
#include "shim/site.h"

/* Runs an intercepted call: pass-through, native with accounting, or planned and executed by
 * hrelay. Returns what the MPI call returns. */
int shim_alltoall_any(const shim_args *a);

/* An agreed call: its arguments, where it was made, its description and what it prepared. */
typedef struct shim_call {
    const shim_args *a;
    shim_comm *rec;
    shim_site *site;  /* NULL when out of memory (then not counted) */
    int request;      /* what the call runs for: SHIM_AUTO, native or a family */
    exec_exchange x;  /* the arguments normalised (shim_describe) */
    int status;       /* shim_describe's result on this rank */
    shim_facts facts; /* what the pattern is matched on besides the bytes */
    uint64_t row_hash;
    uint64_t pattern; /* this rank's part of the pattern: row and facts (a hash; 0: none) */
    shim_run run;     /* what this rank prepared to run */
    /* after the agreement */
    int hist;         /* the agreed site whose history learns (-1: the communicator's only) */
    int cls;          /* the size class (plan_learn_class), -1: not learning (not auto) */
    int again;        /* agreed: the call is the communicator's previous agreed call again
                         (every rank's part of the pattern) */
    int lost;         /* agreed: every rank's call is one whose plans lost on an earlier
                         communicator and decide its checks still (lost.h) */
    int drift_settled; /* agreed: the call is of the size class of the drifting calls whose
                          settlement on an earlier communicator started the run before it
                          (shim_prev.alike_done) */
    int explored;     /* the call runs a candidate to measure it */
    int waiting;      /* a candidate to measure does not fit the budget yet: MPI's runs */
    plan_wait wait;   /* waiting: what measuring it is predicted to cost, its estimate and the
                         best (when the budget or its saving will allow it) */
    uint64_t best_ps; /* the best estimate then */
    uint64_t native_ps; /* a new pattern: MPI's algorithm as the forecast estimated it (0:
                           none) */
} shim_call;

#endif
