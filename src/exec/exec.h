/* exec/: runs one rank's part of a plan over MPI point-to-point. Knows plans and datatypes,
 * nothing about the shim (environment, communicator records, statistics). Every function
 * returns an MPI error code (MPI_SUCCESS or an error class) and prints nothing.
 *
 * Use: exec_view_create (checks and analyses this rank's part of the plan, no communication,
 * no large allocation) -> exec_view_staging (the staging it needs, to compare with a limit)
 * -> exec_view_alloc (allocates that staging) -> exec_view_run -> exec_view_free. exec_run does
 * all of it in one call. */
#ifndef HRELAY_EXEC_EXEC_H
#define HRELAY_EXEC_EXEC_H

#include <mpi.h>
#include <stdint.h>

#include "exec/mpi_compat.h"

#include "plan/local.h"
#include "plan/node_shm.h"
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

/* Transfers within a node carried through the node's shared memory (plan/node_shm.h): in a step
 * with sync[step] set, this rank writes its sends there into the window, all ranks of the
 * node synchronise (MPI_Win_sync, a barrier over node, MPI_Win_sync), and it reads its
 * receives. Every rank of node must run the same plan with the same sync[], ranks without
 * operations included. */
typedef struct exec_shm {
    char *base;                /* this rank's address of its node's window */
    const uint64_t *send_at;   /* per send of the view: offset in the window, or
                                  PLAN_SHM_NET (a message) */
    const uint64_t *recv_at;   /* per receive, the same */
    const unsigned char *sync; /* per step of the plan: 1 where the node synchronises */
    size_t nsteps;             /* entries of sync */
    MPI_Win win;               /* the window (in a passive epoch: MPI_Win_lock_all) */
    MPI_Comm node;             /* the ranks of this rank's node */
} exec_shm;

/* How a plan runs: at most `window` point-to-point operations in flight (>= 1; the operations
 * of one step are always posted together, so window 1 is one paired send/receive per step);
 * with `steps` > 0 also at most `steps` consecutive steps of the plan in flight: an operation
 * of step s is posted once every operation of steps up to s - steps has completed (0: no such
 * limit); all messages with `tag`. A node plan's step is a node step: a rank sends to and
 * receives from the lanes of its node's peer nodes, L sends and L receives with L ranks per
 * node, so `window` 2L allows about one node step in flight and 4L two, but only where every
 * step has that many operations (a sparse step has fewer, and the window then admits more
 * steps); `steps` bounds the node steps in flight exactly, whatever each step holds. */
typedef struct exec_opts {
    int window;
    int steps;
    int tag;
    size_t sync_steps; /* 0: as above; n > 0: the plan's n steps run one at a time, every rank
                          of the communicator completing a step before any starts the next (a
                          barrier between steps, on every rank, with operations or without);
                          window and steps are then not used */
    const unsigned char *sync_starts; /* with sync_steps: 1 where a step begins a group of
                          steps posted together after the barrier, 0 where it joins the group
                          before it (no barrier between them); sync_steps entries, the same on
                          every rank. NULL: every step is a group of its own */
    const exec_shm *shm;              /* NULL: every transfer is a message */
} exec_opts;

/* Default window, chosen by measurement (see exec/run.c). */
#define EXEC_DEFAULT_WINDOW 32

/* This rank's part of a plan, checked and analysed (opaque; exec/view.h). */
typedef struct exec_view exec_view;

/* Checks lo (this rank's view of a plan) against x and analyses it, before any communication.
 * Segments are of three kinds for this rank: its own data (origin == rank), read from the send
 * side; data for it (target == rank), written to the receive side; and data it forwards
 * (neither), which arrives in one transfer, waits in staging and leaves in later ones. Errors:
 * MPI_ERR_TRUNCATE for a range delivered here outside its receive region; MPI_ERR_INTERN for a
 * plan this rank cannot run: a peer or rank out of range, an own range outside its send
 * region, data for this rank in one of its sends, a forwarded segment not covered by pieces
 * this rank received in earlier steps, a byte held twice, a piece received for forwarding and
 * never sent on; MPI_ERR_NO_MEM. x and lo must outlive the view. On success *out is the view
 * (exec_view_free it); on failure *out is NULL. */
int exec_view_create(const plan_local *lo, const exec_exchange *x, exec_view **out);

/* Staging bytes the view needs: the peak, over the steps s of the plan, of the bytes of the
 * pieces this rank holds for forwarding in step s. A piece is a segment with target != rank
 * of a transfer this rank receives; it is held from the step of that receive through the last
 * step of a send of this rank that reads it. For the two-round transpose this is all the data
 * the rank relays (every piece arrives in round 1 and leaves in round 2); for plans that pass
 * pieces on soon after they arrive it is much less than the total. Deterministic: the same
 * plan gives the same number on every run. */
uint64_t exec_view_staging(const exec_view *v);

/* Allocates what a run needs, before any communication: the staging arena (exactly
 * exec_view_staging bytes, one buffer) and, for a receive type that is not dense, one packed
 * element per element of an incoming message that a segment boundary cuts. Returns
 * MPI_SUCCESS or MPI_ERR_NO_MEM (the view is then still valid, only unallocated). */
int exec_view_alloc(exec_view *v);

/* Runs the view on comm, which must be a communicator of x->p ranks on which this rank is
 * x->rank and which no one else uses for point-to-point traffic with tag o->tag (allocates
 * first if exec_view_alloc was not called). Operations are posted in step order, receives
 * before sends within a step, at most o->window in flight, completed oldest first; messages
 * between one pair follow plan order (MPI non-overtaking), so every rank running the same plan
 * matches correctly. A send that forwards data is posted only after the receives that brought
 * the data completed; a receive into staging is posted only once the arena has room, made by
 * completing operations of earlier steps, never later ones. Steps need not pair a send with a
 * receive (half-duplex plans: a rank only sends or only receives in a step). Deadlock-free for
 * any window >= 1: a rank only ever waits for operations of steps earlier than the one it is
 * posting, so by induction over the steps every operation is posted on both sides.
 *
 * Bytes move only into the receive regions x describes, and only the ranges the plan delivers;
 * pieces of one message may arrive from different senders in any order. The self-message
 * (rank to itself) is not part of a plan: see exec_self_copy.
 *
 * Extra memory, beside exec_view_alloc's: per operation in flight, its block list, and for a
 * send up to two packed elements of the send type per own segment, and for a receive with a
 * receive type that is not dense the bytes it delivers here. Returns MPI_SUCCESS or an MPI
 * error code; after an error during communication, a few bytes (and the staging arena, if a
 * send from it was in flight) may be leaked. */
int exec_view_run(exec_view *v, MPI_Comm comm, const exec_opts *o);

/* Releases a view and its allocations; v may be NULL. */
void exec_view_free(exec_view *v);

/* exec_view_create, exec_view_alloc, exec_view_run and exec_view_free in one call (errors as
 * they return them). */
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
