/* A node's shared-memory window (node_window.h). */
#include <stddef.h>
#include <string.h>

#include "exec/node_window.h"
#include "exec/wire.h"

/* Whether every rank of node shares memory with every other one (collective over node; the
 * same answer on every rank). */
static int shares_memory(MPI_Comm node)
{
    MPI_Comm shm;
    int size = 0, shm_size = -1, same = 0;
    if (PMPI_Comm_size(node, &size) != MPI_SUCCESS ||
        PMPI_Comm_split_type(node, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm) != MPI_SUCCESS)
        return 0;
    if (shm != MPI_COMM_NULL) {
        PMPI_Comm_size(shm, &shm_size);
        PMPI_Comm_free(&shm);
    }
    same = shm_size == size;
    if (PMPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_MIN, node) != MPI_SUCCESS)
        return 0;
    return same;
}

void exec_window_free(exec_window *w)
{
    if (w->bytes > 0) {
        PMPI_Win_unlock_all(w->win);
        PMPI_Win_free(&w->win);
    }
    w->bytes = 0;
    w->base = NULL;
}

/* Prepares the new window w of node for its first use: its pages written once and mapped in
 * every rank, and the node's barrier run, so that a plan's first call through it does not pay
 * them (on one node at 32 KiB per pair that call's exchange took 0.36 - 0.68 ms where later
 * ones took 6 us). Collective over node. */
static void warm(const exec_window *w, MPI_Comm node, int lane)
{
    if (lane == 0)
        memset(w->base, 0, (size_t)w->bytes);
    exec_shm_fence(&(exec_shm){.win = w->win, .node = node});
    volatile const char *page = w->base;
    char seen = 0;
    for (uint64_t k = 0; k < w->bytes; k += 4096)
        seen ^= page[k];
    (void)seen;
    PMPI_Barrier(node);
}

/* Makes a window of `bytes` on node into w (the lane 0 rank holds the memory), ready for use
 * (warm). Returns 1 on every rank of node where it succeeded on all of them, else 0 (and w
 * holds none). */
static int make(exec_window *w, MPI_Comm node, uint64_t bytes)
{
    int lane, ok = 0;
    void *mine = NULL;
    MPI_Win win = MPI_WIN_NULL;
    if (PMPI_Comm_rank(node, &lane) == MPI_SUCCESS && bytes <= (uint64_t)INT64_MAX &&
        PMPI_Win_allocate_shared(lane == 0 ? (MPI_Aint)bytes : 0, 1, MPI_INFO_NULL, node, &mine,
                                 &win) == MPI_SUCCESS) {
        MPI_Aint size;
        int unit;
        void *base = NULL;
        PMPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
        ok = PMPI_Win_shared_query(win, 0, &size, &unit, &base) == MPI_SUCCESS && base &&
             (uint64_t)size >= bytes && PMPI_Win_lock_all(MPI_MODE_NOCHECK, win) == MPI_SUCCESS;
        w->base = base;
    }
    int all = ok;
    if (PMPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, node) != MPI_SUCCESS)
        all = 0;
    if (all) {
        w->win = win;
        w->bytes = bytes;
        warm(w, node, lane);
        return 1;
    }
    if (ok)
        PMPI_Win_unlock_all(win);
    if (win != MPI_WIN_NULL)
        PMPI_Win_free(&win);
    w->base = NULL;
    return 0;
}

int exec_window_ensure(exec_window *w, MPI_Comm node, uint64_t need)
{
    if (w->state == 0)
        w->state = shares_memory(node) ? 1 : -1;
    if (w->state < 0)
        return 0;
    if (need <= w->bytes)
        return 1;
    exec_window_free(w);
    if (!make(w, node, need))
        w->state = -1;
    return w->state > 0;
}
