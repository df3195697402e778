/* The process state hrelay keeps from MPI_Init to MPI_Finalize, and the process-wide record
 * shared by all communicators. */
#include <stdlib.h>

#include "shim/state.h"

shim_state shim_g;

shim_world *shim_world_create(void)
{
    shim_world *w = calloc(1, sizeof *w);
    if (w && pthread_mutex_init(&w->lock, NULL) != 0) {
        free(w);
        w = NULL;
    }
    return w;
}

void shim_world_free(shim_world *w)
{
    if (!w)
        return;
    pthread_mutex_destroy(&w->lock);
    shim_lineage_free(w);
    shim_sites_free(&w->retired);
    shim_comm_summaries_free(&w->comms);
    free(w->live);
    free(w->dumped);
    free(w->node_label);
    free(w);
}

int shim_world_labels(shim_world *w, int rank, int size)
{
    int32_t *label = malloc((size_t)size * sizeof *label);
    int ok = label != NULL, lowest = rank, rc;
    MPI_Comm shm = MPI_COMM_NULL;
    rc = PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shm);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Allreduce(&rank, &lowest, 1, MPI_INT, MPI_MIN, shm);
    if (shm != MPI_COMM_NULL)
        PMPI_Comm_free(&shm);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS && ok) {
        label[rank] = lowest;
        rc = PMPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, label, 1, MPI_INT32_T,
                            MPI_COMM_WORLD);
    }
    if (rc != MPI_SUCCESS || !ok) {
        free(label);
        label = NULL;
    }
    w->node_label = label;
    return rc;
}
