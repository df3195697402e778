/* Calls that MPI's algorithm settled, remembered across communicators (see settled.h). */
#include "shim/settled.h"

#include "plan/hash.h"
#include "shim/comm.h"
#include "shim/state.h"

uint64_t shim_call_key(const shim_comm *rec, const shim_site *site, uint64_t pattern)
{
    if (!rec || !site || !rec->topo_local || !rec->topo_ok)
        return 0;
    uint64_t w[4] = {(uint64_t)site->key, (uint64_t)rec->p, pattern, rec->topo.layout};
    return plan_hash_words(PLAN_HASH_START, w, 4) | 1;
}

/* The entry of key in s, -1 where none. */
static int entry(const shim_settled *s, uint64_t key)
{
    for (int i = 0; i < SHIM_SETTLED_MAX; i++)
        if (s->key[i] == key)
            return i;
    return -1;
}

/* Remembers key with run, cls and waited (key 0: nothing). */
static void note(shim_world *w, uint64_t key, uint64_t run, int cls, int waited)
{
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
    s->cls[i] = cls;
    s->waited[i] = waited != 0;
    shim_world_unlock(w);
}

void shim_settled_note(shim_world *w, const shim_comm *rec, const shim_site *site, uint64_t pattern,
                       uint64_t run)
{
    note(w, w && run && pattern ? shim_call_key(rec, site, pattern) : 0, run, 0, 0);
}

void shim_settled_note_site(shim_world *w, const shim_comm *rec, const shim_site *site, int cls,
                            uint64_t run, int waited)
{
    note(w, w && run ? shim_call_key(rec, site, 0) : 0, run, cls, waited);
}

/* Forgets key's entry, if any (the world locked). */
static void drop(shim_settled *s, uint64_t key)
{
    int i = key ? entry(s, key) : -1;
    if (i >= 0) {
        s->key[i] = s->run[i] = 0;
        s->used--;
    }
}

void shim_settled_forget(shim_world *w, const shim_comm *rec, const shim_site *site,
                         uint64_t pattern)
{
    if (!w)
        return;
    shim_world_lock(w);
    shim_settled *s = &w->settled;
    if (s->used && pattern)
        drop(s, shim_call_key(rec, site, pattern));
    if (s->used)
        drop(s, shim_call_key(rec, site, 0));
    shim_world_unlock(w);
}

/* The run, class and waiting remembered for key (0: none). */
static uint64_t find(shim_world *w, uint64_t key, int *cls, int *waited)
{
    if (!key)
        return 0;
    shim_world_lock(w);
    int i = entry(&w->settled, key);
    uint64_t run = i >= 0 ? w->settled.run[i] : 0;
    if (cls)
        *cls = i >= 0 ? w->settled.cls[i] : 0;
    if (waited)
        *waited = i >= 0 ? w->settled.waited[i] : 0;
    shim_world_unlock(w);
    return run;
}

uint64_t shim_settled_find(shim_world *w, const shim_comm *rec, const shim_site *site,
                           uint64_t pattern)
{
    return w && pattern ? find(w, shim_call_key(rec, site, pattern), NULL, NULL) : 0;
}

uint64_t shim_settled_find_site(shim_world *w, const shim_comm *rec, const shim_site *site,
                                int *cls, int *waited)
{
    *cls = *waited = 0;
    return w ? find(w, shim_call_key(rec, site, 0), cls, waited) : 0;
}
