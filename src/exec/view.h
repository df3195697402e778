/* exec/ internals: one rank's part of a plan, analysed before any communication
 * (exec_view_create), and the per-call memory it needs: the staging arena for pieces this rank
 * forwards, and the partial elements of incoming messages whose receive type is not dense.
 *
 * Vocabulary. A *held piece* is a segment with target != this rank of a transfer this rank
 * receives: it lands in staging and leaves in one or more later sends. A *ref* is the part of a
 * forwarded send segment (origin != this rank) that one held piece supplies. A *cut element* is
 * an element of an incoming message (receive type not dense) that a segment boundary splits:
 * its bytes are collected, in whatever order they arrive, and unpacked once all are there. */
#ifndef HRELAY_EXEC_VIEW_H
#define HRELAY_EXEC_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "exec/exec.h"

/* A held piece: bytes [offset, offset + bytes) of message origin -> target, brought by receive
 * `recv` (index into lo->recvs) in step `arrive`, read by `uses` refs of sends whose last step
 * is `last` (last > arrive). */
typedef struct exec_held {
    int32_t origin, target;
    uint64_t offset, bytes;
    size_t recv;
    size_t arrive, last;
    uint32_t uses;
} exec_held;

/* Part of a forwarded send segment: bytes [at, at + len) of held piece `held`, counted from the
 * piece's first byte. */
typedef struct exec_ref {
    size_t held;
    uint64_t at, len;
} exec_ref;

/* A byte range [off, off + len) of the staging arena. */
typedef struct exec_extent {
    uint64_t off, len;
} exec_extent;

/* The staging arena: one buffer of `size` bytes handed out in extents. Free space is a list of
 * extents sorted by offset, adjacent ones merged. */
typedef struct exec_arena {
    char *base;
    uint64_t size, avail;
    exec_extent *free;
    size_t nfree, capfree;
} exec_arena;

/* Where the held pieces are while the plan runs: piece h occupies extents
 * ext[first[h] .. first[h] + count[h]) of the arena (count 0: not placed), and left[h] sends
 * that read it have not completed yet. */
typedef struct exec_stash {
    exec_arena arena;
    exec_extent *ext;
    size_t next, cap;
    size_t *first, *count;
    uint32_t *left;
} exec_stash;

/* The byte range [off, off + len) of a message's packed stream, cut at element boundaries of a
 * type of `size` bytes: `head` bytes of element head_elem (starting head_skip bytes into it),
 * then mid_n whole elements from mid_elem, then the first `tail` bytes of element tail_elem.
 * A range inside one element is all head, unless it starts on the element's first byte (then
 * it is all tail). */
typedef struct exec_piece {
    MPI_Count head, head_elem, head_skip;
    MPI_Count mid_elem, mid_n;
    MPI_Count tail, tail_elem;
} exec_piece;

/* Splits [off, off + len) for elements of size bytes (size > 0) into *pc. */
void exec_piece_split(MPI_Count off, MPI_Count len, MPI_Count size, exec_piece *pc);

/* Key of a cut element: element `elem` of the message from `origin`. */
typedef struct exec_cut_key {
    MPI_Count elem;
    int32_t origin;
} exec_cut_key;

/* The cut elements of this rank's incoming messages (sorted keys), the bytes of each received
 * so far (fill) and their packed bytes (buf, n * size). */
typedef struct exec_cuts {
    size_t n;
    MPI_Count size;
    exec_cut_key *key;
    MPI_Count *fill;
    char *buf;
} exec_cuts;

/* The analysed view (exec.h declares it opaque). */
struct exec_view {
    const plan_local *lo;
    const exec_exchange *x;
    exec_held *held;
    size_t nheld;
    size_t *held_begin; /* nrecvs + 1: receive k brings held[held_begin[k] .. held_begin[k+1]) */
    exec_ref *ref;
    size_t nref;
    size_t *ref_begin;  /* nsends + 1: send i reads ref[ref_begin[i] .. ref_begin[i + 1]) */
    uint64_t staging;   /* peak bytes of held pieces alive in one step (see exec.h) */
    size_t max_ops;     /* most operations with bytes this rank has in one step */
    exec_cuts cuts;
    exec_stash stash;
    int allocated;      /* exec_view_alloc succeeded */
};

/* The number of operations with bytes > 0 among ops[from ..) whose step is `step` (ops are in
 * step order), and in *end the index past the operations of that step. */
size_t exec_ops_at(const plan_local_op *ops, size_t n, size_t from, size_t step, size_t *end);

/* Builds v->held, v->held_begin, v->ref, v->ref_begin and v->staging from v->lo (v->x gives
 * this rank). Every forwarded send segment must be covered by pieces held since an earlier
 * step, pieces of one message must not overlap, and every piece must be read at least once.
 * Returns MPI_SUCCESS, MPI_ERR_INTERN (the plan breaks one of these rules) or MPI_ERR_NO_MEM. */
int exec_held_build(exec_view *v);

/* Fills v->cuts.key / n / size with the cut elements of the segments delivered to this rank
 * (none for a dense receive type). Returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
int exec_cuts_build(exec_view *v);

/* Allocates fill (zeroed) and buf for the keys of k. Returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
int exec_cuts_alloc(exec_cuts *k);

/* Adds bytes [skip, skip + len) of cut element (origin, elem) of receive side s; once all its
 * bytes are there, unpacks it into place (base + displ[origin] + elem * extent). Returns
 * MPI_SUCCESS, MPI_ERR_INTERN (unknown element or more bytes than it has) or the MPI_Unpack
 * error. */
int exec_cuts_add(exec_cuts *k, const exec_side *s, MPI_Comm comm, int origin, MPI_Count elem,
                  MPI_Count skip, const char *bytes, MPI_Count len);

/* Releases the key table and buffers; k may be zero-initialised. */
void exec_cuts_free(exec_cuts *k);

/* Makes a an arena of size bytes, all free. Returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
int exec_arena_init(exec_arena *a, uint64_t size);

/* Takes len bytes (len <= a->avail): the first free extent that holds them whole, else the
 * lowest free extents in turn. Appends the extents taken to *out (n entries, cap allocated,
 * grown as needed). Returns MPI_SUCCESS, MPI_ERR_NO_MEM, or MPI_ERR_INTERN if len > avail. */
int exec_arena_take(exec_arena *a, uint64_t len, exec_extent **out, size_t *n, size_t *cap);

/* Returns extents e[0 .. n) to the free list. Returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
int exec_arena_give(exec_arena *a, const exec_extent *e, size_t n);

/* Releases the arena; a may be zero-initialised. */
void exec_arena_free(exec_arena *a);

/* Allocates the stash of v: an arena of v->staging bytes and the per-piece tables. Returns
 * MPI_SUCCESS or MPI_ERR_NO_MEM. */
int exec_stash_init(exec_stash *s, const exec_view *v);

/* Resets the stash for a run: nothing placed, every piece waiting for all its readers. */
void exec_stash_reset(exec_stash *s, const exec_view *v);

/* Places held piece h (not placed yet) in the arena. Returns MPI_SUCCESS, MPI_ERR_NO_MEM, or
 * MPI_ERR_INTERN if the arena lacks the bytes (the run loop makes room first). */
int exec_stash_place(exec_stash *s, const exec_view *v, size_t h);

/* Records that one more send reading piece h completed; frees the piece's extents after the
 * last one. Returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
int exec_stash_done(exec_stash *s, size_t h);

/* Releases the stash; s may be zero-initialised. */
void exec_stash_free(exec_stash *s);

#endif
