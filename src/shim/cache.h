/* The plan cache of a communicator: slots of known patterns and the programs they share. */
#ifndef HRELAY_SHIM_CACHE_H
#define HRELAY_SHIM_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "exec/exec.h"
#include "plan/choose.h"
#include "plan/local.h"
#include "plan/node_shm.h"
#include "plan/plan.h"
#include "shim/topo.h"

struct shim_comm;

/* One family's plan for one pattern, as this rank runs it: its part of the plan (the full plan
 * is freed after planning), with what the decision and the report need. Shared by the cache
 * slots of one pattern (refs). */
typedef struct shim_prog {
    int refs;
    plan_algo algo;
    plan_local lo;     /* detached: owns its segments */
    uint64_t staging;  /* staging bytes this rank needs */
    size_t nsteps;
    uint64_t model_ps; /* plan_cost_plan */
    size_t nsegments;  /* of the whole plan */
    uint64_t mean_transfer; /* bytes per transfer of the whole plan */
    uint32_t max_ops;       /* the most transfers one rank sends and receives in the plan */
    int steps; /* steps in flight when it runs (exec_opts.steps; shim_topo_steps) */
    size_t sync_steps; /* nsteps when it runs in synchronised steps (exec_opts.sync_steps;
                          shim_topo_sync; model_ps then includes the barriers), else 0 */
    unsigned char *sync_starts; /* with sync_steps, for node-direct: the steps that begin a
                          group (exec_opts.sync_starts; plan_node_step_groups), owned; NULL:
                          every step */
    plan_shm shm; /* node-aggregate under HRELAY_NODE_SHM=1: its transfers within the node
                     through the node's window (plan_shm_build; nsteps 0: none made) */
    int shm_ok;   /* agreed over the node at its first run: 0 not yet, 1 through the window,
                     -1 as messages */
} shim_prog;

/* Releases one reference (freeing at the last); p may be NULL. */
void shim_prog_release(shim_prog *p);

/* Sets how prog runs on topology st of p ranks, from its family, steps and model: its steps in
 * flight (shim_topo_steps) and synchronised steps (shim_topo_sync); for node-direct in
 * synchronised steps with pl (the plan whose steps prog runs, nodes by node_of as in
 * plan_node_step_loads; NULL: unknown) the groups of steps that run without barriers between
 * them (plan_node_step_groups at shim_topo_join_bytes; without the memory for them, every step
 * alone). Adds the barriers between groups to its model. */
void shim_prog_set_run(shim_prog *prog, const shim_topo *st, int p, const plan *pl,
                       const int32_t *node_of);

/* What a call's pattern is matched on besides the bytes: the call kind, MPI_IN_PLACE, the
 * request it is run for, and the type facts (gcd of the type sizes, denseness). */
typedef struct shim_facts {
    int kind; /* shim_kind */
    int inplace;
    int request;
    uint64_t types; /* 2 * gcd(send, receive type size) + both dense */
} shim_facts;

/* One cached pattern. Slots are filled, used and evicted only at agreed points, identically
 * on every rank, so slot numbers mean the same pattern everywhere. */
typedef struct shim_slot {
    uint64_t used; /* call number of the last use; 0 = empty */
    shim_facts facts;
    uint64_t row_hash;
    uint64_t *row;        /* bytes this rank sends to each rank (p) */
    uint64_t *col;        /* bytes each rank sends this rank (p) */
    uintptr_t site;       /* this rank's call site (key) */
    uint64_t matrix_hash; /* the whole pattern: matrix and facts (the same on every rank) */
    uint64_t gen;         /* identifies this filling of the slot (the call number) */
    plan_choice choice;
    shim_prog *prog[PLAN_ALGO_COUNT];
    uint64_t model_native_ps;
    uint64_t overhead_ps; /* the model of what the pattern's first call cost beyond its
                             exchange (agreements, gather, planning) */
    uint64_t window_make_ps; /* the node's window for it, estimated (shim_window_make_estimate) */
    uint64_t bound_ps;       /* its lower bound by a calibration (HRELAY_CONFIG; 0: built-in
                                costs, whose bound says nothing of the network) */
    /* between shim_decide and shim_decide_trim: the candidates and what happened */
    int ncand;
    plan_candidate cand[PLAN_CHOICE_MAX];
    uint32_t trials; /* measured calls per candidate (0: decided by the model) */
    int worth_only;  /* only plans modeled to beat MPI's algorithm are measured (shim_decide) */
    uint32_t failed; /* bit per family whose planning failed on this rank */
    int planned;     /* plans built */
    int lost_noted;  /* its plans' loss is remembered across communicators (lost.h) */
    plan_algo first_algo; /* the candidate its first call ran (a plan: its exchange timed) */
    int first_variant;
    uint64_t first_exchange_ps; /* that plan's exchange alone, the slowest rank's (0: none) */
} shim_slot;

/* Empties slot s (its plans released; its row and column arrays stay). */
void shim_slot_clear(shim_slot *s);

/* Releases slot s's plans and nothing else: for a slot whose memory is freed next. */
void shim_slot_release(shim_slot *s);

/* Makes slot s share the decision and plans of src (which holds the same pattern). */
void shim_slot_share(shim_slot *s, const shim_slot *src);

/* The slots of rec whose local key equals this call's (row, facts, site) and whose receive
 * needs fit the receive counts x describes: a bit mask (bit i: slot i). */
uint64_t shim_cache_match(const struct shim_comm *rec, const uint64_t *row, uint64_t row_hash,
                          const shim_facts *f, uintptr_t site, const exec_exchange *x);

/* A slot already holding the whole pattern matrix_hash (for a new local key of a known
 * pattern), or -1. */
int shim_cache_find_pattern(const struct shim_comm *rec, uint64_t matrix_hash,
                            const shim_facts *f);

/* The slot a new pattern goes to: the lowest empty one, else the least recently used other
 * than `keep` (which is cleared). */
int shim_cache_victim(struct shim_comm *rec, int keep);

#endif
