/* Per-communicator records: an attribute on the user's communicator holding hrelay's private
 * duplicate and the scratch memory of a call. The attribute is not copied by MPI_Comm_dup (a
 * duplicate gets its own record on first use) and its delete callback frees the duplicate. */
#include <stdlib.h>

#include "shim/shim.h"

/* Attribute delete callback: frees the private communicator and the record. */
static int delete_record(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    shim_comm *rec = attr;
    (void)comm;
    (void)keyval;
    (void)extra;
    if (rec) {
        PMPI_Comm_free(&rec->priv);
        free(rec);
    }
    return MPI_SUCCESS;
}

/* Creates the attribute key (see shim.h). */
int shim_comm_keyval_create(int *keyval)
{
    return PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_record, keyval, NULL);
}

/* Allocates a record for p ranks with all its arrays in one block; NULL when out of memory. */
static shim_comm *record_alloc(int p)
{
    size_t n = (size_t)p;
    size_t words = n * (n + 2);
    size_t bytes = sizeof(shim_comm) + words * sizeof(uint64_t) + 2 * n * sizeof(MPI_Count) +
                   2 * n * sizeof(MPI_Aint);
    shim_comm *rec = malloc(bytes);
    if (!rec)
        return NULL;
    char *c = (char *)(rec + 1);
    rec->gather = (uint64_t *)c;
    c += words * sizeof(uint64_t);
    rec->scount = (MPI_Count *)c;
    c += n * sizeof(MPI_Count);
    rec->rcount = (MPI_Count *)c;
    c += n * sizeof(MPI_Count);
    rec->sdispl = (MPI_Aint *)c;
    c += n * sizeof(MPI_Aint);
    rec->rdispl = (MPI_Aint *)c;
    return rec;
}

/* Creates comm's record (collective over comm); NULL on every rank on failure. */
static shim_comm *record_create(MPI_Comm comm)
{
    MPI_Comm priv;
    int p, rank, ok;

    if (PMPI_Comm_dup(comm, &priv) != MPI_SUCCESS)
        return NULL;
    PMPI_Comm_set_errhandler(priv, MPI_ERRORS_RETURN);
    PMPI_Comm_size(priv, &p);
    PMPI_Comm_rank(priv, &rank);
    shim_comm *rec = record_alloc(p);
    ok = rec != NULL;
    if (PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, priv) != MPI_SUCCESS)
        ok = 0;
    if (ok && rec) {
        rec->priv = priv;
        rec->p = p;
        rec->rank = rank;
        rec->request = SHIM_REQUEST_ENV;
        rec->last = -1;
        if (PMPI_Comm_set_attr(comm, shim_g.keyval, rec) == MPI_SUCCESS)
            return rec;
    }
    free(rec);
    PMPI_Comm_free(&priv);
    return NULL;
}

/* The record of comm, created on first use (see shim.h). */
shim_comm *shim_comm_get(MPI_Comm comm)
{
    shim_comm *rec = NULL;
    int flag = 0;
    if (PMPI_Comm_get_attr(comm, shim_g.keyval, &rec, &flag) != MPI_SUCCESS)
        return NULL;
    return flag ? rec : record_create(comm);
}

/* Frees MPI_COMM_WORLD's record (see shim.h). */
void shim_comm_release_world(void)
{
    void *rec = NULL;
    int flag = 0;
    if (PMPI_Comm_get_attr(MPI_COMM_WORLD, shim_g.keyval, &rec, &flag) == MPI_SUCCESS && flag)
        PMPI_Comm_delete_attr(MPI_COMM_WORLD, shim_g.keyval);
}
