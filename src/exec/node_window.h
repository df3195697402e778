/* A node's shared-memory window, through which node-aggregate moves its transfers within the
 * node (HRELAY_NODE_SHM; exec_shm): made on first use, grown when a plan needs more, freed with
 * the communicator's topology; hrelay-calibrate times its making. Only MPI, no state of its
 * own. */
#ifndef HRELAY_EXEC_NODE_WINDOW_H
#define HRELAY_EXEC_NODE_WINDOW_H

#include <mpi.h>
#include <stdint.h>

/* One node communicator's window. Zero-initialised: not tried yet. The same on every rank of
 * the node but for the handles. */
typedef struct exec_window {
    MPI_Win win;    /* valid when bytes > 0, in a passive epoch (MPI_Win_lock_all) */
    char *base;     /* this rank's address of the window's first byte */
    uint64_t bytes; /* its size; 0: none */
    int state;      /* 0: not tried; 1: the node's ranks share memory; -1: they do not, or
                       making a window failed (the node's transfers go as messages) */
} exec_window;

/* Makes sure w holds at least `need` bytes shared by the ranks of node: collective over node,
 * every rank of node with the same need. Returns 1 when w can carry them (on every rank of node
 * alike), 0 when the node's ranks do not share memory or a window could not be made (then
 * never again for w). */
int exec_window_ensure(exec_window *w, MPI_Comm node, uint64_t need);

/* Frees w's window (collective over its node, as freeing the node communicator is); w may be
 * zero-initialised. */
void exec_window_free(exec_window *w);

#endif
