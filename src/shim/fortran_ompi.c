/* Fortran entry points for Open MPI (built only against Open MPI; configure decides). Open MPI's
 * Fortran bindings call PMPI_Alltoall(v) directly, so a C-only interposition never sees a
 * Fortran program's calls. hrelay therefore exports the Fortran symbols itself, as Darshan
 * does: the mpif.h / `use mpi` names (mpi_alltoallv_, mpi_alltoallv__, mpi_alltoallv,
 * MPI_ALLTOALLV) and ompi_alltoallv_f, the C function through which Open MPI's `use mpi_f08`
 * subroutines (libmpi_usempif08) reach the C library - a call between shared libraries, so the
 * preloaded definition wins. Each converts the Fortran arguments as Open MPI's own wrapper does
 * (handles with the f2c functions, Fortran MPI_IN_PLACE and MPI_BOTTOM to C, MPI_Fint counts)
 * and calls the intercepted C function. The PMPI_ Fortran names are left alone. */
#include <stdlib.h>

#include "shim/export.h"
#include "shim/fortran.h"

/* The addresses Open MPI's Fortran MPI_IN_PLACE and MPI_BOTTOM refer to (libmpi). */
extern int mpi_fortran_in_place_;
extern int mpi_fortran_bottom_;

/* A Fortran buffer argument as C sees it: MPI_IN_PLACE (if allowed) and MPI_BOTTOM mapped. */
static void *c_buffer(void *buf, int in_place_ok)
{
    if (in_place_ok && buf == (void *)&mpi_fortran_in_place_)
        return MPI_IN_PLACE;
    if (buf == (void *)&mpi_fortran_bottom_)
        return MPI_BOTTOM;
    return buf;
}

/* A C int array of n Fortran integers (a copy only where MPI_Fint is not int); *tmp receives
 * what to free. NULL when out of memory. */
static const int *c_ints(const MPI_Fint *f, int n, int **tmp)
{
    *tmp = NULL;
    if (sizeof(MPI_Fint) == sizeof(int))
        return (const int *)f;
    if (!(*tmp = malloc((size_t)(n > 0 ? n : 1) * sizeof **tmp)))
        return NULL;
    for (int i = 0; i < n; i++)
        (*tmp)[i] = (int)f[i];
    return *tmp;
}

/* MPI_ALLTOALLV from Fortran: converts and calls the intercepted MPI_Alltoallv. */
SHIM_EXPORT void ompi_alltoallv_f(char *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls,
                                  MPI_Fint *sendtype, char *recvbuf, MPI_Fint *recvcounts,
                                  MPI_Fint *rdispls, MPI_Fint *recvtype, MPI_Fint *comm,
                                  MPI_Fint *ierr)
{
    MPI_Comm c_comm = PMPI_Comm_f2c(*comm);
    int n = 0, inter = 0, rc;
    PMPI_Comm_test_inter(c_comm, &inter);
    if (inter ? PMPI_Comm_remote_size(c_comm, &n) : PMPI_Comm_size(c_comm, &n))
        n = 0;
    void *s = c_buffer(sendbuf, 1);
    int *t[4];
    const int *sc = c_ints(sendcounts, n, &t[0]), *sd = c_ints(sdispls, n, &t[1]);
    const int *rcn = c_ints(recvcounts, n, &t[2]), *rd = c_ints(rdispls, n, &t[3]);
    if (sc && sd && rcn && rd)
        rc = MPI_Alltoallv(s, sc, sd, PMPI_Type_f2c(*sendtype), c_buffer(recvbuf, 0), rcn, rd,
                           PMPI_Type_f2c(*recvtype), c_comm);
    else
        PMPI_Comm_call_errhandler(c_comm, rc = MPI_ERR_NO_MEM);
    for (int i = 0; i < 4; i++)
        free(t[i]);
    if (ierr)
        *ierr = (MPI_Fint)rc;
}

/* MPI_ALLTOALL from Fortran: converts and calls the intercepted MPI_Alltoall. */
SHIM_EXPORT void ompi_alltoall_f(char *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,
                                 char *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype,
                                 MPI_Fint *comm, MPI_Fint *ierr)
{
    int rc = MPI_Alltoall(c_buffer(sendbuf, 1), (int)*sendcount, PMPI_Type_f2c(*sendtype),
                          c_buffer(recvbuf, 0), (int)*recvcount, PMPI_Type_f2c(*recvtype),
                          PMPI_Comm_f2c(*comm));
    if (ierr)
        *ierr = (MPI_Fint)rc;
}

/* MPI_INIT, MPI_INIT_THREAD, MPI_FINALIZE from Fortran: Open MPI's call PMPI_Init and
 * PMPI_Finalize, so hrelay starts and stops itself around them (fortran_init.c). */
SHIM_EXPORT void ompi_init_f(MPI_Fint *ierr)
{
    shim_fortran_init("ompi_init_f", ierr);
}

SHIM_EXPORT void ompi_init_thread_f(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    shim_fortran_init_thread("ompi_init_thread_f", required, provided, ierr);
}

SHIM_EXPORT void ompi_finalize_f(MPI_Fint *ierr)
{
    shim_fortran_finalize("ompi_finalize_f", ierr);
}

/* The mpif.h / `use mpi` names, in every spelling Open MPI exports. */
#define FORTRAN_ALIAS(name, target) \
    SHIM_EXPORT __typeof__(target) name __attribute__((alias(#target)));
FORTRAN_ALIAS(mpi_alltoallv_, ompi_alltoallv_f)
FORTRAN_ALIAS(mpi_alltoallv__, ompi_alltoallv_f)
FORTRAN_ALIAS(mpi_alltoallv, ompi_alltoallv_f)
FORTRAN_ALIAS(MPI_ALLTOALLV, ompi_alltoallv_f)
FORTRAN_ALIAS(mpi_alltoall_, ompi_alltoall_f)
FORTRAN_ALIAS(mpi_alltoall__, ompi_alltoall_f)
FORTRAN_ALIAS(mpi_alltoall, ompi_alltoall_f)
FORTRAN_ALIAS(MPI_ALLTOALL, ompi_alltoall_f)
FORTRAN_ALIAS(mpi_init_, ompi_init_f)
FORTRAN_ALIAS(mpi_init__, ompi_init_f)
FORTRAN_ALIAS(mpi_init, ompi_init_f)
FORTRAN_ALIAS(MPI_INIT, ompi_init_f)
FORTRAN_ALIAS(mpi_init_thread_, ompi_init_thread_f)
FORTRAN_ALIAS(mpi_init_thread__, ompi_init_thread_f)
FORTRAN_ALIAS(mpi_init_thread, ompi_init_thread_f)
FORTRAN_ALIAS(MPI_INIT_THREAD, ompi_init_thread_f)
FORTRAN_ALIAS(mpi_finalize_, ompi_finalize_f)
FORTRAN_ALIAS(mpi_finalize__, ompi_finalize_f)
FORTRAN_ALIAS(mpi_finalize, ompi_finalize_f)
FORTRAN_ALIAS(MPI_FINALIZE, ompi_finalize_f)
