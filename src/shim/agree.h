/* The agreement of an intercepted call: what every rank brings, combined by one small
 * allreduce into what all ranks know (agree.c). */
#ifndef HRELAY_SHIM_AGREE_H
#define HRELAY_SHIM_AGREE_H

#include <mpi.h>
#include <stdint.h>

#include "shim/settings.h"

/* One rank's part of a call's agreement, and after shim_agree what the ranks agreed. Each
 * field says how ranks combine it. */
typedef struct shim_agreement {
    /* combined by AND: true after the agreement only if true on every rank */
    uint64_t slots; /* cache slots this rank's call matches (bit i: slot i < SHIM_CACHE_MAX) */
    int ok;         /* this rank's arguments are fine */
    int timed;      /* this rank timed the previous agreed call (prev_ps) */
    int can_gather; /* this rank has the memory to gather the pattern */
    /* combined by MAX */
    uint64_t prev_ps; /* this rank's time of the previous agreed call; after: the slowest's */
    int prepared;     /* the slot this rank prepared a run for, -1 for none; after: the slot
                         every rank that prepared one prepared, or -1 if they differ (or none
                         did) */
} shim_agreement;

/* The wire form of an agreement: SHIM_AGREE_AND words combined by bitwise AND, then
 * SHIM_AGREE_MAX words by maximum, then SHIM_AGREE_SUM words by sum, all unsigned 64-bit.
 * A new field takes a word in the range of its operation (shim_agree_pack and _unpack place
 * it); the element type and the reduction follow these counts. */
enum {
    SHIM_AGREE_AND = 1, /* slots and the three flags */
    SHIM_AGREE_MAX = 3, /* prev_ps, and `prepared` twice (1 + slot, SHIM_CACHE_MAX - slot) */
    SHIM_AGREE_SUM = 0,
    SHIM_AGREE_WORDS = SHIM_AGREE_AND + SHIM_AGREE_MAX + SHIM_AGREE_SUM
};

/* Packs a into its wire form w. */
void shim_agree_pack(const shim_agreement *a, uint64_t w[SHIM_AGREE_WORDS]);

/* Unpacks the wire form w (as combined over ranks) into a. */
void shim_agree_unpack(const uint64_t w[SHIM_AGREE_WORDS], shim_agreement *a);

/* Combines n wire forms in into inout, word by word with each range's operation (what the
 * reduction does between two ranks). */
void shim_agree_combine(const uint64_t *in, uint64_t *inout, int n);

/* Creates the reduction operation of the agreement and its element type (at MPI_Init).
 * Returns an MPI error code (then nothing is left allocated). */
int shim_agree_op_create(MPI_Op *op, MPI_Datatype *type);

/* Frees what shim_agree_op_create made (at MPI_Finalize). */
void shim_agree_op_free(MPI_Op *op, MPI_Datatype *type);

/* One small allreduce over comm: a (this rank's part) becomes what all ranks agreed. Returns
 * an MPI error code. */
int shim_agree(shim_agreement *a, MPI_Comm comm);

#endif
