/* exec/: runs one rank's part of a plan over MPI point-to-point. Knows plans and datatypes,
 * nothing about the shim (environment, communicator records, statistics). Every function
 * returns an MPI error code (MPI_SUCCESS or an error class) and prints nothing. */
#ifndef HRELAY_EXEC_EXEC_H
#define HRELAY_EXEC_EXEC_H

#include <mpi.h>

#include "plan/local.h"
#include "plan/plan.h"

/* What exec needs to know about one datatype; filled by exec_type_init. */
typedef struct exec_type {
    MPI_Datatype type;
    MPI_Count size;    /* bytes in the type signature of one element */
    MPI_Count extent;  /* distance in bytes between consecutive elements */
    MPI_Count true_lb; /* offset of element 0's first data byte from the buffer address */
    int dense;         /* 1: n elements are exactly the n * size bytes at buf + true_lb, in
                        * type-signature order (so any byte range can move as MPI_BYTE) */
} exec_type;

/* Fills t for type (which must be a valid datatype; MPI_DATATYPE_NULL is not). "dense" is
 * decided conservatively from the type's constructor chain (named types, and dup / contiguous /
 * resized-to-size chains of dense types); any other type is treated as not dense, which is
 * always correct, only slower. Returns MPI_SUCCESS or the error of the failing query. */
int exec_type_init(exec_type *t, MPI_Datatype type);

/* One side (send or receive) of an all-to-all as seen by one rank: for each peer j, the message
 * is count[j] elements of type.type starting at base + displ[j] (displ in bytes, already
 * multiplied by the extent). The packed byte stream of that message is what plans address. */
typedef struct exec_side {
    char *base;            /* for the send side, never written through */
    const MPI_Count *count; /* p entries */
    const MPI_Aint *displ;  /* p entries, bytes */
    exec_type type;
} exec_side;

/* The exchange one rank takes part in: p ranks, this rank, both sides. */
typedef struct exec_exchange {
    int p;
    int rank;
    exec_side send;
    exec_side recv;
} exec_exchange;

/* How exec_run runs: at most `window` point-to-point operations in flight (>= 1; the
 * operations of one step are always posted together, so window 1 is one paired send/receive
 * per step), all messages with `tag`. */
typedef struct exec_opts {
    int window;
    int tag;
} exec_opts;

/* Default window, chosen by measurement (see exec/run.c). */
#define EXEC_DEFAULT_WINDOW 32

/* Returns 1 if exec_run can run every transfer of pl: every segment travels from its origin to
 * its target in one transfer (origin == src, target == dst). Forwarding plans return 0. */
int exec_plan_supported(const plan *pl);

/* Runs lo (this rank's view of a plan for x) on comm, which must be a communicator of x->p
 * ranks on which this rank is x->rank and which no one else uses for point-to-point traffic
 * with tag o->tag. Operations are posted in step order, receives before sends within a step;
 * messages between one pair follow plan order (MPI non-overtaking), so every rank running the
 * same plan matches correctly. Bytes move only into the receive regions x describes, and only
 * the ranges the plan delivers. Before any communication the view is checked: a forwarded
 * segment gives MPI_ERR_UNSUPPORTED_OPERATION, a range outside a receive region
 * MPI_ERR_TRUNCATE, outside a send region MPI_ERR_INTERN. The self-message (rank to itself) is
 * not part of a plan: see exec_self_copy. Extra memory: per operation in flight, up to two
 * elements of the send type, and for a receive type that is not dense the transfer's bytes.
 * Returns MPI_SUCCESS or an MPI error code; after an error during communication, a few staging
 * bytes may be leaked. */
int exec_run(const plan_local *lo, const exec_exchange *x, MPI_Comm comm, const exec_opts *o);

/* Copies this rank's message to itself (send side entry rank to receive side entry rank)
 * locally, without messages: memcpy between dense types, else through MPI_Pack / MPI_Unpack
 * (comm is the communicator those take). Only whole receive elements are written. Returns
 * MPI_SUCCESS, MPI_ERR_TRUNCATE if the receive region is smaller than the message,
 * MPI_ERR_NO_MEM, or an MPI_Pack / MPI_Unpack error. */
int exec_self_copy(const exec_exchange *x, MPI_Comm comm);

/* MPI_IN_PLACE support: packs the messages `from` describes (p peers) into one new buffer, in
 * peer order, and describes that buffer as a dense MPI_BYTE side in *to, using the caller's
 * arrays count[p] and displ[p]. *buf receives the buffer (free() it; NULL when nothing to
 * stage). Returns MPI_SUCCESS, MPI_ERR_NO_MEM or the MPI_Pack error. */
int exec_stage(const exec_side *from, int p, MPI_Comm comm, exec_side *to, MPI_Count *count,
               MPI_Aint *displ, void **buf);

#endif
