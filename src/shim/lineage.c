/* Lineages: communicators of one group (see lineage.h). */
#include "shim/lineage.h"

#include <stdint.h>

#include "shim/comm.h"
#include "shim/state.h"

/* The attribute's value: 0 where comm's lineage is not known yet; else the lineage's index + 1
 * in its low MARK_BITS (0 there: none) and, above them, the calls kept by shim_lineage_keep. */
enum { MARK_BITS = 8 };
#define MARK_INDEX(v) ((int)((v) & (((intptr_t)1 << MARK_BITS) - 1)))

/* The attribute's value on a duplicate: the parent's lineage (its count of calls kept by
 * shim_lineage_keep is its own). */
static int copy_mark(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)old;
    (void)keyval;
    (void)extra;
    *(void **)out = (void *)(intptr_t)MARK_INDEX((intptr_t)in);
    *flag = 1;
    return MPI_SUCCESS;
}

int shim_lineage_create(shim_world *w, int *keyval, int on)
{
    int rc = PMPI_Comm_create_keyval(copy_mark, MPI_COMM_NULL_DELETE_FN, keyval, NULL);
    if (rc != MPI_SUCCESS || !on)
        return rc;
    shim_lineage *world = &w->lineage[0];
    world->group = MPI_GROUP_NULL;
    if ((rc = PMPI_Comm_group(MPI_COMM_WORLD, &world->group)) == MPI_SUCCESS &&
        (rc = PMPI_Group_size(world->group, &world->size)) == MPI_SUCCESS &&
        (rc = PMPI_Comm_set_attr(MPI_COMM_WORLD, *keyval, (void *)(intptr_t)1)) == MPI_SUCCESS) {
        w->nlineages = 1;
        return MPI_SUCCESS;
    }
    if (world->group != MPI_GROUP_NULL)
        PMPI_Group_free(&world->group);
    PMPI_Comm_free_keyval(keyval);
    return rc;
}

void shim_lineage_free(shim_world *w)
{
    for (int i = 0; i < w->nlineages; i++)
        PMPI_Group_free(&w->lineage[i].group);
    w->nlineages = 0;
}

/* comm's attribute value (0: none). */
static intptr_t mark_of(MPI_Comm comm)
{
    void *v = NULL;
    int flag = 0;
    if (shim_g.lineage_keyval == MPI_KEYVAL_INVALID ||
        PMPI_Comm_get_attr(comm, shim_g.lineage_keyval, &v, &flag) != MPI_SUCCESS || !flag)
        return 0;
    return (intptr_t)v;
}

/* The index of the lineage of group *g in w, -1 where there is none; where no lineage has
 * *g and there is room, a new one takes it (*g becomes MPI_GROUP_NULL). */
static int lineage_index(shim_world *w, MPI_Group *g)
{
    int size = 0, same = MPI_UNEQUAL;
    if (PMPI_Group_size(*g, &size) != MPI_SUCCESS)
        return -1;
    for (int i = 0; i < w->nlineages; i++)
        if (w->lineage[i].size == size &&
            PMPI_Group_compare(*g, w->lineage[i].group, &same) == MPI_SUCCESS && same == MPI_IDENT)
            return i;
    if (w->nlineages == SHIM_LINEAGES)
        return -1;
    w->lineage[w->nlineages] = (shim_lineage){.group = *g, .size = size};
    *g = MPI_GROUP_NULL;
    return w->nlineages++;
}

int shim_lineage_of(MPI_Comm comm)
{
    intptr_t v = mark_of(comm);
    if (v > 0)
        return MARK_INDEX(v);
    shim_world *w = shim_g.world;
    if (!w || w->nlineages == 0)
        return 0;
    MPI_Group g = MPI_GROUP_NULL;
    if (PMPI_Comm_group(comm, &g) != MPI_SUCCESS)
        return 0;
    shim_world_lock(w);
    int index = lineage_index(w, &g);
    shim_world_unlock(w);
    if (g != MPI_GROUP_NULL)
        PMPI_Group_free(&g);
    if (index < 0)
        return 0;
    PMPI_Comm_set_attr(comm, shim_g.lineage_keyval, (void *)(intptr_t)(index + 1));
    return index + 1;
}

uint32_t shim_lineage_take(int lineage)
{
    if (lineage == 0)
        return 0;
    shim_world *w = shim_g.world;
    shim_lineage *l = &w->lineage[lineage - 1];
    uint32_t run = 0;
    shim_world_lock(w);
    if (l->run > 0 && l->uses > 0) {
        run = l->run;
        l->uses--;
    }
    shim_world_unlock(w);
    return run;
}

void shim_lineage_keep(MPI_Comm comm, uint32_t run)
{
    /* the mark's value is replaced in place, or made (index 0: no lineage) where making it
     * failed at the lineage's lookup */
    if (run > 0)
        PMPI_Comm_set_attr(comm, shim_g.lineage_keyval,
                           (void *)(MARK_INDEX(mark_of(comm)) + ((intptr_t)run << MARK_BITS)));
}

int shim_lineage_defer(MPI_Comm comm)
{
    intptr_t v = mark_of(comm);
    if (v >> MARK_BITS == 0)
        return 0;
    PMPI_Comm_set_attr(comm, shim_g.lineage_keyval, (void *)(v - ((intptr_t)1 << MARK_BITS)));
    return 1;
}

void shim_lineage_note(shim_world *w, const shim_comm *rec, int settled)
{
    if (!rec->lineage || rec->defer > 0)
        return;
    uint64_t run = settled && !rec->first_on_node && rec->last == PLAN_ALGO_NATIVE &&
                           rec->quiet_until > rec->calls
                       ? rec->quiet_until - rec->calls
                       : 0;
    shim_lineage *l = &w->lineage[rec->lineage - 1];
    shim_world_lock(w);
    l->run = run < UINT32_MAX ? (uint32_t)run : UINT32_MAX;
    l->uses = run ? (uint32_t)shim_g.cfg.inherit : 0;
    shim_world_unlock(w);
}

void shim_lineage_forget(shim_world *w, const shim_comm *rec)
{
    if (!rec->lineage)
        return;
    shim_lineage *l = &w->lineage[rec->lineage - 1];
    shim_world_lock(w);
    l->run = l->uses = 0;
    shim_world_unlock(w);
}
