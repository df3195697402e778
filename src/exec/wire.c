/* Building one transfer's wire description, and releasing it. The receiver always receives
 * contiguous MPI_BYTE: in place when its type is dense, else into a buffer whose bytes are
 * unpacked after completion (post.c). MPICH 4.0.2 over UCX fails ("Message truncated") when a byte
 * stream from another rank is received into a datatype mixing basic types, beyond about 13 kB, so
 * typed receives are avoided altogether. The sender sends a dense type's range as MPI_BYTE in
 * place; otherwise whole elements go typed, in place, and the bytes of an element cut by the range
 * boundary are packed into a small buffer (at most two elements per segment). Forwarded data goes
 * out of and into the staging arena as bytes. A transfer of several blocks is one message with a
 * struct datatype at absolute addresses. */
#include <stdlib.h>
#include <string.h>

#include "exec/wire.h"

/* Packs element k of message base/type into c->elem (type.size bytes). */
static int pack_element(exec_ctx *c, const exec_side *s, char *base, MPI_Count k)
{
    MPI_Count pos = 0;
    return PMPI_Pack_c(base + k * s->type.extent, 1, s->type.type, c->elem, s->type.size, &pos,
                       c->comm);
}

/* Appends a block to w (capacity was reserved by the caller); a byte block that continues the
 * previous byte block in memory extends it instead. */
static void add_block(exec_wire *w, char *addr, MPI_Count count, MPI_Datatype type)
{
    exec_block *last = w->nblocks ? &w->blocks[w->nblocks - 1] : NULL;
    if (type == MPI_BYTE && last && last->type == MPI_BYTE && last->addr + last->count == addr) {
        last->count += count;
        return;
    }
    w->blocks[w->nblocks].addr = addr;
    w->blocks[w->nblocks].count = count;
    w->blocks[w->nblocks].type = type;
    w->nblocks++;
}

/* Appends the staging bytes [at, at + len) of held piece h, extent by extent. */
static void add_staged(exec_ctx *c, exec_wire *w, size_t h, uint64_t at, uint64_t len)
{
    const exec_stash *s = &c->v->stash;
    for (size_t e = s->first[h]; e < s->first[h] + s->count[h] && len > 0; e++) {
        const exec_extent *x = &s->ext[e];
        if (at >= x->len) {
            at -= x->len;
            continue;
        }
        uint64_t n = x->len - at < len ? x->len - at : len;
        add_block(w, s->arena.base + x->off + at, (MPI_Count)n, MPI_BYTE);
        len -= n;
        at = 0;
    }
}

/* Describes receive k (see wire.h). */
static int build_recv(exec_ctx *c, size_t k, exec_wire *w)
{
    const exec_view *v = c->v;
    const plan_local_op *op = &v->lo->recvs[k];
    const exec_side *s = &v->x->recv;
    int me = v->x->rank;
    size_t cap = op->nsegs, h = v->held_begin[k];
    uint64_t here = 0;
    for (size_t p = h; p < v->held_begin[k + 1]; p++)
        cap += v->stash.count[p];
    for (size_t i = 0; i < op->nsegs; i++)
        here += op->segs[i].target == me ? op->segs[i].bytes : 0;
    w->blocks = malloc((cap ? cap : 1) * sizeof *w->blocks);
    if (!w->blocks || (!s->type.dense && here && !(w->tmp = malloc((size_t)here))))
        return MPI_ERR_NO_MEM;

    char *t = w->tmp;
    for (size_t i = 0; i < op->nsegs; i++) {
        const plan_segment *seg = &op->segs[i];
        if (seg->bytes == 0)
            continue;
        if (seg->target != me) {
            add_staged(c, w, h, 0, seg->bytes);
            h++;
        } else if (s->type.dense) {
            add_block(w, s->base + s->displ[seg->origin] + s->type.true_lb +
                             (MPI_Count)seg->offset,
                      (MPI_Count)seg->bytes, MPI_BYTE);
        } else {
            add_block(w, t, (MPI_Count)seg->bytes, MPI_BYTE);
            t += seg->bytes;
        }
    }
    return MPI_SUCCESS;
}

/* Appends one of this rank's own segments of a send: bytes in place for a dense type, else the
 * packed bytes of a cut first element, the whole elements typed, and the packed bytes of a cut
 * last element (*t: where the next packed bytes go in w->tmp). */
static int add_own(exec_ctx *c, exec_wire *w, const plan_segment *seg, char **t)
{
    const exec_side *s = &c->v->x->send;
    char *base = s->base + s->displ[seg->target];
    MPI_Count off = (MPI_Count)seg->offset, len = (MPI_Count)seg->bytes;
    exec_piece pc;
    int rc;
    if (s->type.dense) {
        add_block(w, base + s->type.true_lb + off, len, MPI_BYTE);
        return MPI_SUCCESS;
    }
    exec_piece_split(off, len, s->type.size, &pc);
    if (pc.head) {
        if ((rc = pack_element(c, s, base, pc.head_elem)) != MPI_SUCCESS)
            return rc;
        memcpy(*t, c->elem + pc.head_skip, (size_t)pc.head);
        add_block(w, *t, pc.head, MPI_BYTE);
        *t += pc.head;
    }
    if (pc.mid_n)
        add_block(w, base + pc.mid_elem * s->type.extent, pc.mid_n, s->type.type);
    if (pc.tail) {
        if ((rc = pack_element(c, s, base, pc.tail_elem)) != MPI_SUCCESS)
            return rc;
        memcpy(*t, c->elem, (size_t)pc.tail);
        add_block(w, *t, pc.tail, MPI_BYTE);
        *t += pc.tail;
    }
    return MPI_SUCCESS;
}

/* Describes send i (see wire.h). */
static int build_send(exec_ctx *c, size_t i, exec_wire *w)
{
    const exec_view *v = c->v;
    const plan_local_op *op = &v->lo->sends[i];
    const exec_side *s = &v->x->send;
    int me = v->x->rank, rc = MPI_SUCCESS;
    size_t cap = 3 * op->nsegs, r = v->ref_begin[i];
    MPI_Count staged = 0;

    for (size_t q = r; q < v->ref_begin[i + 1]; q++)
        cap += v->stash.count[v->ref[q].held];
    for (size_t g = 0; g < op->nsegs && !s->type.dense; g++) {
        exec_piece pc;
        if (op->segs[g].bytes == 0 || op->segs[g].origin != me)
            continue;
        exec_piece_split((MPI_Count)op->segs[g].offset, (MPI_Count)op->segs[g].bytes,
                         s->type.size, &pc);
        staged += pc.head + pc.tail;
    }
    w->blocks = malloc((cap ? cap : 1) * sizeof *w->blocks);
    if (!w->blocks || (staged && !(w->tmp = malloc((size_t)staged))))
        return MPI_ERR_NO_MEM;

    char *t = w->tmp;
    for (size_t g = 0; g < op->nsegs && rc == MPI_SUCCESS; g++) {
        const plan_segment *seg = &op->segs[g];
        if (seg->bytes == 0)
            continue;
        if (seg->origin == me) {
            rc = add_own(c, w, seg, &t);
            continue;
        }
        /* the refs of this segment follow in order and add up to its bytes */
        for (uint64_t got = 0; got < seg->bytes; r++) {
            add_staged(c, w, v->ref[r].held, v->ref[r].at, v->ref[r].len);
            got += v->ref[r].len;
        }
    }
    return rc;
}

/* Describes a transfer as blocks (see wire.h). */
int exec_wire_build(exec_ctx *c, size_t index, int is_send, exec_wire *w)
{
    memset(w, 0, sizeof *w);
    int rc = is_send ? build_send(c, index, w) : build_recv(c, index, w);
    if (rc != MPI_SUCCESS)
        exec_wire_free(w);
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
