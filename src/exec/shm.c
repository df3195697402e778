/* Transfers within a node through its shared-memory window: a described transfer copied in or
 * out instead of sent, and the node's synchronisation between the writes and the reads. */
#include <string.h>

#include "exec/wire.h"

/* Copies w into the window (see wire.h). */
int exec_wire_put(exec_ctx *c, const exec_wire *w, char *dst)
{
    MPI_Count pos = 0;
    for (size_t b = 0; b < w->nblocks; b++) {
        const exec_block *k = &w->blocks[b];
        if (k->type == MPI_BYTE) {
            memcpy(dst + pos, k->addr, (size_t)k->count);
            pos += k->count;
            continue;
        }
        /* typed blocks are whole elements of the send type (exec_wire_build) */
        int rc = PMPI_Pack_c(k->addr, k->count, k->type, dst,
                             pos + k->count * c->v->x->send.type.size, &pos, c->comm);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* Copies from the window into w (see wire.h). */
void exec_wire_get(const exec_wire *w, const char *src)
{
    size_t pos = 0;
    for (size_t b = 0; b < w->nblocks; b++) {
        memcpy(w->blocks[b].addr, src + pos, (size_t)w->blocks[b].count);
        pos += (size_t)w->blocks[b].count;
    }
}

/* Synchronises the node (see wire.h). */
int exec_shm_fence(const exec_shm *shm)
{
    int rc = PMPI_Win_sync(shm->win);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Barrier(shm->node);
    return rc == MPI_SUCCESS ? PMPI_Win_sync(shm->win) : rc;
}
