/* Calls whose plans lost to MPI's algorithm, remembered across communicators (lost.c): a
 * program that makes the same exchange at the same site on fresh communicators of one size (a
 * benchmark's runs, a library that duplicates its caller's communicator per object) explores a
 * family there on each, and where plans lose (on one node, 2 ranks, 1 MiB per rank: a
 * permutation, a sparse or a power-law exchange, 1.04 - 1.06 x MPI's time over 20 calls, most
 * of it the exploring calls) every communicator paid that again. Remembered, the pattern's
 * agreement on a later communicator finds it (every rank must: an AND bit of the agreement, or
 * of the creation's allreduce at a fresh communicator's second call, exchange.c) and runs
 * MPI's algorithm without gathering, for a number of such checks (its span): none
 * after a first loss (one communicator's few calls can lose by chance where MPI's calls and the
 * plans' stall now and then: a sample sort on 16 emulated hosts with 20 ms switch buffers),
 * SHIM_LOST_SPAN_FIRST once a second communicator's plans lost too, then twice as many, up to
 * SHIM_LOST_SPAN_MAX, each time a communicator explores the call again after the span and its
 * plans lose again; a plan that runs the call as the best estimate makes the process forget
 * it. */
#ifndef HRELAY_SHIM_LOST_H
#define HRELAY_SHIM_LOST_H

#include <stdint.h>

struct shim_comm;
struct shim_site;
struct shim_world;

/* Calls remembered per process (the oldest goes), and the spans. */
enum { SHIM_LOST_MAX = 32, SHIM_LOST_SPAN_FIRST = 4, SHIM_LOST_SPAN_MAX = 64 };

/* The process's memory of calls whose plans lost (in the world's record, under its lock), each
 * known by this rank's key of it (shim_call_key). */
typedef struct shim_lost {
    uint64_t key[SHIM_LOST_MAX];  /* each call's key, 0: free */
    uint32_t left[SHIM_LOST_MAX]; /* the checks it still decides (0: the next explores) */
    uint32_t span[SHIM_LOST_MAX]; /* the checks it decided after its last note (0: one loss,
                                     deciding nothing yet) */
    int next;                     /* the entry the next new call takes */
    int used;                     /* entries not free */
} shim_lost;

/* Remembers that on rec, at site, the call with this rank's part of the pattern `pattern` was
 * explored and every plan measured lost to MPI's algorithm: it decides its next span of checks
 * (none at a first loss, SHIM_LOST_SPAN_FIRST at the second in a row, else twice the last
 * span). Nothing where site or pattern is missing or rec's topology is not known without
 * communication. */
void shim_lost_note(struct shim_world *w, const struct shim_comm *rec, const struct shim_site *site,
                    uint64_t pattern);

/* Forgets that call (a plan ran it as its communicator's choice). */
void shim_lost_forget(struct shim_world *w, const struct shim_comm *rec,
                      const struct shim_site *site, uint64_t pattern);

/* Whether that call is remembered with checks left to decide (w NULL: no). */
int shim_lost_find(struct shim_world *w, const struct shim_comm *rec, const struct shim_site *site,
                   uint64_t pattern);

/* Counts one check that call decided (its agreement found it remembered on every rank); returns
 * the checks it still decides after this one. */
uint32_t shim_lost_use(struct shim_world *w, const struct shim_comm *rec,
                       const struct shim_site *site, uint64_t pattern);

#endif
