/* Blocks of bytes of every rank of MPI_COMM_WORLD gathered on rank 0, for what is merged at
 * MPI_Finalize (gather_root.c). */
#ifndef HRELAY_SHIM_GATHER_ROOT_H
#define HRELAY_SHIM_GATHER_ROOT_H

/* The blocks gathered on rank 0. */
typedef struct shim_gathered {
    char *all;   /* rank 0: the blocks one after another (NULL elsewhere) */
    int *lens;   /* rank 0: each rank's block length in bytes */
    int *displs; /* rank 0: where each rank's block starts in all */
    int n;       /* the number of ranks */
} shim_gathered;

/* Collective over MPI_COMM_WORLD: gathers every rank's block of len bytes at data (len -1:
 * this rank failed to make its block) on rank 0 into *g (shim_gathered_free it on every rank).
 * Returns an MPI error code: MPI_ERR_NO_MEM on every rank when a rank failed or rank 0 cannot
 * hold the blocks. */
int shim_gather_root(const void *data, int len, shim_gathered *g);

/* Releases g's memory. */
void shim_gathered_free(shim_gathered *g);

#endif
