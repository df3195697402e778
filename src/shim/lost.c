/* Calls whose plans lost to MPI's algorithm, remembered across communicators (see lost.h). */
#include "shim/lost.h"

#include "shim/comm.h"
#include "shim/settled.h"
#include "shim/state.h"

/* The entry of key in l, -1 where none (key 0: none). */
static int entry(const shim_lost *l, uint64_t key)
{
    for (int i = 0; key && l->used && i < SHIM_LOST_MAX; i++)
        if (l->key[i] == key)
            return i;
    return -1;
}

/* Makes l remember key (its entry i, -1 where none: the oldest entry goes) for its next span:
 * none at a first loss, SHIM_LOST_SPAN_FIRST at the second in a row, then twice the last;
 * returns its entry. */
static int note(shim_lost *l, uint64_t key, int i)
{
    uint32_t span = 0;
    if (i >= 0) {
        span = !l->span[i]                           ? SHIM_LOST_SPAN_FIRST
               : l->span[i] < SHIM_LOST_SPAN_MAX / 2 ? 2 * l->span[i]
                                                     : SHIM_LOST_SPAN_MAX;
    } else {
        i = l->next;
        l->next = (l->next + 1) % SHIM_LOST_MAX;
        l->used += l->key[i] == 0;
        l->key[i] = key;
    }
    l->left[i] = l->span[i] = span;
    return i;
}

/* What can be done to a call's entry. */
typedef enum lost_op { LOST_LOOK, LOST_USE, LOST_NOTE, LOST_FORGET } lost_op;

/* Does op to the entry of that call under the world's lock (LOST_USE: one check it decided);
 * returns the checks it decides after (0: none, or not remembered). */
static uint32_t apply(shim_world *w, const shim_comm *rec, const shim_site *site, uint64_t pattern,
                      lost_op op)
{
    uint64_t key = w && pattern ? shim_call_key(rec, site, pattern) : 0;
    if (!key)
        return 0;
    shim_world_lock(w);
    shim_lost *l = &w->lost;
    int i = entry(l, key);
    if (op == LOST_NOTE) {
        i = note(l, key, i);
    } else if (op == LOST_FORGET && i >= 0) {
        l->key[i] = 0;
        l->left[i] = l->span[i] = 0;
        l->used--;
    } else if (op == LOST_USE && i >= 0 && l->left[i]) {
        l->left[i]--;
    }
    uint32_t left = i >= 0 ? l->left[i] : 0;
    shim_world_unlock(w);
    return left;
}

void shim_lost_note(shim_world *w, const shim_comm *rec, const shim_site *site, uint64_t pattern)
{
    apply(w, rec, site, pattern, LOST_NOTE);
}

void shim_lost_forget(shim_world *w, const shim_comm *rec, const shim_site *site, uint64_t pattern)
{
    apply(w, rec, site, pattern, LOST_FORGET);
}

int shim_lost_find(shim_world *w, const shim_comm *rec, const shim_site *site, uint64_t pattern)
{
    return apply(w, rec, site, pattern, LOST_LOOK) > 0;
}

uint32_t shim_lost_use(shim_world *w, const shim_comm *rec, const shim_site *site, uint64_t pattern)
{
    return apply(w, rec, site, pattern, LOST_USE);
}
