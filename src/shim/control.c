/* The tool-facing API of hrelay.h: choosing the family per communicator and reading back
 * which family (and which of its variants) ran. They act on the communicator's record only (a
 * request made before the communicator's first call waits in an attribute of its own for the
 * record that call makes). */
#include <stdint.h>

#include "hrelay.h"
#include "shim/comm.h"
#include "shim/export.h"
#include "shim/run.h"
#include "shim/settings.h"
#include "shim/state.h"

/* Whether comm is an intracommunicator hrelay handles. */
static int handled(MPI_Comm comm)
{
    int inter = 1;
    return shim_g.active && comm != MPI_COMM_NULL &&
           PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && !inter;
}

/* hrelay_set_algorithm (see hrelay.h). */
SHIM_EXPORT int hrelay_set_algorithm(MPI_Comm comm, const char *name)
{
    int request = SHIM_REQUEST_ENV;
    if (!handled(comm) || (name && shim_request_parse(name, &request) != 0))
        return -1;
    shim_comm *rec = shim_comm_find(comm);
    if (!rec && shim_comm_unmade(comm))
        return -1; /* the first call found no memory for the record; its mark stays */
    if (!rec) /* no call on comm yet: its record, made by the first call, takes the request */
        return PMPI_Comm_set_attr(comm, shim_g.request_keyval, (void *)(intptr_t)request) ==
                       MPI_SUCCESS
                   ? 0
                   : -1;
    rec->request = request;
    /* the run of unchecked calls ends: the next call is decided under the new request (agreed;
     * under auto, checked by five words where the last agreed call was too small to explore,
     * and a tiny MPI_Alltoall after an agreed one runs unchecked: decisions that no request
     * changes, since nothing but MPI's algorithm runs such calls under auto) */
    rec->quiet_until = rec->calls;
    rec->quiet_len = SHIM_QUIET_FIRST;
    return 0;
}

/* The record of comm if a call on it was intercepted, else NULL. */
static shim_comm *called(MPI_Comm comm)
{
    shim_comm *rec = NULL;
    int flag = 0;
    if (!handled(comm) ||
        PMPI_Comm_get_attr(comm, shim_g.keyval, &rec, &flag) != MPI_SUCCESS || !flag ||
        rec->last < 0)
        return NULL;
    return rec;
}

/* hrelay_last_algorithm (see hrelay.h). */
SHIM_EXPORT const char *hrelay_last_algorithm(MPI_Comm comm)
{
    shim_comm *rec = called(comm);
    return rec ? plan_algo_name((plan_algo)rec->last) : NULL;
}

/* hrelay_last_run (see hrelay.h). */
SHIM_EXPORT const char *hrelay_last_run(MPI_Comm comm)
{
    shim_comm *rec = called(comm);
    return rec ? shim_run_name((plan_algo)rec->last, rec->last_variant, rec->last_run,
                               sizeof rec->last_run)
               : NULL;
}
