/* MPI_COMM_WORLD's lineage (see lineage.h). */
#include "shim/lineage.h"

#include <stdint.h>

#include "shim/comm.h"
#include "shim/state.h"

/* The attribute's value on a duplicate: 1, the lineage's mark (the parent's count of calls
 * kept by shim_lineage_keep is its own). */
static int copy_mark(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)old;
    (void)keyval;
    (void)extra;
    (void)in;
    *(void **)out = (void *)(intptr_t)1;
    *flag = 1;
    return MPI_SUCCESS;
}

int shim_lineage_create(int *keyval, int on)
{
    int rc = PMPI_Comm_create_keyval(copy_mark, MPI_COMM_NULL_DELETE_FN, keyval, NULL);
    if (rc == MPI_SUCCESS && on &&
        (rc = PMPI_Comm_set_attr(MPI_COMM_WORLD, *keyval, (void *)(intptr_t)1)) != MPI_SUCCESS)
        PMPI_Comm_free_keyval(keyval);
    return rc;
}

/* comm's attribute value: 0 where comm is not of the lineage, else 1 + the calls kept. */
static intptr_t mark_of(MPI_Comm comm)
{
    void *v = NULL;
    int flag = 0;
    if (shim_g.lineage_keyval == MPI_KEYVAL_INVALID ||
        PMPI_Comm_get_attr(comm, shim_g.lineage_keyval, &v, &flag) != MPI_SUCCESS || !flag)
        return 0;
    return (intptr_t)v;
}

int shim_lineage_of(MPI_Comm comm)
{
    return mark_of(comm) > 0;
}

uint32_t shim_lineage_take(MPI_Comm comm)
{
    if (mark_of(comm) <= 0)
        return 0;
    shim_world *w = shim_g.world;
    uint32_t run = 0;
    shim_world_lock(w);
    if (w->lineage.run > 0 && w->lineage.uses > 0) {
        run = w->lineage.run;
        w->lineage.uses--;
    }
    shim_world_unlock(w);
    return run;
}

void shim_lineage_keep(MPI_Comm comm, uint32_t run)
{
    if (run > 0) /* the mark exists on comm: its value is replaced in place */
        PMPI_Comm_set_attr(comm, shim_g.lineage_keyval, (void *)((intptr_t)1 + run));
}

int shim_lineage_defer(MPI_Comm comm)
{
    intptr_t v = mark_of(comm);
    if (v <= 1)
        return 0;
    PMPI_Comm_set_attr(comm, shim_g.lineage_keyval, (void *)(v - 1));
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
    shim_world_lock(w);
    w->lineage.run = run < UINT32_MAX ? (uint32_t)run : UINT32_MAX;
    w->lineage.uses = run ? (uint32_t)shim_g.cfg.inherit : 0;
    shim_world_unlock(w);
}

void shim_lineage_forget(shim_world *w, const shim_comm *rec)
{
    if (!rec->lineage)
        return;
    shim_world_lock(w);
    w->lineage = (shim_lineage){0, 0};
    shim_world_unlock(w);
}
