/* Local data movement around a plan: the self-message, and staging for MPI_IN_PLACE. */
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"

/* Copies the self-message locally (see exec.h). MPI point-to-point is avoided on purpose:
 * MPICH 4.0.2 over UCX fails to receive a byte stream into a datatype mixing basic types. */
int exec_self_copy(const exec_exchange *x, MPI_Comm comm)
{
    const exec_side *s = &x->send, *r = &x->recv;
    int me = x->rank, rc = MPI_SUCCESS;
    MPI_Count bytes = s->count[me] * s->type.size;
    if (bytes <= 0)
        return MPI_SUCCESS;
    if (bytes > r->count[me] * r->type.size)
        return MPI_ERR_TRUNCATE;

    const char *from = s->base + s->displ[me] + s->type.true_lb;
    char *packed = NULL;
    if (!s->type.dense) {
        MPI_Count pos = 0;
        if (!(packed = malloc((size_t)bytes)))
            return MPI_ERR_NO_MEM;
        rc = PMPI_Pack_c(s->base + s->displ[me], s->count[me], s->type.type, packed, bytes, &pos,
                         comm);
        from = packed;
    }
    if (rc == MPI_SUCCESS && r->type.dense) {
        memmove(r->base + r->displ[me] + r->type.true_lb, from, (size_t)bytes);
    } else if (rc == MPI_SUCCESS) {
        MPI_Count pos = 0;
        rc = PMPI_Unpack_c(from, bytes, &pos, r->base + r->displ[me], bytes / r->type.size,
                           r->type.type, comm);
    }
    free(packed);
    return rc;
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
