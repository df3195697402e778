/* Calls that MPI's algorithm settled, remembered across communicators (see settled.h). */
#include "shim/settled.h"

#include "plan/hash.h"
#include "shim/comm.h"
#include "shim/state.h"

/* This rank's key of the call (see settled.h): equal for the same site, communicator size,
 * node layout and part of the pattern; 0 where it has none. */
static uint64_t key_of(const shim_comm *rec, const shim_site *site, uint64_t pattern)
{
    if (!rec || !site || !pattern || !rec->topo_local || !rec->topo_ok)
        return 0;
    uint64_t w[3] = {(uint64_t)site->key, (uint64_t)rec->p, pattern};
    uint64_t h = plan_hash_words(PLAN_HASH_START, w, 3);
    const plan_topo *t = &rec->topo.t;
    for (int i = 0; i < t->p; i++) {
        uint64_t node = (uint64_t)(uint32_t)t->node_of[i];
        h = plan_hash_words(h, &node, 1);
    }
    return h | 1;
}

/* The entry of key in s, -1 where none. */
static int entry(const shim_settled *s, uint64_t key)
{
    for (int i = 0; i < SHIM_SETTLED_MAX; i++)
        if (s->key[i] == key)
            return i;
    return -1;
}

void shim_settled_note(shim_world *w, const shim_comm *rec, const shim_site *site, uint64_t pattern,
                       uint64_t run)
{
    uint64_t key = w && run ? key_of(rec, site, pattern) : 0;
    if (!key)
        return;
    shim_world_lock(w);
    shim_settled *s = &w->settled;
    int i = entry(s, key);
    if (i < 0) {
        i = s->next;
        s->next = (s->next + 1) % SHIM_SETTLED_MAX;
        s->used += s->key[i] == 0;
        s->key[i] = key;
    }
    s->run[i] = run;
    shim_world_unlock(w);
}

void shim_settled_forget(shim_world *w, const shim_comm *rec, const shim_site *site,
                         uint64_t pattern)
{
    if (!w)
        return;
    shim_world_lock(w);
    shim_settled *s = &w->settled;
    uint64_t key = s->used ? key_of(rec, site, pattern) : 0;
    int i = key ? entry(s, key) : -1;
    if (i >= 0) {
        s->key[i] = s->run[i] = 0;
        s->used--;
    }
    shim_world_unlock(w);
}

uint64_t shim_settled_find(shim_world *w, const shim_comm *rec, const shim_site *site,
                           uint64_t pattern)
{
    uint64_t key = w ? key_of(rec, site, pattern) : 0;
    if (!key)
        return 0;
    shim_world_lock(w);
    int i = entry(&w->settled, key);
    uint64_t run = i >= 0 ? w->settled.run[i] : 0;
    shim_world_unlock(w);
    return run;
}
