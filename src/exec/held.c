/* Held pieces: what this rank receives for others, which of its sends read each piece, and how
 * many staging bytes it holds at most at once. */
#include <stdlib.h>

#include "exec/view.h"

/* Counts the held pieces (segments with bytes to another target) of every receive. */
static size_t count_held(const plan_local *lo, int me)
{
    size_t n = 0;
    for (size_t k = 0; k < lo->nrecvs; k++)
        for (size_t g = 0; g < lo->recvs[k].nsegs; g++)
            n += lo->recvs[k].segs[g].bytes > 0 && lo->recvs[k].segs[g].target != me;
    return n;
}

/* A held piece's sort key: its message and offset, and its index (ties, never equal). */
typedef struct piece_key {
    int32_t origin, target;
    uint64_t offset;
    size_t index;
} piece_key;

/* Orders keys by message (origin, target), then offset, then index. */
static int cmp_key(const void *pa, const void *pb)
{
    const piece_key *a = pa, *b = pb;
    if (a->origin != b->origin)
        return a->origin < b->origin ? -1 : 1;
    if (a->target != b->target)
        return a->target < b->target ? -1 : 1;
    if (a->offset != b->offset)
        return a->offset < b->offset ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* Collects the held pieces of every receive in receive order, and held_begin. */
static void collect(exec_view *v, int me)
{
    const plan_local *lo = v->lo;
    size_t n = 0;
    for (size_t k = 0; k < lo->nrecvs; k++) {
        v->held_begin[k] = n;
        for (size_t g = 0; g < lo->recvs[k].nsegs; g++) {
            const plan_segment *sg = &lo->recvs[k].segs[g];
            if (sg->bytes == 0 || sg->target == me)
                continue;
            v->held[n++] = (exec_held){.origin = sg->origin, .target = sg->target,
                                       .offset = sg->offset, .bytes = sg->bytes, .recv = k,
                                       .arrive = lo->recvs[k].step, .last = lo->recvs[k].step};
        }
    }
    v->held_begin[lo->nrecvs] = n;
}

/* In the sorted keys k[0 .. n): the position of the last piece of message (o, t) with
 * offset <= off, or n if there is none. */
static size_t find(const piece_key *k, size_t n, int o, int t, uint64_t off)
{
    size_t lo = 0, hi = n; /* ends as the first position whose key is after (o, t, off) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const piece_key *p = &k[mid];
        int after = p->origin != o ? p->origin > o : p->target != t ? p->target > t
                                                                    : p->offset > off;
        if (after)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (lo == 0 || k[lo - 1].origin != o || k[lo - 1].target != t)
        return n;
    return lo - 1;
}

/* Appends to v->ref the pieces that supply forwarded segment sg of a send in step `step`.
 * Returns MPI_SUCCESS, MPI_ERR_INTERN (a byte not held since an earlier step) or
 * MPI_ERR_NO_MEM. */
static int match(exec_view *v, const piece_key *keys, const plan_segment *sg, size_t step,
                 size_t *cap)
{
    uint64_t at = sg->offset, end = sg->offset + sg->bytes;
    if (end < at)
        return MPI_ERR_INTERN;
    while (at < end) {
        size_t pos = find(keys, v->nheld, sg->origin, sg->target, at);
        if (pos == v->nheld)
            return MPI_ERR_INTERN;
        size_t h = keys[pos].index;
        exec_held *p = &v->held[h];
        if (p->offset + p->bytes <= at || p->arrive >= step || p->uses == UINT32_MAX)
            return MPI_ERR_INTERN;
        uint64_t stop = p->offset + p->bytes < end ? p->offset + p->bytes : end;
        if (v->nref == *cap) {
            size_t ncap = *cap ? 2 * *cap : 64;
            exec_ref *r = realloc(v->ref, ncap * sizeof *r);
            if (!r)
                return MPI_ERR_NO_MEM;
            v->ref = r;
            *cap = ncap;
        }
        v->ref[v->nref++] = (exec_ref){.held = h, .at = at - p->offset, .len = stop - at};
        p->uses++;
        if (step > p->last)
            p->last = step;
        at = stop;
    }
    return MPI_SUCCESS;
}

/* One change of the bytes held: +bytes at the step a piece arrives, -bytes after its last. */
typedef struct event {
    size_t step;
    uint64_t bytes;
    int add;
} event;

/* Orders events by step. */
static int cmp_event(const void *a, const void *b)
{
    const event *x = a, *y = b;
    return x->step < y->step ? -1 : x->step > y->step;
}

/* Sets v->staging: the largest sum of bytes over pieces with arrive <= s <= last, over s. */
static int peak(exec_view *v)
{
    v->staging = 0;
    if (v->nheld == 0)
        return MPI_SUCCESS;
    event *ev = malloc(2 * v->nheld * sizeof *ev);
    if (!ev)
        return MPI_ERR_NO_MEM;
    for (size_t h = 0; h < v->nheld; h++) {
        ev[2 * h] = (event){v->held[h].arrive, v->held[h].bytes, 1};
        ev[2 * h + 1] = (event){v->held[h].last + 1, v->held[h].bytes, 0};
    }
    qsort(ev, 2 * v->nheld, sizeof *ev, cmp_event);
    uint64_t live = 0;
    for (size_t a = 0; a < 2 * v->nheld;) {
        size_t b = a;
        for (; b < 2 * v->nheld && ev[b].step == ev[a].step; b++)
            live = ev[b].add ? live + ev[b].bytes : live - ev[b].bytes;
        if (live > v->staging)
            v->staging = live;
        a = b;
    }
    free(ev);
    return MPI_SUCCESS;
}

/* Builds the held pieces, the refs of every send and the peak (see view.h). */
int exec_held_build(exec_view *v)
{
    const plan_local *lo = v->lo;
    int me = v->x->rank, rc = MPI_SUCCESS;
    v->nheld = count_held(lo, me);
    v->held = malloc((v->nheld ? v->nheld : 1) * sizeof *v->held);
    v->held_begin = malloc((lo->nrecvs + 1) * sizeof *v->held_begin);
    v->ref_begin = malloc((lo->nsends + 1) * sizeof *v->ref_begin);
    piece_key *keys = malloc((v->nheld ? v->nheld : 1) * sizeof *keys);
    if (!v->held || !v->held_begin || !v->ref_begin || !keys) {
        free(keys);
        return MPI_ERR_NO_MEM;
    }
    collect(v, me);
    for (size_t h = 0; h < v->nheld; h++)
        keys[h] = (piece_key){v->held[h].origin, v->held[h].target, v->held[h].offset, h};
    qsort(keys, v->nheld, sizeof *keys, cmp_key);
    for (size_t a = 1; a < v->nheld && rc == MPI_SUCCESS; a++) {
        const exec_held *p = &v->held[keys[a - 1].index];
        if (keys[a].origin == p->origin && keys[a].target == p->target &&
            p->offset + p->bytes > keys[a].offset)
            rc = MPI_ERR_INTERN; /* one byte held twice */
    }

    size_t cap = 0;
    for (size_t i = 0; i < lo->nsends && rc == MPI_SUCCESS; i++) {
        v->ref_begin[i] = v->nref;
        for (size_t g = 0; g < lo->sends[i].nsegs && rc == MPI_SUCCESS; g++) {
            const plan_segment *sg = &lo->sends[i].segs[g];
            if (sg->bytes > 0 && sg->origin != me)
                rc = match(v, keys, sg, lo->sends[i].step, &cap);
        }
    }
    v->ref_begin[lo->nsends] = v->nref;
    for (size_t h = 0; h < v->nheld && rc == MPI_SUCCESS; h++)
        if (v->held[h].uses == 0)
            rc = MPI_ERR_INTERN; /* held here and never sent on: it would not arrive */
    free(keys);
    if (rc == MPI_SUCCESS)
        rc = peak(v);
    return rc;
}
