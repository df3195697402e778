/* Byte ranges cut at element boundaries (exec_piece_split), and the cut elements of incoming
 * messages (receive type not dense): an element whose packed bytes arrive in several pieces -
 * from one sender or several, in any order - is collected here and unpacked once every byte is
 * in. The set of cut elements is known from the plan, so the table is built (and its memory
 * allocated) before any communication. */
#include <stdlib.h>
#include <string.h>

#include "exec/view.h"

/* Splits a range at element boundaries (see view.h). */
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

/* Orders keys by origin, then element. */
static int cmp_key(const void *pa, const void *pb)
{
    const exec_cut_key *a = pa, *b = pb;
    if (a->origin != b->origin)
        return a->origin < b->origin ? -1 : 1;
    return a->elem < b->elem ? -1 : a->elem > b->elem;
}

/* Fills the key table from the delivered segments (see view.h). */
int exec_cuts_build(exec_view *v)
{
    const plan_local *lo = v->lo;
    const exec_side *s = &v->x->recv;
    exec_cuts *k = &v->cuts;
    int me = v->x->rank;
    size_t n = 0;

    memset(k, 0, sizeof *k);
    k->size = s->type.size;
    if (s->type.dense || s->type.size <= 0)
        return MPI_SUCCESS;
    for (size_t r = 0; r < lo->nrecvs; r++)
        for (size_t g = 0; g < lo->recvs[r].nsegs; g++)
            n += 2 * (lo->recvs[r].segs[g].target == me);
    if (!(k->key = malloc((n ? n : 1) * sizeof *k->key)))
        return MPI_ERR_NO_MEM;
    for (size_t r = 0; r < lo->nrecvs; r++)
        for (size_t g = 0; g < lo->recvs[r].nsegs; g++) {
            const plan_segment *sg = &lo->recvs[r].segs[g];
            exec_piece pc;
            if (sg->target != me || sg->bytes == 0)
                continue;
            exec_piece_split((MPI_Count)sg->offset, (MPI_Count)sg->bytes, s->type.size, &pc);
            if (pc.head)
                k->key[k->n++] = (exec_cut_key){pc.head_elem, sg->origin};
            if (pc.tail)
                k->key[k->n++] = (exec_cut_key){pc.tail_elem, sg->origin};
        }
    qsort(k->key, k->n, sizeof *k->key, cmp_key);
    size_t u = 0; /* drop duplicates: an element cut several times is one entry */
    for (size_t i = 0; i < k->n; i++)
        if (u == 0 || cmp_key(&k->key[u - 1], &k->key[i]) != 0)
            k->key[u++] = k->key[i];
    k->n = u;
    return MPI_SUCCESS;
}

/* Allocates the fill counters and element buffers (see view.h). */
int exec_cuts_alloc(exec_cuts *k)
{
    if (k->n == 0)
        return MPI_SUCCESS;
    k->fill = calloc(k->n, sizeof *k->fill);
    k->buf = malloc(k->n * (size_t)k->size);
    return k->fill && k->buf ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

/* Adds bytes to a cut element and unpacks it when whole (see view.h). */
int exec_cuts_add(exec_cuts *k, const exec_side *s, MPI_Comm comm, int origin, MPI_Count elem,
                  MPI_Count skip, const char *bytes, MPI_Count len)
{
    exec_cut_key want = {elem, origin};
    exec_cut_key *hit = k->n ? bsearch(&want, k->key, k->n, sizeof *k->key, cmp_key) : NULL;
    if (!hit || skip < 0 || len < 0 || skip + len > k->size)
        return MPI_ERR_INTERN;
    size_t i = (size_t)(hit - k->key);
    char *e = k->buf + i * (size_t)k->size;
    memcpy(e + skip, bytes, (size_t)len);
    k->fill[i] += len;
    if (k->fill[i] > k->size)
        return MPI_ERR_INTERN;
    if (k->fill[i] < k->size)
        return MPI_SUCCESS;
    MPI_Count pos = 0;
    return PMPI_Unpack_c(e, k->size, &pos, s->base + s->displ[origin] + elem * s->type.extent, 1,
                         s->type.type, comm);
}

/* Releases the table (see view.h). */
void exec_cuts_free(exec_cuts *k)
{
    free(k->key);
    free(k->fill);
    free(k->buf);
    memset(k, 0, sizeof *k);
}
