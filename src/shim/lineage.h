/* Lineages: the communicators of one group (the same ranks in the same order), such as
 * MPI_COMM_WORLD and its duplicates, or the halves a repeated MPI_Comm_split makes (lineage.c).
 *
 * Every rank of such a communicator is in every other one, and a correct MPI program makes
 * its collective calls so that it would not deadlock if they all synchronised: every rank
 * makes the calls of a lineage's communicators in the same order. So what their agreed calls
 * leave in the process (the run the first agreement of the last one started) is the same on
 * every rank at the first call of the next, and that call can use it without communication.
 * A rank finds a communicator's lineage locally (an attribute copied to its duplicates, else a
 * comparison of its group with the lineages known), and a run is kept only where every rank of
 * the communicator found it (agreed), so a rank whose table is full keeps the others from
 * inheriting rather than deciding otherwise. Under MPI_THREAD_MULTIPLE that order is not
 * given, and lineages are off. */
#ifndef HRELAY_SHIM_LINEAGE_H
#define HRELAY_SHIM_LINEAGE_H

#include <mpi.h>
#include <stdint.h>

struct shim_comm;
struct shim_world;

/* Lineages a process knows: MPI_COMM_WORLD's and the groups met first (none is forgotten:
 * a rank that forgot one would decide otherwise than the ranks that did not). */
enum { SHIM_LINEAGES = 16 };

/* One lineage (in the world's record, under its lock). */
typedef struct shim_lineage {
    MPI_Group group; /* its communicators' group */
    int size;        /* of that group */
    uint32_t run;    /* the run of unchecked calls the last first agreement of one of its
                        communicators started (0: none, or a plan ran on one since) */
    uint32_t uses;   /* communicators that may still start with that run (HRELAY_INHERIT) */
} shim_lineage;

/* Creates the attribute that marks a communicator's lineage (copied by MPI_Comm_dup to every
 * duplicate) and, where on (HRELAY_INHERIT > 0 below MPI_THREAD_MULTIPLE), makes
 * MPI_COMM_WORLD's group w's first lineage and marks MPI_COMM_WORLD with it. Returns an MPI
 * error code (then *keyval is not created). */
int shim_lineage_create(struct shim_world *w, int *keyval, int on);

/* Frees w's lineages' groups (before MPI_Finalize). */
void shim_lineage_free(struct shim_world *w);

/* The lineage of comm (its index + 1), found or made now where comm is not marked yet; 0
 * where lineages are off, or the process knows SHIM_LINEAGES others. Local. */
int shim_lineage_of(MPI_Comm comm);

/* At the first call of a communicator of lineage `lineage` (shim_lineage_of; 0: none), which
 * defers its record's creation (shim_comm_defers): the calls after this one that run MPI's
 * algorithm unchecked before the creation is agreed: the lineage's run where it has one and a
 * use is left (it takes the use), else 0. The same on every rank of the communicator. Local. */
uint32_t shim_lineage_take(int lineage);

/* Where comm's first call could not make its record (shim_comm_unmade) and took `run` from
 * its lineage, keeps that count on comm for shim_lineage_defer. */
void shim_lineage_keep(MPI_Comm comm, uint32_t run);

/* On a communicator whose first call could not make its record: whether this call is one of
 * the calls shim_lineage_keep kept (it counts it), which then run MPI's algorithm as on the
 * ranks that made theirs. Local. */
int shim_lineage_defer(MPI_Comm comm);

/* After the first agreement of rec (its record's creation agreed, with the call it decided):
 * where rec has a lineage and started with no inherited run, the lineage's run becomes the run
 * of unchecked calls that agreement started (quiet_until) where settled is set (the call ran
 * MPI's algorithm as too small to explore, or as the same call an earlier communicator
 * settled: deferred_second's cases that the creation alone decides for a pattern, not a site;
 * and every rank of rec found its lineage, agreed), and its uses HRELAY_INHERIT; else 0 (a run
 * started because every byte stayed within nodes, started whatever is measured, is not kept
 * either). Not kept, on one node, 2 ranks, in a benchmark's fresh communicators of 20 calls: a
 * run a full agreement started (exploring to come: at 1 MiB per rank, where plans win, most
 * runs ran MPI's algorithm through their 20 calls, an inherited run before their own), and a
 * drifting site's remembered run (a drifting MoE routing of 1 MiB per rank kept 0.89 - 1.06 x
 * native's time instead of 0.84 - 1.00). Nor does a communicator that inherited keep its own
 * (the run went on from row to row). A function of agreed values only. */
void shim_lineage_note(struct shim_world *w, const struct shim_comm *rec, int settled);

/* Where a plan ran a call on rec (agreed): if rec has a lineage, its run is forgotten (the
 * next communicator agrees its second call). */
void shim_lineage_forget(struct shim_world *w, const struct shim_comm *rec);

#endif
