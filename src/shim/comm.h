/* hrelay's record of a user communicator: its private duplicate (made when the first pattern is
 * gathered), plan cache, call sites and the scratch memory of a call (comm_record.c). */
#ifndef HRELAY_SHIM_COMM_H
#define HRELAY_SHIM_COMM_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>

#include "plan/forecast.h"
#include "plan/plan.h"
#include "plan/summary.h"
#include "shim/args.h"
#include "shim/cache.h"
#include "shim/site.h"
#include "shim/state.h"
#include "shim/topo.h"

/* Call sites per communicator that learn on their own (the others share the communicator's
 * history). */
enum { SHIM_HISTORY_SITES = 8 };

/* The previous agreed call, whose measured times the next agreement carries, and what the
 * measurements are compared with. */
typedef struct shim_prev {
    int timed;         /* this rank measured it; else nothing is learned from it */
    uint64_t exec_ps;  /* its exchange: the plan's self-copy and run, or MPI's call */
    uint64_t whole_ps; /* the whole call but the node window's making */
    uint64_t setup_ps; /* the node window's making in it (0: none made) */
    int slot;          /* the cache slot whose choice it measured, -1: none */
    uint64_t gen;      /* that slot's filling */
    plan_algo algo;    /* what ran */
    int variant;
    int hist;          /* the agreed site whose history learns from it, -1: none */
    long site;         /* this rank's index of its site (statistics), -1: none */
    int cls;           /* its size class, -1: nothing to learn (not auto) */
    int tiny;          /* decided before gathering, too small to explore (agreed) */
    int waited;        /* it ran MPI's algorithm while a candidate waited for the exploration
                          budget (agreed) */
    uint64_t model_ps; /* the model of its exchange */
    uint64_t optimistic_ps; /* a plan's: its family's most optimistic time from the call's
                               summary (plan_summary_optimistic); 0: none */
    int over_key;      /* PLAN_LEARN_HIT or PLAN_LEARN_MISS */
    uint64_t over_model_ps; /* the model of the rest of the call */
    int explored;      /* it ran a candidate to measure it */
    int beside;        /* it ran MPI's algorithm to measure it beside winning plans
                          (plan_forecast.beside) */
    uint64_t first_bar_ps; /* a new pattern's first call that ran a plan of `slot`: what its
                              whole time must beat to count (plan_choice_first); 0: not one */
    uint64_t best_ps;  /* the best estimate then (what exploring is charged against) */
    int first;         /* the communicator's first call, which ran MPI's algorithm unchecked,
                          taught at the second, its part of the first again on every rank
                          (deferred_second): its size class and model are the second call's
                          agreed summary's (shim_history_first) */
    int alike_cls;     /* with first: the size class of a call decided as one whose drifting
                          calls an earlier communicator settled (deferred_second), which
                          teaches at the next agreed call of that class at an agreed site,
                          not only at the same call again; -1: none */
    int alike_done;    /* with alike_cls: no family waited for the exploration budget where
                          those calls settled, so that call's check explores nothing
                          (shim_call.drift_settled) */
} shim_prev;

/* A previous call that teaches nothing, at this rank's site index `site` (-1: none). */
static inline shim_prev shim_prev_none(long site)
{
    return (shim_prev){.slot = -1, .hist = -1, .site = site, .cls = -1};
}

/* hrelay's state for one user intracommunicator, an attribute of it. Only the thread making
 * a collective call on the communicator touches it (MPI forbids concurrent collectives on one
 * communicator), so it needs no lock. */
typedef struct shim_comm {
    MPI_Comm comm;  /* the user's communicator: hrelay's collectives that carry no user
                       data and no pattern (record creation, topology, the agreement) run on
                       it, in the order of the user's calls */
    MPI_Comm priv;  /* private duplicate (errors return) for the gathers and plans;
                       MPI_COMM_NULL until shim_comm_private makes it */
    int no_private; /* agreed: shim_comm_private declined; every call runs MPI's algorithm
                       unchecked */
    uint64_t tiny_alltoall; /* agreed: 0, or an MPI_Alltoall(_c) ran MPI's algorithm here,
                               decided too small to explore by its bytes, and later ones as
                               small run unchecked: 1 + their most bytes per pair
                               (shim_tiny_pair_bytes) */
    int p, rank;
    int request;           /* hrelay_set_algorithm's request, or SHIM_REQUEST_ENV */
    int last;              /* plan_algo of the family that ran the last call; -1 before any */
    int last_variant;      /* its PLAN_VARIANT_* (the base for MPI's algorithm) */
    char last_run[48];     /* hrelay_last_run's name, written when asked */
    uint64_t calls;        /* intercepted calls on this communicator (equal on every rank) */
    uint64_t agreed;       /* of those, calls that ran the agreement */
    uint64_t last_planned; /* `agreed` at the last agreed call whose pattern may run a plan */
    uint64_t last_pattern; /* this rank's part of the pattern at the last agreed call (0:
                              none) */
    uint64_t quiet_until;  /* calls up to this number run natively without agreement */
    uint64_t quiet_len;    /* the length of the next run of unchecked calls */
    uint64_t patterns;     /* distinct patterns gathered so far */
    uint64_t last_agreed;  /* `calls` at the last agreed call */
    uint64_t first_load;   /* agreed at creation: the bound of the call that created the
                              record (the most any rank sends or receives, plan_summary_bound;
                              UINT64_MAX: unknown) */
    int first_on_node;     /* agreed at creation: every rank's topology was known then and no
                              byte of that call left its node (plan_summary_on_node) */
    int pending;           /* made by the communicator's first call, which ran MPI's algorithm
                              unchecked (shim_comm_open): its creation is agreed at the call
                              after the deferred ones (shim_comm_settle); until then
                              first_load, last_pattern and prev.site are this rank's of the
                              last deferred call, not agreed */
    uint32_t defer;        /* the calls after the first that run MPI's algorithm unchecked
                              before the creation is agreed (shim_lineage_take; equal on every
                              rank) */
    int lineage;           /* the communicator's lineage (lineage.h): its index + 1, 0: none */
    int topo_local;        /* topo was found without communication (shim_topo_init_local) */
    int topo_ok;           /* this rank found it (else out of memory) */
    shim_prev prev;        /* the previous agreed call */
    /* agreed: the exchanges of MPI's algorithm measured in the agreed calls since the last that
       was not the one before it again, oldest first (the last ones kept), and how many
       (plan_choice_native_seen) */
    uint64_t native_seen[PLAN_CHOICE_SECOND];
    uint32_t native_seen_n;
    MPI_Datatype agree_type; /* the agreement's element (agree.h) */
    uint64_t *agree_buf;   /* its wire form (shim_agree_words of the summary's blocks) */
    plan_summary summary;  /* this call's summary: this rank's, then agreed (its blocks are
                              the record's) */
    plan_history *hist;    /* what the communicator learned (part of the record) */
    plan_budget budget;    /* what its calls and exploring cost */
    int window_made;       /* a node's window was made on it (agreed at the call after the
                              making: 0 until then) */
    plan_history *site_hist[SHIM_HISTORY_SITES]; /* per agreed site index, created on first
                              use; agreed: all ranks have it or none uses it */
    unsigned char site_off[SHIM_HISTORY_SITES]; /* a rank could not create it: not used */
    const char *last_why;  /* the reason of the last forecast printed (HRELAY_VERBOSE) */
    exec_type type_memo[2]; /* the last send and receive types described where they are
                               common predefined ones (shim_type_common; size 0: none) */
    int nslots;             /* HRELAY_CACHE_SIZE once slot is made (shim_comm_private), 0 before */
    shim_slot *slot;        /* the pattern cache: NULL until the first gather */
    shim_sites sites;
    uint64_t *gather; /* p * (p + 2) words: gathered rows, then the p x p matrix; allocated
                         at the first new pattern (shim_comm_gather_buffer) */
    MPI_Count *scount, *rcount; /* normalised counts of the current call */
    MPI_Aint *sdispl, *rdispl;  /* normalised displacements in bytes */
    uint64_t *row;              /* this call's row */
    uint64_t *col;              /* this call's column: bytes each rank sends this one (from the
                                   receive counts) */
    shim_topo topo;             /* the node of every rank (HRELAY_NODE_SIZE), node communicators */
} shim_comm;

/* What calls on rec run for: hrelay_set_algorithm's request on it, else HRELAY_ALGO's
 * (SHIM_AUTO, native or a family). */
static inline int shim_comm_request(const shim_comm *rec)
{
    return rec->request != SHIM_REQUEST_ENV ? rec->request : shim_g.cfg.algo;
}

/* Live records holding a private duplicate, at most, per process: each takes a context id
 * (MPICH 4.0.2 has 2048 per process), and with its node communicators up to three. */
enum { SHIM_PRIVATE_MAX = 128 };

/* The first run of unchecked native calls after a request changes (see call.c). */
enum { SHIM_QUIET_FIRST = 8 };

/* Creates the attribute keys of communicator records and of hrelay_set_algorithm's requests
 * made before a communicator's first call (both or neither). Returns an MPI error code. */
int shim_comm_keyval_create(int *keyval, int *request_keyval);

/* The record of comm, or NULL if it has none yet. Local. */
shim_comm *shim_comm_find(MPI_Comm comm);

/* Creates comm's record at call a, the first that needs it: collective over comm (one
 * allreduce agrees that every rank got its memory and, where it needs none, the topology).
 * The creating call's bound (shim_args_load) is agreed into the record's first_load, and
 * whether no byte of it leaves its node into first_on_node; the request is what
 * hrelay_set_algorithm left on comm, if anything. NULL on every rank if it cannot be
 * created. */
shim_comm *shim_comm_create(MPI_Comm comm, const shim_args *a);

/* The flags of a record's creation, each combined by AND over ranks (shim_comm_flags): the
 * rank made its record, found its topology, and no byte of the creating call leaves its node
 * (of two nodes or more: a communicator on one node has none to stay on, as its summaries).
 * The bits above SHIM_CREATION_FLAGS are the caller's. */
enum { SHIM_MADE = 1, SHIM_TOPO_OK = 2, SHIM_ON_NODE = 4, SHIM_CREATION_FLAGS = 7 };

/* The request attribute of a communicator whose first call could not make its record
 * (shim_comm_open): the second call still takes part in the creation's agreement. */
enum { SHIM_REQUEST_UNMADE = -2 };

/* This rank's flags for the creation of rec at call a (SHIM_MADE and the others; 0 where rec is
 * NULL: no record), and in *load the call's bound (shim_args_load; 0 without a record). */
uint64_t shim_comm_flags(const shim_comm *rec, const shim_args *a, uint64_t *load);

/* Whether comm's first intercepted call runs MPI's algorithm unchecked and its record's
 * creation is agreed at the second call (shim_comm_open, shim_comm_settle): under auto with
 * learning and re-checks (HRELAY_ALGO=auto, or an hrelay_set_algorithm request for auto
 * waiting on comm). The same on every rank (HRELAY_ALGO and the requests are). Local. */
int shim_comm_defers(MPI_Comm comm);

/* Makes comm's record at its first call without communication (shim_comm_defers), pending
 * (rec->pending) until shim_comm_settle at the call after it and the rec->defer calls its
 * lineage lets run MPI's algorithm first (shim_lineage_take). NULL when out of memory: then
 * comm is marked (shim_comm_unmade, and shim_lineage_keep), so that that call still takes part
 * in that agreement. Local. */
shim_comm *shim_comm_open(MPI_Comm comm);

/* Whether comm's first call could not make its record (shim_comm_open). Local. */
int shim_comm_unmade(MPI_Comm comm);

/* Settles a record that shim_comm_open made (rec, or NULL on a rank that could not), once flags
 * and load are agreed over comm (AND and MAX of shim_comm_flags' words and the load that is
 * to stand as rec->first_load): rec, complete, where every rank made its record; else NULL on
 * every rank, the record or mark removed from comm (the next call is a first call again).
 * Collective where the topology needs communication (shim_topo_init). */
shim_comm *shim_comm_settle(MPI_Comm comm, shim_comm *rec, uint64_t flags, uint64_t load);

/* Moves at every record deletion (comm_record.c); read it with shim_comm_epoch. */
extern atomic_uint shim_comm_epochs;

/* A number that changes whenever a record is deleted (its communicator freed), so that a
 * cache of communicator -> record stays valid as long as it does not change. (Inline: the
 * unchecked path reads it on every call, quiet.h.) */
static inline unsigned shim_comm_epoch(void)
{
    return atomic_load_explicit(&shim_comm_epochs, memory_order_acquire);
}

/* Frees the record of MPI_COMM_WORLD, if any (at MPI_Finalize); its sites join the world's. */
void shim_comm_release_world(void);

/* At MPI_Finalize: every site of the process (of freed communicators and of those still
 * alive) merged into *out (shim_sites_free it). Returns 0, or -1 when out of memory. */
int shim_world_sites(shim_world *w, shim_sites *out);

/* Makes sure rec->priv and rec's cache slots exist: collective over rec->comm at the same call
 * on every rank (an agreed decision to gather). Returns 1 if they exist on every rank; else 0
 * on every rank, now and for every later call, with rec->no_private set (SHIM_PRIVATE_MAX live
 * duplicates on some rank, a rank out of memory, or MPI_Comm_dup failed). */
int shim_comm_private(shim_comm *rec);

/* Makes sure rec->gather is allocated ((p + 2) p words). Returns 0, or -1 out of memory. */
int shim_comm_gather_buffer(shim_comm *rec);

#endif
