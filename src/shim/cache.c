/* The plan cache of a communicator: slots of known patterns, matched by this rank's part of
 * the pattern (what it sends, the call's facts, its call site) and agreed over ranks
 * (exchange_agreed.c, miss.c), plus the programs (plans) slots share. Slots change only at agreed
 * points, in the same way on every rank. */
#include <stdlib.h>
#include <string.h>

#include "plan/node.h"
#include "shim/cache.h"
#include "shim/comm.h"
#include "shim/log.h"
#include "shim/state.h"

void shim_prog_release(shim_prog *p)
{
    if (!p || --p->refs > 0)
        return;
    plan_local_free(&p->lo);
    plan_shm_free(&p->shm);
    free(p->sync_starts);
    free(p);
}

/* Sets prog->sync_starts from pl's node loads (see shim_prog_set_run) and returns the number of
 * groups of its synchronised steps: prog->sync_steps where the steps are not grouped. */
static size_t set_groups(shim_prog *prog, int p, const plan *pl, const int32_t *node_of)
{
    if (prog->algo != PLAN_ALGO_NODE_DIRECT || !pl || pl->nsteps != prog->sync_steps)
        return prog->sync_steps;
    uint64_t *loads = plan_node_step_loads(pl, node_of, pl->duplex);
    size_t groups = prog->sync_steps;
    if (loads && (prog->sync_starts = malloc(prog->sync_steps))) {
        uint64_t join = shim_topo_join_bytes(p);
        groups = plan_node_step_groups(loads, prog->sync_steps, join, prog->sync_starts);
        shim_log(2,
                 "node-direct: %zu synchronised steps in %zu groups (up to %llu bytes of node "
                 "load without a barrier)",
                 prog->sync_steps, groups, (unsigned long long)join);
    }
    free(loads);
    return groups;
}

void shim_prog_set_run(shim_prog *prog, const shim_topo *st, int p, const plan *pl,
                       const int32_t *node_of)
{
    prog->steps = shim_topo_steps(st, prog->algo);
    prog->sync_steps = shim_topo_sync(st, prog->algo, prog->nsteps, prog->model_ps, p);
    if (prog->sync_steps) {
        if (prog->algo != PLAN_ALGO_NODE_DIRECT) /* node-direct's: set_groups */
            shim_log(2, "%s: %zu synchronised steps", plan_algo_name(prog->algo), prog->sync_steps);
        uint64_t barriers = plan_cost_barrier(p, &shim_g.cfg.cost) *
                            (set_groups(prog, p, pl, node_of) - 1);
        prog->model_ps = prog->model_ps > UINT64_MAX - barriers ? UINT64_MAX
                                                                 : prog->model_ps + barriers;
    }
}

void shim_slot_clear(shim_slot *s)
{
    shim_slot_release(s);
    uint64_t *row = s->row, *col = s->col;
    memset(s, 0, sizeof *s);
    s->row = row; /* the arrays stay allocated with the slot */
    s->col = col;
}

void shim_slot_release(shim_slot *s)
{
    for (int a = 0; a < PLAN_ALGO_COUNT; a++)
        shim_prog_release(s->prog[a]);
}

void shim_slot_share(shim_slot *s, const shim_slot *src)
{
    s->choice = src->choice;
    s->model_native_ps = src->model_native_ps;
    s->overhead_ps = src->overhead_ps;
    s->window_make_ps = src->window_make_ps;
    for (int a = 0; a < PLAN_ALGO_COUNT; a++)
        if ((s->prog[a] = src->prog[a]))
            s->prog[a]->refs++;
}

/* Whether the bytes each rank sends this rank (col) fit the receive regions x describes. */
static int fits(const uint64_t *col, const exec_exchange *x)
{
    for (int i = 0; i < x->p; i++)
        if (col[i] > (uint64_t)x->recv.count[i] * (uint64_t)x->recv.type.size)
            return 0;
    return 1;
}

/* Whether two calls' facts are the same. */
static int same_facts(const shim_facts *a, const shim_facts *b)
{
    return a->kind == b->kind && a->inplace == b->inplace && a->request == b->request &&
           a->types == b->types;
}

uint64_t shim_cache_match(const shim_comm *rec, const uint64_t *row, uint64_t row_hash,
                          const shim_facts *f, uintptr_t site, const exec_exchange *x)
{
    uint64_t mask = 0;
    for (int i = 0; i < rec->nslots; i++) {
        const shim_slot *s = &rec->slot[i];
        if (s->used && s->row_hash == row_hash && s->site == site && same_facts(&s->facts, f) &&
            !memcmp(s->row, row, sizeof *row * (size_t)rec->p) && fits(s->col, x))
            mask |= 1ull << i;
    }
    return mask;
}

int shim_cache_find_pattern(const shim_comm *rec, uint64_t matrix_hash, const shim_facts *f)
{
    for (int i = 0; i < rec->nslots; i++) {
        const shim_slot *s = &rec->slot[i];
        if (s->used && s->matrix_hash == matrix_hash && same_facts(&s->facts, f))
            return i;
    }
    return -1;
}

int shim_cache_victim(shim_comm *rec, int keep)
{
    int victim = -1;
    for (int i = 0; i < rec->nslots; i++) {
        if (!rec->slot[i].used)
            return i;
        if (i != keep && (victim < 0 || rec->slot[i].used < rec->slot[victim].used))
            victim = i;
    }
    if (victim < 0)
        victim = keep; /* a cache of one slot */
    shim_slot_clear(&rec->slot[victim]);
    return victim;
}
