/* Posting a described transfer, and unpacking a completed receive that went through a buffer. */
#include <stdlib.h>

#include "exec/wire.h"

/* Builds the struct datatype of w's blocks at absolute addresses. */
static int wire_type(const exec_wire *w, MPI_Datatype *type)
{
    MPI_Count *lens = malloc(w->nblocks * sizeof *lens);
    MPI_Count *disps = malloc(w->nblocks * sizeof *disps);
    MPI_Datatype *types = malloc(w->nblocks * sizeof *types);
    int rc = MPI_ERR_NO_MEM;

    if (lens && disps && types) {
        rc = MPI_SUCCESS;
        for (size_t i = 0; i < w->nblocks && rc == MPI_SUCCESS; i++) {
            MPI_Aint addr;
            rc = PMPI_Get_address(w->blocks[i].addr, &addr);
            lens[i] = w->blocks[i].count;
            disps[i] = (MPI_Count)addr;
            types[i] = w->blocks[i].type;
        }
        if (rc == MPI_SUCCESS)
            rc = PMPI_Type_create_struct_c((MPI_Count)w->nblocks, lens, disps, types, type);
        if (rc == MPI_SUCCESS && (rc = PMPI_Type_commit(type)) != MPI_SUCCESS)
            PMPI_Type_free(type);
    }
    free(lens);
    free(disps);
    free(types);
    return rc;
}

/* Posts w as one operation (see wire.h). */
int exec_wire_post(exec_ctx *c, const exec_wire *w, int is_send, int peer, int tag,
                   MPI_Request *req)
{
    void *buf;
    MPI_Count count;
    MPI_Datatype type;
    int rc, derived = 0;

    if (w->nblocks == 0) {
        buf = NULL;
        count = 0;
        type = MPI_BYTE;
    } else if (w->nblocks == 1) {
        buf = w->blocks[0].addr;
        count = w->blocks[0].count;
        type = w->blocks[0].type;
    } else {
        if ((rc = wire_type(w, &type)) != MPI_SUCCESS)
            return rc;
        buf = MPI_BOTTOM;
        count = 1;
        derived = 1;
    }
    if (is_send)
        rc = PMPI_Isend_c(buf, count, type, peer, tag, c->comm, req);
    else
        rc = PMPI_Irecv_c(buf, count, type, peer, tag, c->comm, req);
    if (derived)
        PMPI_Type_free(&type); /* pending operations keep what they need */
    return rc;
}

/* Unpacks the buffered part of a completed receive (see wire.h). */
int exec_wire_finish_recv(exec_ctx *c, size_t index, const exec_wire *w)
{
    const plan_local_op *op = &c->v->lo->recvs[index];
    const exec_side *s = &c->v->x->recv;
    exec_cuts *cuts = &c->v->cuts;
    int me = c->v->x->rank, rc = MPI_SUCCESS;
    const char *t = w->tmp;

    if (s->type.dense)
        return MPI_SUCCESS;
    for (size_t i = 0; i < op->nsegs && rc == MPI_SUCCESS; i++) {
        const plan_segment *seg = &op->segs[i];
        int msg = seg->origin;
        exec_piece pc;
        if (seg->bytes == 0 || seg->target != me)
            continue;
        exec_piece_split((MPI_Count)seg->offset, (MPI_Count)seg->bytes, s->type.size, &pc);
        if (pc.head) {
            rc = exec_cuts_add(cuts, s, c->comm, msg, pc.head_elem, pc.head_skip, t, pc.head);
            t += pc.head;
        }
        if (pc.mid_n && rc == MPI_SUCCESS) {
            MPI_Count pos = 0, bytes = pc.mid_n * s->type.size;
            rc = PMPI_Unpack_c(t, bytes, &pos,
                               s->base + s->displ[msg] + pc.mid_elem * s->type.extent, pc.mid_n,
                               s->type.type, c->comm);
            t += bytes;
        }
        if (pc.tail && rc == MPI_SUCCESS) {
            rc = exec_cuts_add(cuts, s, c->comm, msg, pc.tail_elem, 0, t, pc.tail);
            t += pc.tail;
        }
    }
    return rc;
}
