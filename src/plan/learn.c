/* Corrections of the cost model learned from measured calls (see learn.h). */
#include <string.h>

#include "plan/learn.h"

_Static_assert(PLAN_LEARN_KEYS <= 256 && PLAN_LEARN_CLASSES <= 256, "a cell's tags are bytes");

/* Bounds of a ratio. */
#define RATIO_MIN (PLAN_LEARN_ONE / 256)
#define RATIO_MAX (PLAN_LEARN_ONE * 4096u)

int plan_learn_key(plan_algo algo, int variant)
{
    return (int)algo + (variant > 0 && variant < PLAN_LEARN_VARIANTS ? variant : 0) *
                           PLAN_ALGO_COUNT;
}

int plan_learn_class(uint64_t bytes)
{
    if (bytes < 4)
        return 0;
    int k = (63 - __builtin_clzll(bytes)) / 2;
    return k < PLAN_LEARN_CLASSES ? k : PLAN_LEARN_CLASSES - 1;
}

/* A cell's estimate (n >= 1): the mean of its samples but the largest where it holds three or
 * more (one outlier does not count; a slow mode that recurs does, in proportion), else the
 * lower median (one sample, or the smaller of two). */
static uint32_t cell_estimate(const plan_learn_cell *c)
{
    uint32_t s[PLAN_LEARN_RING];
    for (int i = 0; i < c->n; i++) { /* insertion sort: at most PLAN_LEARN_RING */
        int k = i;
        for (; k > 0 && s[k - 1] > c->ratio[i]; k--)
            s[k] = s[k - 1];
        s[k] = c->ratio[i];
    }
    if (c->n < 3)
        return s[0];
    uint64_t sum = 0;
    for (int i = 0; i + 1 < c->n; i++)
        sum += s[i];
    return (uint32_t)(sum / (uint64_t)(c->n - 1));
}

/* The largest of a cell's samples over its smallest, fixed point (n >= 1). */
static uint32_t cell_spread(const plan_learn_cell *c)
{
    uint32_t lo = c->ratio[0], hi = c->ratio[0];
    for (int i = 1; i < c->n; i++) {
        lo = c->ratio[i] < lo ? c->ratio[i] : lo;
        hi = c->ratio[i] > hi ? c->ratio[i] : hi;
    }
    uint64_t q = (uint64_t)hi * PLAN_LEARN_ONE / lo; /* lo >= RATIO_MIN > 0 */
    return q > UINT32_MAX ? UINT32_MAX : (uint32_t)q;
}

/* Whether cell c (with samples) is stale at tick now. */
static int cell_stale(const plan_learn_cell *c, uint64_t now)
{
    uint32_t after = (uint32_t)PLAN_LEARN_STALE_MIN << c->backoff;
    return (uint32_t)now - c->last >= after;
}

/* Where cell c stands in the search for class cls (cls, then cls - 1, cls + 1, cls - 2,
 * cls + 2: the lower class first at equal distance), or NO_RANK beyond PLAN_LEARN_REACH or
 * without samples. */
enum { NO_RANK = 2 * PLAN_LEARN_REACH + 1 };
static int cell_rank(const plan_learn_cell *c, int cls)
{
    int d = (int)c->cls - cls;
    int rank = d < 0 ? -2 * d - 1 : 2 * d;
    return c->n && rank < NO_RANK ? rank : NO_RANK;
}

/* The cell plan_learn_ratio reads for key in class cls: the nearest class with samples within
 * reach (cell_rank), the first such cell; NULL if none. */
static const plan_learn_cell *nearest_cell(const plan_learner *l, int key, int cls)
{
    if (key < 0 || key >= PLAN_LEARN_KEYS)
        return NULL;
    const plan_learn_cell *best = NULL;
    int best_rank = NO_RANK;
    for (int i = 0; i < l->used; i++) {
        const plan_learn_cell *c = &l->cell[i];
        int rank = c->key == key ? cell_rank(c, cls) : NO_RANK;
        if (rank < best_rank) {
            best = c;
            best_rank = rank;
        }
    }
    return best;
}

/* The cell of key in class cls, taken (and emptied) if the learner holds none yet: a free one,
 * else the one sampled longest ago. */
static plan_learn_cell *cell_for(plan_learner *l, int key, int cls)
{
    int oldest = 0;
    for (int i = 0; i < l->used; i++) {
        if (l->cell[i].key == key && l->cell[i].cls == cls)
            return &l->cell[i];
        if ((uint32_t)l->now - l->cell[i].last > (uint32_t)l->now - l->cell[oldest].last)
            oldest = i;
    }
    int i = l->used < PLAN_LEARN_CELLS ? l->used++ : oldest;
    l->cell[i] = (plan_learn_cell){.key = (uint8_t)key, .cls = (uint8_t)cls};
    return &l->cell[i];
}

plan_learn_state plan_learn_ratio(const plan_learner *l, int key, int cls, uint32_t *ratio)
{
    const plan_learn_cell *c = nearest_cell(l, key, cls);
    *ratio = c ? c->estimate : PLAN_LEARN_ONE;
    if (!c)
        return PLAN_LEARN_UNKNOWN;
    return cell_stale(c, l->now) ? PLAN_LEARN_STALE : PLAN_LEARN_KNOWN;
}

int plan_learn_samples(const plan_learner *l, int key, int cls)
{
    const plan_learn_cell *c = nearest_cell(l, key, cls);
    return c ? c->n : 0;
}

void plan_learn_view_of(const plan_learner *l, int cls, plan_learn_view *v)
{
    const plan_learn_cell *best[PLAN_LEARN_KEYS] = {0};
    uint8_t best_rank[PLAN_LEARN_KEYS];
    memset(best_rank, NO_RANK, sizeof best_rank);
    for (int i = 0; l && i < l->used; i++) {
        const plan_learn_cell *c = &l->cell[i];
        if (c->key >= PLAN_LEARN_KEYS)
            continue;
        int rank = cell_rank(c, cls);
        if (rank < best_rank[c->key]) {
            best[c->key] = c;
            best_rank[c->key] = (uint8_t)rank;
        }
    }
    for (int k = 0; k < PLAN_LEARN_KEYS; k++) {
        const plan_learn_cell *c = best[k];
        v->ratio[k] = c ? c->estimate : PLAN_LEARN_ONE;
        v->state[k] = !c                      ? PLAN_LEARN_UNKNOWN
                      : cell_stale(c, l->now) ? PLAN_LEARN_STALE
                                              : PLAN_LEARN_KNOWN;
        v->samples[k] = c ? c->n : 0;
        v->spread[k] = c ? cell_spread(c) : PLAN_LEARN_ONE;
        v->latest[k] = c ? c->ratio[(c->at + PLAN_LEARN_RING - 1) % PLAN_LEARN_RING]
                         : PLAN_LEARN_ONE;
    }
}

uint64_t plan_learn_apply(uint64_t model_ps, uint32_t ratio)
{
    if (ratio <= RATIO_MAX && model_ps <= UINT64_MAX / RATIO_MAX) /* no 128-bit division */
        return model_ps * ratio / PLAN_LEARN_ONE;
    unsigned __int128 v = (unsigned __int128)model_ps * ratio / PLAN_LEARN_ONE;
    return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

void plan_learn_record(plan_learner *l, int key, int cls, uint64_t measured_ps,
                       uint64_t model_ps)
{
    if (model_ps == 0 || key < 0 || key >= PLAN_LEARN_KEYS || cls < 0 ||
        cls >= PLAN_LEARN_CLASSES)
        return;
    unsigned __int128 r = measured_ps <= UINT64_MAX / PLAN_LEARN_ONE
                              ? measured_ps * PLAN_LEARN_ONE / model_ps
                              : (unsigned __int128)measured_ps * PLAN_LEARN_ONE / model_ps;
    uint32_t ratio = r < RATIO_MIN ? RATIO_MIN : r > RATIO_MAX ? RATIO_MAX : (uint32_t)r;
    plan_learn_cell *c = cell_for(l, key, cls);
    if (c->n && cell_stale(c, l->now)) {
        c->n = c->at = 0;
        if (((uint64_t)PLAN_LEARN_STALE_MIN << (c->backoff + 1)) <= PLAN_LEARN_STALE_MAX)
            c->backoff++;
    } else if (c->n) {
        c->backoff = 0;
    }
    c->ratio[c->at] = ratio;
    c->at = (uint8_t)((c->at + 1) % PLAN_LEARN_RING);
    if (c->n < PLAN_LEARN_RING)
        c->n++;
    c->estimate = cell_estimate(c);
    c->last = (uint32_t)l->now;
}

void plan_learn_tick(plan_learner *l)
{
    l->now++;
}
