/* The plan container: builder, family names, bandwidth term and modeled cost. */
#include <stdlib.h>
#include <string.h>

#include "plan/bigmem.h"
#include "plan/plan.h"

static const char *const algo_names[PLAN_ALGO_COUNT] = {"native", "direct", "stepwise",
                                                         "greedy", "walker-otto", "transpose",
                                                         "forward", "node-direct",
                                                         "node-transpose", "node-forward",
                                                         "node-aggregate"};

const char *plan_algo_name(plan_algo algo)
{
    return (unsigned)algo < PLAN_ALGO_COUNT ? algo_names[algo] : "unknown";
}

int plan_algo_parse(const char *name, plan_algo *algo)
{
    for (int a = 0; a < PLAN_ALGO_COUNT; a++)
        if (strcmp(name, algo_names[a]) == 0) {
            *algo = (plan_algo)a;
            return 0;
        }
    return -1;
}

int plan_init(plan *pl, int p, plan_algo algo, plan_duplex duplex, plan_error *err)
{
    memset(pl, 0, sizeof *pl);
    if (p < 1)
        return plan_error_set(err, 0, "plan for %d ranks: need at least one", p);
    pl->step_begin = malloc(sizeof *pl->step_begin * 16);
    if (!pl->step_begin)
        return plan_error_set(err, 0, "out of memory starting a plan");
    pl->cap_steps = 16;
    pl->step_begin[0] = 0;
    pl->p = p;
    pl->algo = algo;
    pl->duplex = duplex;
    return 0;
}

void plan_free(plan *pl)
{
    free(pl->step_begin);
    free(pl->transfers);
    free(pl->segments);
    free(pl->node_of);
    memset(pl, 0, sizeof *pl);
}

/* Grows *array (element size elem, capacity *cap) to hold at least need elements. */
static int grow(void **array, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *a = plan_big_realloc(*array, n * elem);
    if (!a)
        return -1;
    *array = a;
    *cap = n;
    return 0;
}

int plan_reserve(plan *pl, size_t ntransfers, size_t nsegments, plan_error *err)
{
    if (grow((void **)&pl->transfers, &pl->cap_transfers, ntransfers, sizeof *pl->transfers) ||
        grow((void **)&pl->segments, &pl->cap_segments, nsegments, sizeof *pl->segments))
        return plan_error_set(err, 0, "out of memory for %zu transfers", ntransfers);
    return 0;
}

int plan_begin_step(plan *pl, plan_error *err)
{
    if (grow((void **)&pl->step_begin, &pl->cap_steps, pl->nsteps + 2, sizeof *pl->step_begin))
        return plan_error_set(err, 0, "out of memory at step %zu", pl->nsteps);
    pl->nsteps++;
    pl->step_begin[pl->nsteps] = pl->ntransfers;
    return 0;
}

int plan_add_transfer(plan *pl, int src, int dst, plan_error *err)
{
    if (pl->nsteps == 0)
        return plan_error_set(err, 0, "transfer added before the first step");
    if (grow((void **)&pl->transfers, &pl->cap_transfers, pl->ntransfers + 1,
             sizeof *pl->transfers))
        return plan_error_set(err, 0, "out of memory at transfer %zu", pl->ntransfers);
    pl->transfers[pl->ntransfers++] = (plan_transfer){
        .src = src, .dst = dst, .seg_begin = pl->nsegments, .nsegs = 0, .bytes = 0};
    pl->step_begin[pl->nsteps] = pl->ntransfers;
    return 0;
}

int plan_add_segment(plan *pl, int origin, int target, uint64_t offset, uint64_t bytes,
                     plan_error *err)
{
    if (pl->ntransfers == 0)
        return plan_error_set(err, 0, "segment added before the first transfer");
    if (grow((void **)&pl->segments, &pl->cap_segments, pl->nsegments + 1,
             sizeof *pl->segments))
        return plan_error_set(err, 0, "out of memory at segment %zu", pl->nsegments);
    pl->segments[pl->nsegments++] =
        (plan_segment){.origin = origin, .target = target, .offset = offset, .bytes = bytes};
    plan_transfer *t = &pl->transfers[pl->ntransfers - 1];
    t->nsegs++;
    t->bytes += bytes;
    return 0;
}

int plan_add_direct_transfers(plan *pl, const plan_segment *segs, size_t n, plan_error *err)
{
    if (pl->nsteps == 0)
        return plan_error_set(err, 0, "transfer added before the first step");
    if (plan_reserve(pl, pl->ntransfers + n, pl->nsegments + n, err))
        return -1;
    plan_transfer *t = pl->transfers + pl->ntransfers;
    if (segs != pl->segments + pl->nsegments)
        memcpy(pl->segments + pl->nsegments, segs, n * sizeof *segs);
    for (size_t k = 0; k < n; k++)
        t[k] = (plan_transfer){.src = segs[k].origin, .dst = segs[k].target, .nsegs = 1,
                               .seg_begin = pl->nsegments + k, .bytes = segs[k].bytes};
    pl->ntransfers += n;
    pl->nsegments += n;
    pl->step_begin[pl->nsteps] = pl->ntransfers;
    return 0;
}

void plan_end_step(plan *pl)
{
    if (pl->nsteps > 0 && pl->step_begin[pl->nsteps] == pl->step_begin[pl->nsteps - 1])
        pl->nsteps--;
}

/* The largest transfer of step s, in bytes. */
static uint64_t step_max(const plan *pl, size_t s)
{
    uint64_t mx = 0;
    for (size_t t = pl->step_begin[s]; t < pl->step_begin[s + 1]; t++)
        if (pl->transfers[t].bytes > mx)
            mx = pl->transfers[t].bytes;
    return mx;
}

uint64_t plan_bandwidth_term(const plan *pl)
{
    uint64_t sum = 0;
    for (size_t s = 0; s < pl->nsteps; s++)
        sum += step_max(pl, s);
    return sum;
}

double plan_modeled_cost(const plan *pl, const plan_model *model)
{
    double c = 0;
    for (size_t s = 0; s < pl->nsteps; s++)
        c += model->alpha_s + model->beta_s_per_byte * (double)step_max(pl, s);
    return c;
}
