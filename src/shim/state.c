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
    shim_sites_free(&w->retired);
    shim_comm_summaries_free(&w->comms);
    free(w->live);
    free(w->dumped);
    free(w);
}
