/* The process: what hrelay sets up at MPI_Init (state.c holds it, init.c fills it) and the
 * records shared by all communicators until MPI_Finalize. */
#ifndef HRELAY_SHIM_STATE_H
#define HRELAY_SHIM_STATE_H

#include <mpi.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "shim/comm_summary.h"
#include "shim/lineage.h"
#include "shim/lost.h"
#include "shim/settings.h"
#include "shim/settled.h"
#include "shim/site.h"

struct shim_comm;

/* The process-wide record, created at MPI_Init and freed at MPI_Finalize: statistics of
 * communicators already freed, the records of those alive, and plans already dumped. Mutable
 * only under shim_world_lock. */
typedef struct shim_world {
    pthread_mutex_t lock;
    int threaded;            /* MPI_THREAD_MULTIPLE: shim_world_lock really locks */
    shim_sites retired;      /* sites of freed communicators */
    shim_comm_summaries comms; /* topologies of freed communicators (comm_summary.h) */
    struct shim_comm **live; /* records of communicators not freed yet */
    size_t nlive, cap_live;
    int nprivate;        /* live records holding a private duplicate (SHIM_PRIVATE_MAX) */
    int private_warned;  /* the limit's warning was printed */
    int32_t *node_label; /* HRELAY_NODE_SIZE=auto: the shared-memory node of every rank of
                            MPI_COMM_WORLD, as its lowest world rank (shim_world_labels); NULL
                            when unknown (a communicator's topology is then found over it) */
    uint64_t *dumped; /* hashes of plans already written to HRELAY_DUMP */
    size_t ndumped, cap_dumped;
    int dump_warned;
    shim_settled settled; /* calls MPI's algorithm settled, across communicators (settled.c) */
    shim_lost lost;       /* calls whose plans lost to MPI's algorithm, across communicators
                             (lost.c) */
    shim_lineage lineage[SHIM_LINEAGES]; /* the lineages known (lineage.h), MPI_COMM_WORLD's
                                            first */
    int nlineages;                       /* of them (0: lineages off) */
} shim_world;

/* A new, empty process-wide record; NULL when out of memory. */
shim_world *shim_world_create(void);

/* Frees w (NULL is fine). */
void shim_world_free(shim_world *w);

/* Collective over MPI_COMM_WORLD (size ranks, this one `rank`): finds the shared-memory node of
 * every rank of MPI_COMM_WORLD into w->node_label, or leaves it NULL on every rank if some rank
 * ran out of memory or MPI failed. Returns an MPI error code. */
int shim_world_labels(shim_world *w, int rank, int size);

/* Takes w's lock, under MPI_THREAD_MULTIPLE only: at lower thread levels one thread at a time
 * calls MPI, so the per-call path pays no locking. */
static inline void shim_world_lock(shim_world *w)
{
    if (w->threaded)
        pthread_mutex_lock(&w->lock);
}

/* Releases what shim_world_lock took. */
static inline void shim_world_unlock(shim_world *w)
{
    if (w->threaded)
        pthread_mutex_unlock(&w->lock);
}

/* Set by MPI_Init / MPI_Init_thread, read-only until MPI_Finalize. */
typedef struct shim_state {
    int started; /* shim_startup ran (it runs once, whichever binding initialised MPI) */
    int active;  /* hrelay intercepts (initialised, not disabled) */
    shim_config cfg;
    int world_rank, world_size;
    int keyval;              /* attribute of communicator records (comm.h) */
    int request_keyval;      /* attribute of hrelay_set_algorithm's request on a
                                communicator without a record yet (control.c) */
    int lineage_keyval;      /* attribute marking a communicator's lineage (lineage.h) */
    MPI_Op agree_op;         /* the agreement's reduction (agree.h; each communicator's
                                record has its element type) */
    MPI_Datatype few_type;   /* the element of a few words agreed with it (shim_agree_few) */
    MPI_Comm self;           /* a duplicate of MPI_COMM_SELF whose errors return: where
                                hrelay asks MPI to check a datatype (validate.h) */
    shim_world *world;
} shim_state;

extern shim_state shim_g;

#endif
