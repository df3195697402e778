/* The agreement of an intercepted call: what every rank brings, combined by one small
 * allreduce into what all ranks know (agree.c). */
#ifndef HRELAY_SHIM_AGREE_H
#define HRELAY_SHIM_AGREE_H

#include <mpi.h>
#include <stdint.h>

#include "plan/summary.h"
#include "shim/settings.h"

/* One rank's part of a call's agreement, and after shim_agree what the ranks agreed. Each
 * field says how ranks combine it. */
typedef struct shim_agreement {
    /* combined by AND: true after the agreement only if true on every rank */
    uint64_t slots; /* cache slots this rank's call matches (bit i: slot i < SHIM_CACHE_MAX) */
    int ok;         /* this rank's arguments are fine */
    int timed;      /* this rank timed the previous agreed call (prev_*_ps) */
    int can_gather; /* this rank has the memory to gather the pattern */
    int repeat;     /* this rank's part of the pattern is one of its last agreed calls' at the
                       same site: after, the whole pattern probably repeats */
    int again;      /* this rank's part of the pattern is its part at the communicator's
                       previous agreed call: after, the whole call is that one again */
    int history;    /* this rank holds the history of its site (shim_history_ready) */
    int lost;       /* this rank's call is one whose plans lost on an earlier communicator and
                       decide its checks still (shim_lost_find) */
    /* combined by MAX */
    uint64_t prev_exec_ps;  /* this rank's time of the previous agreed call's exchange (the
                               plan's self-copy and run, or MPI's call); after: the slowest's */
    uint64_t prev_whole_ps; /* and of that whole call (agreements, gather, planning
                               included; the node window's making not) */
    uint64_t prev_setup_ps; /* and of the node window's making in it (0: none made) */
    int prepared;     /* the slot this rank prepared a run for, -1 for none; after: the slot
                         every rank that prepared one prepared, or -1 if they differ (or none
                         did) */
    int site;         /* this rank's index of the call's site, -1 for none; after: the index
                         if every rank brought the same, else -1 */
    uint64_t unchecked; /* calls this rank made at the site without agreement since its last
                           agreed call there */
    /* the call's summary: its max words by MAX, its sum words by SUM, its blocks by MAX (the
       block array is the caller's, summary.nblocks words) */
    plan_summary summary;
} shim_agreement;

/* The wire form of an agreement: SHIM_AGREE_AND words combined by bitwise AND, then
 * SHIM_AGREE_SUM words by sum, then SHIM_AGREE_MAX words and the summary's blocks by maximum,
 * all unsigned 64-bit; shim_agree_words(nblocks) words in all. The first word holds that
 * length and the lengths of the AND and SUM ranges (the same on every rank, so AND keeps it),
 * which is how the reduction knows an element's layout (shim_agree_few's elements have their
 * own). A new field takes a word in the range of its operation (shim_agree_pack and _unpack
 * place it). */
enum {
    SHIM_AGREE_AND = 3, /* the length, the slots, the flags */
    SHIM_AGREE_SUM = PLAN_SUMMARY_SUM,
    SHIM_AGREE_MAX = 8 + PLAN_SUMMARY_MAX, /* three times, `prepared` and `site` twice each
                                              (1 + index, LIMIT - index), `unchecked`, the
                                              summary's max words */
    SHIM_AGREE_FIXED = SHIM_AGREE_AND + SHIM_AGREE_SUM + SHIM_AGREE_MAX
};

/* The words of an agreement whose summary has nblocks blocks. */
int shim_agree_words(size_t nblocks);

/* Packs a into its wire form w (shim_agree_words(a->summary.nblocks) words). */
void shim_agree_pack(const shim_agreement *a, uint64_t *w);

/* Unpacks the wire form w (as combined over ranks) into a; a->summary.block must hold
 * a->summary.nblocks words and a->summary.p be set. */
void shim_agree_unpack(const uint64_t *w, shim_agreement *a);

/* Combines n wire forms in into inout, word by word with each range's operation (what the
 * reduction does between two ranks); each element's length is in its first word. */
void shim_agree_combine(const uint64_t *in, uint64_t *inout, int n);

/* Creates the reduction operation of the agreement (at MPI_Init). Returns an MPI error code. */
int shim_agree_op_create(MPI_Op *op);

/* Creates the element type of agreements of `words` words (one per communicator). Returns an
 * MPI error code (then *type is MPI_DATATYPE_NULL). */
int shim_agree_type_create(int words, MPI_Datatype *type);

/* The most words shim_agree_few agrees on. */
enum { SHIM_FEW_WORDS = 7 };

/* Creates shim_agree_few's element type (at MPI_Init). Returns an MPI error code (then *type
 * is MPI_DATATYPE_NULL). */
int shim_agree_few_type_create(MPI_Datatype *type);

/* One allreduce over comm of the n words w (n <= SHIM_FEW_WORDS): the first nand combined by
 * bitwise AND, the next nsum by sum (modulo 2^64), the others by maximum, all unsigned. On
 * success w is what all ranks agreed; returns an MPI error code. It is one element of
 * hrelay's operation: MPICH 4.0.2 reduces that by recursive doubling, where it reduces two or
 * more words of MPI_UINT64_T otherwise (on 2 ranks of one node 0.33 against 0.67 us a call). */
int shim_agree_few(uint64_t *w, int n, int nand, int nsum, MPI_Comm comm);

/* One small allreduce over comm of an element of type `type` (shim_agree_type_create with
 * shim_agree_words(a->summary.nblocks)), w its scratch of as many words: a (this rank's part)
 * becomes what all ranks agreed. Returns an MPI error code. */
int shim_agree(shim_agreement *a, MPI_Comm comm, MPI_Datatype type, uint64_t *w);

#endif
