/* What one call runs: a cached plan's execution prepared on this rank before the ranks agree
 * (so that nothing can fail on one rank after the others committed), then run (run.c). */
#ifndef HRELAY_SHIM_RUN_H
#define HRELAY_SHIM_RUN_H

#include <stdint.h>

#include "exec/exec.h"
#include "plan/plan.h"
#include "shim/args.h"
#include "shim/cache.h"
#include "shim/comm.h"

/* Tag of plan messages on a private communicator. */
enum { SHIM_TAG_PLAN = 1 };

/* The window of a plan's PLAN_VARIANT_SMALL_WINDOW: operations in flight (the others run
 * HRELAY_WINDOW). */
enum { SHIM_SMALL_WINDOW = 4 };

/* What one call prepared: the exec view of the plan it runs (with its staging) and the packed
 * copy of the data to send under MPI_IN_PLACE. Zero-initialised (with slot -1) before use. */
typedef struct shim_run {
    exec_view *view;
    void *stage;
    int slot;       /* the slot the view was prepared for, -1 if none */
    plan_algo algo; /* the family the call runs */
    int variant;    /* PLAN_VARIANT_*: BASE and NODE_WINDOW with HRELAY_WINDOW operations in
                       flight, SMALL_WINDOW with SHIM_SMALL_WINDOW; NODE_WINDOW (node-aggregate)
                       through the node's window as HRELAY_NODE_SHM=1 */
    int steps;      /* the prepared program's steps in flight (shim_prog.steps) */
    size_t sync_steps; /* the prepared program's synchronised steps (shim_prog.sync_steps) */
    const unsigned char *sync_starts; /* its groups of them (shim_prog.sync_starts), owned by
                                         the program */
    shim_prog *prog; /* the prepared program (its transfers within the node: shim_prog.shm) */
    double setup_s;  /* of the last shim_run_execute: seconds spent making the node's window
                        (once per communicator's node and size, not the pattern's price) */
} shim_run;

/* Releases what a call prepared (r stays usable). */
void shim_run_free(shim_run *r);

/* Prepares this rank's run of prog on x (the MPI_IN_PLACE copy once, the view, its staging).
 * Returns 0, or -1 if anything failed here (memory, a plan this rank cannot run, staging over
 * HRELAY_MAX_STAGING, prog NULL). */
int shim_run_prepare(const shim_args *a, shim_comm *rec, exec_exchange *x, shim_prog *prog,
                     shim_run *r);

/* Prepares the run of family algo (its variant) of slot s and agrees over all ranks that it
 * worked; if it did not everywhere, r->algo becomes native (this call only). Returns an MPI
 * error code (of the allreduce). */
int shim_run_prepare_agreed(const shim_args *a, shim_comm *rec, exec_exchange *x, shim_slot *s,
                            plan_algo algo, int variant, shim_run *r);

/* The staging bytes prog needs on this rank for x, or UINT64_MAX if this rank cannot run it.
 * (Under MPI_IN_PLACE the send side is not staged yet: it has the receive side's layout.) */
uint64_t shim_prog_staging(const shim_prog *prog, const exec_exchange *x);

/* The name of family algo run as variant `variant`, for verbose lines: the family's name, with
 * "/window N" for the small window and "/shared memory" for the node's window; written into
 * buf (cap bytes) when needed. */
const char *shim_run_name(plan_algo algo, int variant, char *buf, size_t cap);

/* Runs r->algo (prepared in r: the self-copy and the plan, with the window of r->variant) or
 * PMPI; *ps receives the time in picoseconds, r->setup_s the part of it (made first, not in
 * *ps) the node's window took to make. Returns an MPI error code. */
int shim_run_execute(const shim_args *a, shim_comm *rec, const exec_exchange *x, shim_run *r,
                     uint64_t *ps);

#endif
