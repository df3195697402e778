/* One transfer on the wire. The receiver always receives contiguous MPI_BYTE: in place when its
 * type is dense, else into a staging buffer whose bytes are unpacked after completion (whole
 * elements straight into place, an element cut by a piece boundary collected across pieces
 * and unpacked when whole). MPICH 4.0.2 over UCX fails ("Message truncated") when a byte stream
 * from another rank is received into a datatype mixing basic types, beyond about 13 kB, so
 * typed receives are avoided altogether. The sender sends a dense type's range as MPI_BYTE in
 * place; otherwise whole elements go typed, in place, and the bytes of an element cut by the
 * range boundary are packed into a small staging area (at most two elements per segment). A
 * transfer of several blocks is one message with a struct datatype at absolute addresses. */
#include <stdlib.h>
#include <string.h>

#include "exec/wire.h"

/* Splits a range at element boundaries (see wire.h). */
void exec_piece_split(MPI_Count off, MPI_Count len, MPI_Count size, exec_piece *pc)
{
    MPI_Count end = off + len;
    MPI_Count a = (off + size - 1) / size * size; /* first boundary at or after off */
    MPI_Count b = end / size * size;             /* last boundary at or before end */
    if (a > end)
        a = end; /* the range lies inside one element */
    if (b < a)
        b = a;
    pc->head = a - off;
    pc->head_elem = off / size;
    pc->head_skip = off % size;
    pc->mid_elem = a / size;
    pc->mid_n = (b - a) / size;
    pc->tail = end - b;
    pc->tail_elem = b / size;
}

/* Packs element k of message base/type into c->elem (type.size bytes). */
static int pack_element(exec_ctx *c, const exec_side *s, char *base, MPI_Count k)
{
    MPI_Count pos = 0;
    return PMPI_Pack_c(base + k * s->type.extent, 1, s->type.type, c->elem, s->type.size, &pos,
                       c->comm);
}

/* Appends a block to w (capacity was reserved by the caller). */
static void add_block(exec_wire *w, char *addr, MPI_Count count, MPI_Datatype type)
{
    w->blocks[w->nblocks].addr = addr;
    w->blocks[w->nblocks].count = count;
    w->blocks[w->nblocks].type = type;
    w->nblocks++;
}

/* Describes a receive: one MPI_BYTE block per segment of a dense type (in place), or the whole
 * transfer into a staging buffer when the type is not dense. */
static int build_recv(exec_ctx *c, const plan_local_op *op, exec_wire *w)
{
    const exec_side *s = &c->x->recv;
    w->blocks = malloc((op->nsegs ? op->nsegs : 1) * sizeof *w->blocks);
    if (!w->blocks)
        return MPI_ERR_NO_MEM;
    if (!s->type.dense) {
        if (op->bytes && !(w->tmp = malloc((size_t)op->bytes)))
            return MPI_ERR_NO_MEM;
        if (op->bytes)
            add_block(w, w->tmp, (MPI_Count)op->bytes, MPI_BYTE);
        return MPI_SUCCESS;
    }
    for (size_t i = 0; i < op->nsegs; i++) {
        const plan_segment *seg = &op->segs[i];
        if (seg->bytes)
            add_block(w, s->base + s->displ[seg->origin] + s->type.true_lb +
                             (MPI_Count)seg->offset,
                      (MPI_Count)seg->bytes, MPI_BYTE);
    }
    return MPI_SUCCESS;
}

/* Describes a send: per segment one MPI_BYTE block (dense type), or the packed bytes of a cut
 * first element, the whole elements typed, and the packed bytes of a cut last element. */
static int build_send(exec_ctx *c, const plan_local_op *op, exec_wire *w)
{
    const exec_side *s = &c->x->send;
    MPI_Count staged = 0;
    int rc = MPI_SUCCESS;

    for (size_t i = 0; i < op->nsegs && !s->type.dense; i++) {
        exec_piece pc;
        if (op->segs[i].bytes == 0)
            continue;
        exec_piece_split((MPI_Count)op->segs[i].offset, (MPI_Count)op->segs[i].bytes,
                         s->type.size, &pc);
        staged += pc.head + pc.tail;
    }
    w->blocks = malloc(3 * (op->nsegs ? op->nsegs : 1) * sizeof *w->blocks);
    if (!w->blocks || (staged && !(w->tmp = malloc((size_t)staged))))
        return MPI_ERR_NO_MEM;

    char *t = w->tmp;
    for (size_t i = 0; i < op->nsegs && rc == MPI_SUCCESS; i++) {
        const plan_segment *seg = &op->segs[i];
        char *base = s->base + s->displ[seg->target];
        MPI_Count off = (MPI_Count)seg->offset, len = (MPI_Count)seg->bytes;
        exec_piece pc;
        if (len == 0)
            continue;
        if (s->type.dense) {
            add_block(w, base + s->type.true_lb + off, len, MPI_BYTE);
            continue;
        }
        exec_piece_split(off, len, s->type.size, &pc);
        if (pc.head) {
            if ((rc = pack_element(c, s, base, pc.head_elem)) != MPI_SUCCESS)
                break;
            memcpy(t, c->elem + pc.head_skip, (size_t)pc.head);
            add_block(w, t, pc.head, MPI_BYTE);
            t += pc.head;
        }
        if (pc.mid_n)
            add_block(w, base + pc.mid_elem * s->type.extent, pc.mid_n, s->type.type);
        if (pc.tail) {
            if ((rc = pack_element(c, s, base, pc.tail_elem)) != MPI_SUCCESS)
                break;
            memcpy(t, c->elem, (size_t)pc.tail);
            add_block(w, t, pc.tail, MPI_BYTE);
            t += pc.tail;
        }
    }
    return rc;
}

/* Describes op as blocks (see wire.h). */
int exec_wire_build(exec_ctx *c, const plan_local_op *op, int is_send, exec_wire *w)
{
    memset(w, 0, sizeof *w);
    int rc = is_send ? build_send(c, op, w) : build_recv(c, op, w);
    if (rc != MPI_SUCCESS)
        exec_wire_free(w);
    return rc;
}

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

/* Unpacks a carry that holds a whole element into its place in message base/type. */
static int unpack_element(exec_ctx *c, const exec_side *s, char *base, exec_carry *k)
{
    MPI_Count pos = 0;
    int rc = PMPI_Unpack_c(k->buf, s->type.size, &pos, base + k->elem * s->type.extent, 1,
                           s->type.type, c->comm);
    k->fill = 0;
    return rc;
}

/* Unpacks the staged bytes of a completed receive (see wire.h). */
int exec_wire_finish_recv(exec_ctx *c, const plan_local_op *op, const exec_wire *w)
{
    const exec_side *s = &c->x->recv;
    const char *t = w->tmp;
    int rc = MPI_SUCCESS;

    if (s->type.dense)
        return MPI_SUCCESS;
    for (size_t i = 0; i < op->nsegs && rc == MPI_SUCCESS; i++) {
        const plan_segment *seg = &op->segs[i];
        int msg = seg->origin;
        char *base = s->base + s->displ[msg];
        exec_piece pc;
        if (seg->bytes == 0)
            continue;
        exec_piece_split((MPI_Count)seg->offset, (MPI_Count)seg->bytes, s->type.size, &pc);
        exec_carry *k = NULL;
        if (pc.head || pc.tail) {
            if (!c->carry && !(c->carry = calloc((size_t)c->x->p, sizeof *c->carry)))
                return MPI_ERR_NO_MEM;
            k = &c->carry[msg];
            if (!k->buf && !(k->buf = malloc((size_t)s->type.size)))
                return MPI_ERR_NO_MEM;
        }
        if (pc.head) {
            /* continues the element the previous piece of this message began */
            if (k->fill != pc.head_skip || k->elem != pc.head_elem)
                return MPI_ERR_INTERN;
            memcpy(k->buf + k->fill, t, (size_t)pc.head);
            k->fill += pc.head;
            t += pc.head;
            if (k->fill == s->type.size && (rc = unpack_element(c, s, base, k)) != MPI_SUCCESS)
                break;
        }
        if (pc.mid_n) {
            MPI_Count pos = 0, bytes = pc.mid_n * s->type.size;
            rc = PMPI_Unpack_c(t, bytes, &pos, base + pc.mid_elem * s->type.extent, pc.mid_n,
                               s->type.type, c->comm);
            t += bytes;
        }
        if (pc.tail && rc == MPI_SUCCESS) {
            if (k->fill != 0)
                return MPI_ERR_INTERN;
            k->elem = pc.tail_elem;
            memcpy(k->buf, t, (size_t)pc.tail);
            k->fill = pc.tail;
            t += pc.tail;
        }
    }
    return rc;
}

/* Releases w's memory. */
void exec_wire_free(exec_wire *w)
{
    free(w->blocks);
    free(w->tmp);
    w->blocks = NULL;
    w->tmp = NULL;
    w->nblocks = 0;
}
