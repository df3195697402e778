/* Local data movement around a plan: the self-message, and staging for MPI_IN_PLACE. */
#include <stdlib.h>

#include "exec/exec.h"

/* Copies the self-message with a send/receive to self (see exec.h). MPI does the type
 * conversion (different but matching types) and the truncation check. */
int exec_self_copy(const exec_exchange *x, MPI_Comm comm, int tag)
{
    int me = x->rank;
    MPI_Count sc = x->send.count[me], rc = x->recv.count[me];
    if ((sc == 0 || x->send.type.size == 0) && (rc == 0 || x->recv.type.size == 0))
        return MPI_SUCCESS;
    return PMPI_Sendrecv_c(x->send.base + x->send.displ[me], sc, x->send.type.type, me, tag,
                           x->recv.base + x->recv.displ[me], rc, x->recv.type.type, me, tag,
                           comm, MPI_STATUS_IGNORE);
}

/* Packs `from` into one buffer described as MPI_BYTE (see exec.h). */
int exec_stage(const exec_side *from, int p, MPI_Comm comm, exec_side *to, MPI_Count *count,
               MPI_Aint *displ, void **buf)
{
    MPI_Count total = 0;
    int rc;

    *buf = NULL;
    for (int j = 0; j < p; j++) {
        if (__builtin_mul_overflow(from->count[j], from->type.size, &count[j]) ||
            __builtin_add_overflow(total, count[j], &total))
            return MPI_ERR_COUNT;
        displ[j] = (MPI_Aint)(total - count[j]);
    }
    if (total > 0 && !(*buf = malloc((size_t)total)))
        return MPI_ERR_NO_MEM;
    MPI_Count pos = 0;
    for (int j = 0; j < p; j++) {
        if (count[j] == 0)
            continue;
        rc = PMPI_Pack_c(from->base + from->displ[j], from->count[j], from->type.type, *buf,
                         total, &pos, comm);
        if (rc != MPI_SUCCESS) {
            free(*buf);
            *buf = NULL;
            return rc;
        }
    }
    to->base = *buf;
    to->count = count;
    to->displ = displ;
    if ((rc = exec_type_init(&to->type, MPI_BYTE)) != MPI_SUCCESS) {
        free(*buf);
        *buf = NULL;
    }
    return rc;
}
