/* HRELAY_DUMP: each distinct plan written once as JSON (plan_write_json), named by a hash of
 * what determines it (the matrix, the family and its options), so the same plan computed again,
 * on another communicator or by another process, lands in the same file. Files are written
 * under a temporary name and renamed, so a reader never sees half a plan. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan/hash.h"
#include "shim/dump.h"

/* The hash of the plan's inputs: p, family, minimum step and the matrix. */
static uint64_t plan_key(const plan *pl, const plan_matrix *m)
{
    uint64_t head[3] = {(uint64_t)m->p, (uint64_t)pl->algo, pl->min_step_bytes};
    uint64_t h = plan_hash_words(PLAN_HASH_START, head, 3);
    return plan_hash_words(h, m->bytes, (size_t)m->p * (size_t)m->p);
}

/* Records key in w's set of written plans. Returns 1 if it was new, 0 if already there, -1
 * when out of memory. */
static int remember(shim_world *w, uint64_t key)
{
    int rc = 1;
    shim_world_lock(w);
    for (size_t i = 0; i < w->ndumped && rc == 1; i++)
        if (w->dumped[i] == key)
            rc = 0;
    if (rc == 1 && w->ndumped == w->cap_dumped) {
        size_t cap = w->cap_dumped ? 2 * w->cap_dumped : 16;
        uint64_t *d = realloc(w->dumped, cap * sizeof *d);
        if (d) {
            w->dumped = d;
            w->cap_dumped = cap;
        } else {
            rc = -1;
        }
    }
    if (rc == 1)
        w->dumped[w->ndumped++] = key;
    shim_world_unlock(w);
    return rc;
}

/* Writes the plan unless already written (see dump.h). */
int shim_dump_plan(shim_world *w, const char *dir, const plan *pl, const plan_matrix *m,
                   const plan_cost_params *cost)
{
    uint64_t key = plan_key(pl, m);
    int fresh = remember(w, key);
    if (fresh <= 0) {
        if (fresh < 0)
            errno = ENOMEM;
        return fresh;
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return -1;

    char path[SHIM_PATH_MAX + 64], tmp[SHIM_PATH_MAX + 96];
    snprintf(path, sizeof path, "%s/plan-%016llx.json", dir, (unsigned long long)key);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -1;
    plan_model model = plan_cost_display(cost);
    int bad = plan_write_json(f, pl, m, &model) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return -1;
    }
    return 0;
}
