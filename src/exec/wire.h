/* exec/ internals: what one transfer looks like on the wire, and how its bytes are taken from
 * the send buffer and put into the receive buffer. */
#ifndef HRELAY_EXEC_WIRE_H
#define HRELAY_EXEC_WIRE_H

#include "exec/exec.h"

/* The byte range [off, off + len) of a message's packed stream, cut at element boundaries of a
 * type of `size` bytes: `head` bytes of element head_elem (starting head_skip bytes into it),
 * then mid_n whole elements from mid_elem, then the first `tail` bytes of element tail_elem.
 * A range inside one element is all head. */
typedef struct exec_piece {
    MPI_Count head, head_elem, head_skip;
    MPI_Count mid_elem, mid_n;
    MPI_Count tail, tail_elem;
} exec_piece;

/* Splits [off, off + len) for elements of size bytes (size > 0) into *pc. */
void exec_piece_split(MPI_Count off, MPI_Count len, MPI_Count size, exec_piece *pc);

/* A partly received element of one incoming message: bytes [0, fill) of element elem's packed
 * form are in buf (size bytes). */
typedef struct exec_carry {
    char *buf;
    MPI_Count elem;
    MPI_Count fill;
} exec_carry;

/* State shared by the transfers of one exec_run. */
typedef struct exec_ctx {
    const exec_exchange *x;
    MPI_Comm comm;
    char *elem;         /* scratch holding one packed send element (send.type.size bytes) */
    exec_carry *carry;  /* x->p entries, allocated on first need */
} exec_ctx;

/* A contiguous part of a transfer: count elements of type at addr (absolute address). */
typedef struct exec_block {
    char *addr;
    MPI_Count count;
    MPI_Datatype type;
} exec_block;

/* One transfer as posted: its blocks in wire order, and the staging bytes (a send's cut
 * elements, a non-dense receive's whole transfer) that must live until it completes. */
typedef struct exec_wire {
    exec_block *blocks;
    size_t nblocks;
    char *tmp;
} exec_wire;

/* Describes op (a send if is_send, else a receive) as blocks. A receive is contiguous
 * MPI_BYTE: in place for a dense receive type, else the whole transfer into w->tmp. For a send,
 * elements cut by a segment boundary are packed and the bytes in range copied into w->tmp.
 * Returns MPI_SUCCESS, MPI_ERR_NO_MEM or an MPI_Pack error; on failure w holds no memory. */
int exec_wire_build(exec_ctx *c, const plan_local_op *op, int is_send, exec_wire *w);

/* Posts w to or from peer with tag on c->comm (one operation; several blocks go as one struct
 * datatype relative to MPI_BOTTOM). Returns MPI_SUCCESS or the MPI error code. */
int exec_wire_post(exec_ctx *c, const exec_wire *w, int is_send, int peer, int tag,
                   MPI_Request *req);

/* After receive op completed: for a receive type that is not dense, unpacks the staged bytes:
 * whole elements straight into place, the bytes of an element cut by a piece boundary into
 * the partial element of their message, unpacked once it is whole. Requires the pieces of each
 * message to arrive in increasing, adjacent order (exec_run checks this beforehand). Returns
 * MPI_SUCCESS, MPI_ERR_NO_MEM, MPI_ERR_INTERN (pieces out of order) or an MPI_Unpack error. */
int exec_wire_finish_recv(exec_ctx *c, const plan_local_op *op, const exec_wire *w);

/* Releases w's memory; w may be zero-initialised. */
void exec_wire_free(exec_wire *w);

#endif
