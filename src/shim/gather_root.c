/* Every rank's block of bytes gathered on rank 0 of MPI_COMM_WORLD (gather_root.h): whether rank
 * 0 can hold the lengths, the lengths, an agreement on whether everything fits, then the
 * blocks. */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shim/gather_root.h"

int shim_gather_root(const void *data, int len, shim_gathered *g)
{
    int rank, size, rc, bad;
    memset(g, 0, sizeof *g);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    g->n = size;
    g->lens = rank == 0 ? calloc((size_t)size, sizeof *g->lens) : NULL;
    g->displs = rank == 0 ? calloc((size_t)size, sizeof *g->displs) : NULL;
    bad = rank == 0 && (!g->lens || !g->displs);
    /* rank 0 without room for the lengths cannot take part in the gather (MPI would fail it
     * on a NULL buffer, fatally under MPI_ERRORS_ARE_FATAL): every rank learns so first */
    if ((rc = PMPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD)) != MPI_SUCCESS)
        return rc;
    if (bad)
        return MPI_ERR_NO_MEM;
    if ((rc = PMPI_Gather(&len, 1, MPI_INT, g->lens, 1, MPI_INT, 0, MPI_COMM_WORLD)) !=
        MPI_SUCCESS)
        return rc;
    size_t total = 0;
    for (int r = 0; rank == 0 && !bad && r < size; r++) {
        g->displs[r] = (int)total;
        bad |= g->lens[r] < 0 || total + (size_t)g->lens[r] > (size_t)INT32_MAX;
        total += g->lens[r] > 0 ? (size_t)g->lens[r] : 0;
    }
    if (rank == 0 && !bad && !(g->all = malloc(total ? total : 1)))
        bad = 1;
    if ((rc = PMPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD)) != MPI_SUCCESS)
        return rc;
    if (bad) /* some rank could not make its block, or rank 0 cannot hold them all */
        return MPI_ERR_NO_MEM;
    return PMPI_Gatherv(data, len, MPI_BYTE, g->all, g->lens, g->displs, MPI_BYTE, 0,
                        MPI_COMM_WORLD);
}

void shim_gathered_free(shim_gathered *g)
{
    free(g->all);
    free(g->lens);
    free(g->displs);
    memset(g, 0, sizeof *g);
}
