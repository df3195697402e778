/* exec/ internals: what one transfer looks like on the wire, and how its bytes are taken from
 * the send buffer or staging and put into the receive buffer or staging. */
#ifndef HRELAY_EXEC_WIRE_H
#define HRELAY_EXEC_WIRE_H

#include "exec/exec.h"
#include "exec/view.h"

/* State shared by the transfers of one run. */
typedef struct exec_ctx {
    exec_view *v;
    MPI_Comm comm;
    char *elem; /* scratch holding one packed send element (send.type.size bytes) */
} exec_ctx;

/* A contiguous part of a transfer: count elements of type at addr (absolute address). */
typedef struct exec_block {
    char *addr;
    MPI_Count count;
    MPI_Datatype type;
} exec_block;

/* One transfer as posted: its blocks in wire order, and the bytes (a send's cut elements, the
 * part of a receive delivered here for a receive type that is not dense) that must live until
 * it completes. */
typedef struct exec_wire {
    exec_block *blocks;
    size_t nblocks;
    char *tmp;
} exec_wire;

/* Describes send `index` (is_send) or receive `index` of the view as blocks, in segment order:
 *   send, own segment (origin == this rank): a dense type's range as bytes in place; else
 *     whole elements typed in place and the bytes of a cut first / last element packed into
 *     w->tmp;
 *   send, forwarded segment: bytes from the staging extents of the pieces its refs name;
 *   receive, segment for this rank: bytes in place for a dense receive type, else into w->tmp;
 *   receive, segment for another rank: into the staging extents of its held piece, which must
 *     have been placed (exec_stash_place).
 * Adjacent byte blocks are merged, so a transfer that is one contiguous range of a dense
 * region is a single block (no copy, no derived datatype). Returns MPI_SUCCESS,
 * MPI_ERR_NO_MEM or an MPI_Pack error; on failure w holds no memory. */
int exec_wire_build(exec_ctx *c, size_t index, int is_send, exec_wire *w);

/* Posts w to or from peer with tag on c->comm (one operation; several blocks go as one struct
 * datatype relative to MPI_BOTTOM). Returns MPI_SUCCESS or the MPI error code. */
int exec_wire_post(exec_ctx *c, const exec_wire *w, int is_send, int peer, int tag,
                   MPI_Request *req);

/* After receive `index` completed, for a receive type that is not dense: unpacks the bytes in
 * w->tmp, whole elements straight into place and the bytes of cut elements into the cut table
 * (exec_cuts_add), which unpacks each element once all its bytes are in, whatever order and
 * whichever senders they come from. Returns MPI_SUCCESS, MPI_ERR_INTERN or an MPI_Unpack
 * error. */
int exec_wire_finish_recv(exec_ctx *c, size_t index, const exec_wire *w);

/* Copies described send w into the window at dst, as its message would carry it (byte blocks
 * as they are, typed blocks packed). Returns MPI_SUCCESS or an MPI_Pack error. */
int exec_wire_put(exec_ctx *c, const exec_wire *w, char *dst);

/* Copies a receive's bytes from the window at src into described receive w's blocks (all
 * bytes: see exec_wire_build), what the message would have delivered. */
void exec_wire_get(const exec_wire *w, const char *src);

/* Synchronises the ranks of shm's node and their view of its window (see exec_shm). Returns
 * an MPI error code. */
int exec_shm_fence(const exec_shm *shm);

/* Releases w's memory; w may be zero-initialised. */
void exec_wire_free(exec_wire *w);

#endif
