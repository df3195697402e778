/* Calls that MPI's algorithm settled, remembered across communicators (settled.c): a program
 * that makes the same exchange at the same site on fresh communicators of one size (a
 * benchmark's runs, a library that duplicates its caller's communicator per object) finds at
 * the new communicator's second call what the earlier one decided, so that the second call
 * agrees the record's creation alone instead of the creation and the agreement (exchange.c,
 * deferred_second). So does a program whose counts change on every call at that site (a
 * sample sort's new splitters), where the earlier communicator settled the site's drifting
 * calls of a size class on MPI's algorithm. */
#ifndef HRELAY_SHIM_SETTLED_H
#define HRELAY_SHIM_SETTLED_H

#include <stdint.h>

struct shim_comm;
struct shim_site;
struct shim_world;

/* Calls remembered per process (the oldest goes). */
enum { SHIM_SETTLED_MAX = 32 };

/* The process's memory of settled calls (in the world's record, under its lock). A call is
 * known by this rank's key of it: its site, the communicator's size and node layout, and this
 * rank's part of its pattern; a site's drifting calls by the same without a pattern. */
typedef struct shim_settled {
    uint64_t key[SHIM_SETTLED_MAX]; /* each call's key, 0: free */
    uint64_t run[SHIM_SETTLED_MAX]; /* the unchecked run its agreement started, in calls (a
                                       site's: the run its times make worth one agreement, or
                                       the run started while a family waits if shorter) */
    int cls[SHIM_SETTLED_MAX];      /* a site's: the size class of its calls settled */
    unsigned char waited[SHIM_SETTLED_MAX]; /* a site's: a family waited for the budget then */
    int next;                       /* the entry the next new call takes */
    int used;                       /* entries not free */
} shim_settled;

/* This rank's key of a call on rec at site with this rank's part of the pattern `pattern`,
 * the same on any communicator of rec's size and node layout: a hash of the site, the size,
 * the part of the pattern (0: the site's drifting calls, a key no call's pattern gives) and
 * the layout; 0 where site is missing or rec's topology is not known without communication. */
uint64_t shim_call_key(const struct shim_comm *rec, const struct shim_site *site, uint64_t pattern);

/* Remembers that an agreed call on rec at site, with this rank's part of the pattern
 * `pattern`, settled on MPI's algorithm before gathering and started an unchecked run of `run`
 * calls. Nothing where run is 0, site or pattern missing, or rec's topology is not known
 * without communication (then no communicator finds it). */
void shim_settled_note(struct shim_world *w, const struct shim_comm *rec,
                       const struct shim_site *site, uint64_t pattern, uint64_t run);

/* Remembers that the drifting calls (each a new pattern) at site on rec, of the agreed size
 * class cls, settled on MPI's algorithm before gathering, and that a run of `run` unchecked
 * calls is what one agreement is worth at their measured times (or, where a family waits for
 * the exploration budget, the run that started if shorter; waited: whether one did). Nothing
 * where run is 0, site is missing, or rec's topology is not known without communication. */
void shim_settled_note_site(struct shim_world *w, const struct shim_comm *rec,
                            const struct shim_site *site, int cls, uint64_t run, int waited);

/* Forgets that call, and the drifting calls of its site (a plan ran it): two hashes of four
 * words and a look over the entries. */
void shim_settled_forget(struct shim_world *w, const struct shim_comm *rec,
                         const struct shim_site *site, uint64_t pattern);

/* The run remembered for that call on any communicator of rec's size and node layout, 0 where
 * none (w NULL included). */
uint64_t shim_settled_find(struct shim_world *w, const struct shim_comm *rec,
                           const struct shim_site *site, uint64_t pattern);

/* The run remembered for site's drifting calls on any communicator of rec's size and node
 * layout (their class into *cls, whether a family waited then into *waited), 0 where none (w
 * NULL included). */
uint64_t shim_settled_find_site(struct shim_world *w, const struct shim_comm *rec,
                                const struct shim_site *site, int *cls, int *waited);

#endif
