/* The staging arena and where the held pieces sit in it. The arena is one buffer of exactly the
 * view's peak (exec_view_staging); a piece takes a single free extent when one is large enough,
 * else several (it then travels as several byte blocks of one message), so free space is never
 * lost to fragmentation and the run loop only has to make room by completing earlier steps. */
#include <stdlib.h>
#include <string.h>

#include "exec/view.h"

/* Makes an arena of size bytes (see view.h). */
int exec_arena_init(exec_arena *a, uint64_t size)
{
    memset(a, 0, sizeof *a);
    if (size == 0)
        return MPI_SUCCESS;
    if (size > SIZE_MAX || !(a->base = malloc((size_t)size)) ||
        !(a->free = malloc(8 * sizeof *a->free))) {
        exec_arena_free(a);
        return MPI_ERR_NO_MEM;
    }
    a->capfree = 8;
    a->free[0] = (exec_extent){0, size};
    a->nfree = 1;
    a->size = a->avail = size;
    return MPI_SUCCESS;
}

/* Appends e to the array *out of *n entries (*cap allocated). */
static int push(exec_extent **out, size_t *n, size_t *cap, exec_extent e)
{
    if (*n == *cap) {
        size_t ncap = *cap ? 2 * *cap : 16;
        exec_extent *o = realloc(*out, ncap * sizeof *o);
        if (!o)
            return MPI_ERR_NO_MEM;
        *out = o;
        *cap = ncap;
    }
    (*out)[(*n)++] = e;
    return MPI_SUCCESS;
}

/* Takes len bytes, whole if possible (see view.h). */
int exec_arena_take(exec_arena *a, uint64_t len, exec_extent **out, size_t *n, size_t *cap)
{
    if (len > a->avail)
        return MPI_ERR_INTERN;
    size_t f = 0;
    while (f < a->nfree && a->free[f].len < len)
        f++;
    if (f < a->nfree) { /* first fit */
        int rc = push(out, n, cap, (exec_extent){a->free[f].off, len});
        if (rc != MPI_SUCCESS)
            return rc;
        a->free[f].off += len;
        a->free[f].len -= len;
        if (a->free[f].len == 0) {
            memmove(a->free + f, a->free + f + 1, (a->nfree - f - 1) * sizeof *a->free);
            a->nfree--;
        }
        a->avail -= len;
        return MPI_SUCCESS;
    }
    /* no single extent is large enough: the lowest ones in turn */
    size_t used = 0;
    uint64_t left = len;
    while (left > 0) {
        exec_extent *e = &a->free[used];
        uint64_t take = e->len < left ? e->len : left;
        int rc = push(out, n, cap, (exec_extent){e->off, take});
        if (rc != MPI_SUCCESS)
            return rc; /* the extents pushed so far are not taken from the free list */
        left -= take;
        if (take == e->len) {
            used++;
        } else {
            e->off += take;
            e->len -= take;
        }
    }
    memmove(a->free, a->free + used, (a->nfree - used) * sizeof *a->free);
    a->nfree -= used;
    a->avail -= len;
    return MPI_SUCCESS;
}

/* Inserts one extent into the sorted free list, merging it with its neighbours. */
static int give_one(exec_arena *a, exec_extent e)
{
    size_t k = 0;
    while (k < a->nfree && a->free[k].off < e.off)
        k++;
    int left = k > 0 && a->free[k - 1].off + a->free[k - 1].len == e.off;
    int right = k < a->nfree && e.off + e.len == a->free[k].off;
    if (left && right) {
        a->free[k - 1].len += e.len + a->free[k].len;
        memmove(a->free + k, a->free + k + 1, (a->nfree - k - 1) * sizeof *a->free);
        a->nfree--;
    } else if (left) {
        a->free[k - 1].len += e.len;
    } else if (right) {
        a->free[k].off = e.off;
        a->free[k].len += e.len;
    } else {
        if (a->nfree == a->capfree) {
            exec_extent *f = realloc(a->free, 2 * a->capfree * sizeof *f);
            if (!f)
                return MPI_ERR_NO_MEM;
            a->free = f;
            a->capfree *= 2;
        }
        memmove(a->free + k + 1, a->free + k, (a->nfree - k) * sizeof *a->free);
        a->free[k] = e;
        a->nfree++;
    }
    a->avail += e.len;
    return MPI_SUCCESS;
}

/* Returns extents to the free list (see view.h). */
int exec_arena_give(exec_arena *a, const exec_extent *e, size_t n)
{
    int rc = MPI_SUCCESS;
    for (size_t i = 0; i < n && rc == MPI_SUCCESS; i++)
        if (e[i].len > 0)
            rc = give_one(a, e[i]);
    return rc;
}

/* Releases the arena (see view.h). */
void exec_arena_free(exec_arena *a)
{
    free(a->base);
    free(a->free);
    memset(a, 0, sizeof *a);
}

/* Allocates the stash (see view.h). */
int exec_stash_init(exec_stash *s, const exec_view *v)
{
    memset(s, 0, sizeof *s);
    size_t n = v->nheld ? v->nheld : 1;
    s->first = malloc(n * sizeof *s->first);
    s->count = malloc(n * sizeof *s->count);
    s->left = malloc(n * sizeof *s->left);
    s->ext = malloc(n * sizeof *s->ext);
    s->cap = n;
    if (!s->first || !s->count || !s->left || !s->ext) {
        exec_stash_free(s);
        return MPI_ERR_NO_MEM;
    }
    int rc = exec_arena_init(&s->arena, v->staging);
    if (rc != MPI_SUCCESS)
        exec_stash_free(s);
    return rc;
}

/* Resets the stash for a run (see view.h). */
void exec_stash_reset(exec_stash *s, const exec_view *v)
{
    s->next = 0;
    for (size_t h = 0; h < v->nheld; h++) {
        s->count[h] = 0;
        s->left[h] = v->held[h].uses;
    }
    s->arena.nfree = 0;
    s->arena.avail = 0;
    if (s->arena.size)
        exec_arena_give(&s->arena, &(exec_extent){0, s->arena.size}, 1);
}

/* Places a held piece (see view.h). */
int exec_stash_place(exec_stash *s, const exec_view *v, size_t h)
{
    s->first[h] = s->next;
    int rc = exec_arena_take(&s->arena, v->held[h].bytes, &s->ext, &s->next, &s->cap);
    s->count[h] = rc == MPI_SUCCESS ? s->next - s->first[h] : 0;
    return rc;
}

/* One reader of a piece completed (see view.h). */
int exec_stash_done(exec_stash *s, size_t h)
{
    if (s->left[h] == 0 || --s->left[h] > 0)
        return MPI_SUCCESS;
    int rc = exec_arena_give(&s->arena, s->ext + s->first[h], s->count[h]);
    s->count[h] = 0;
    return rc;
}

/* Releases the stash (see view.h). */
void exec_stash_free(exec_stash *s)
{
    exec_arena_free(&s->arena);
    free(s->ext);
    free(s->first);
    free(s->count);
    free(s->left);
    memset(s, 0, sizeof *s);
}
