/* Learning the cost model's error from measured calls: per key (a family and its variant, MPI's
 * own algorithm, or an overhead) and size class, the last few ratios measured / modeled, whose
 * mean but the largest corrects the model of later calls, new patterns included. Pure C, no MPI,
 * integer arithmetic: fed the same agreed measurements in the same order, every rank holds the
 * same corrections. */
#ifndef HRELAY_PLAN_LEARN_H
#define HRELAY_PLAN_LEARN_H

#include <stdint.h>

#include "plan/plan.h"

/* The variants a family runs in: as configured, with the small window (operations in flight),
 * and, for node-aggregate, with its transfers within a node through the node's shared-memory
 * window instead of messages. */
enum { PLAN_VARIANT_BASE, PLAN_VARIANT_SMALL_WINDOW, PLAN_VARIANT_NODE_WINDOW };

/* Keys: a family's key with its variant (PLAN_VARIANT_*, each measured against its plan's
 * model; PLAN_LEARN_BEFORE: the family's exchange, whichever window ran,
 * measured against its most optimistic time from the call's summary, what the forecast before
 * gathering corrects), then two overheads: what a call costs beyond its exchange when it
 * reuses a decision (the agreement), and when it gathers the pattern (agreements, the gather,
 * planning, preparation). */
enum {
    PLAN_LEARN_BEFORE = PLAN_VARIANT_NODE_WINDOW + 1,
    PLAN_LEARN_VARIANTS,
    PLAN_LEARN_HIT = PLAN_LEARN_VARIANTS * PLAN_ALGO_COUNT,
    PLAN_LEARN_MISS,
    PLAN_LEARN_KEYS
};

/* Size classes (log4 of the busiest rank's bytes: class k holds [4^k, 4^(k+1)), class 0 also
 * 0), samples kept per key and class, and how far (in classes) a correction reaches. */
enum { PLAN_LEARN_CLASSES = 32, PLAN_LEARN_RING = 5, PLAN_LEARN_REACH = 2 };

/* Ratios are fixed point with this one, clamped to [1/256, 4096]. */
#define PLAN_LEARN_ONE ((uint32_t)1 << 16)

/* A correction goes stale (its key is re-checked) this many ticks after its last sample, the
 * interval doubling, up to PLAN_LEARN_STALE_MAX, each time a stale one is measured again. */
enum { PLAN_LEARN_STALE_MIN = 32, PLAN_LEARN_STALE_MAX = 4096 };

/* Cells a learner holds: (key, class) pairs it has samples of. A site meets a few families in
 * a few size classes; when all are taken, a new pair replaces the one sampled longest ago. */
enum { PLAN_LEARN_CELLS = 64 };

/* The samples of one key in one class. */
typedef struct plan_learn_cell {
    uint32_t ratio[PLAN_LEARN_RING]; /* measured / modeled, PLAN_LEARN_ONE = 1 */
    uint32_t estimate;               /* their mean but the largest (see plan_learn_ratio) */
    uint8_t n, at;                   /* samples held; the next to overwrite */
    uint8_t backoff;                 /* stale PLAN_LEARN_STALE_MIN << backoff ticks on */
    uint8_t key, cls;                /* what it holds */
    uint32_t last;                   /* the learner's tick of the last sample (modulo 2^32) */
} plan_learn_cell;

/* What one call site (or one communicator) has learned: 2.3 KB (a dense table of every key and
 * class took 38 KB, whose first touch cost 100 - 150 us on a fresh communicator of a virtual
 * machine). Zero-initialised: nothing known. */
typedef struct plan_learner {
    uint64_t now; /* ticks: agreed calls of the scope */
    int used;     /* cells in use: cell[0 .. used) */
    plan_learn_cell cell[PLAN_LEARN_CELLS];
} plan_learner;

/* How much a correction can be trusted. */
typedef enum plan_learn_state {
    PLAN_LEARN_UNKNOWN, /* no sample within PLAN_LEARN_REACH classes: the ratio is 1 */
    PLAN_LEARN_KNOWN,   /* measured, recently enough */
    PLAN_LEARN_STALE    /* measured, but long ago: worth measuring again */
} plan_learn_state;

/* The key of family `algo` (native included) with variant v (< PLAN_LEARN_VARIANTS). */
int plan_learn_key(plan_algo algo, int variant);

/* The size class of an exchange whose busiest rank moves `bytes`. */
int plan_learn_class(uint64_t bytes);

/* The correction of key in class cls: of the ratios of the nearest class that has samples (cls,
 * then cls - 1, cls + 1, cls - 2, cls + 2), their mean but the largest (with fewer than three,
 * the smallest: a slow mode that recurs counts in proportion, one outlier not at all) into
 * *ratio, and its state; with none, *ratio = PLAN_LEARN_ONE and PLAN_LEARN_UNKNOWN. */
plan_learn_state plan_learn_ratio(const plan_learner *l, int key, int cls, uint32_t *ratio);

/* How many measured calls the correction plan_learn_ratio gives for key in class cls rests on
 * (0: unknown). */
int plan_learn_samples(const plan_learner *l, int key, int cls);

/* The corrections of every key in one class, as plan_learn_ratio and plan_learn_samples give
 * them key by key. */
typedef struct plan_learn_view {
    uint32_t ratio[PLAN_LEARN_KEYS];
    uint32_t spread[PLAN_LEARN_KEYS]; /* the largest of those samples over the smallest, fixed
                                         point (PLAN_LEARN_ONE: one sample, all alike, or none) */
    uint8_t state[PLAN_LEARN_KEYS];   /* plan_learn_state */
    uint8_t samples[PLAN_LEARN_KEYS]; /* what plan_learn_samples gives */
    uint32_t latest[PLAN_LEARN_KEYS]; /* the most recent of those samples (PLAN_LEARN_ONE:
                                         none) */
} plan_learn_view;

/* Fills v with the corrections of every key in class cls (l NULL: none known), in one pass over
 * l's cells: v->ratio[key] and v->state[key] are what plan_learn_ratio(l, key, cls) gives,
 * v->samples[key] what plan_learn_samples does, v->spread[key] how far the samples the
 * correction rests on disagree, v->latest[key] the last of them. */
void plan_learn_view_of(const plan_learner *l, int cls, plan_learn_view *v);

/* model_ps corrected by ratio (model * ratio / PLAN_LEARN_ONE, saturating). */
uint64_t plan_learn_apply(uint64_t model_ps, uint32_t ratio);

/* Records a call of key in class cls measured at measured_ps against its model model_ps
 * (ignored when the model is 0). A stale cell forgets its old samples first (the re-check
 * starts afresh) and goes stale twice as late next time; a cell measured while fresh goes
 * stale after PLAN_LEARN_STALE_MIN ticks again. A pair not held yet takes a free cell, else
 * the one whose last sample is the oldest (the first such): the same on every rank that
 * records the same calls. */
void plan_learn_record(plan_learner *l, int key, int cls, uint64_t measured_ps,
                       uint64_t model_ps);

/* One tick of the learner's clock (an agreed call of its scope). */
void plan_learn_tick(plan_learner *l);

#endif
