/* MPI_Init / MPI_Init_thread / MPI_Finalize from `use mpi_f08` with the MPICH ABI family (built
 * only there; configure decides). MPICH's mpi_f08 subroutines (libmpichfort) call PMPI_Init,
 * PMPI_Init_thread and PMPI_Finalize, not the MPI_ names, so the C hooks of init.c never run
 * and hrelay would stay a pass-through; their calls of MPI_Alltoall(v) do reach the C names.
 * hrelay therefore exports the three mpi_f08 entry points, runs the library's own through
 * dlsym(RTLD_NEXT, ...) (as Darshan does) and starts or stops itself around them. The mpif.h
 * and `use mpi` bindings call the C MPI_ names and need nothing here. */
#include <dlfcn.h>

#include "shim/shim.h"

typedef void fortran_ierr_fn(MPI_Fint *ierr);
typedef void fortran_init_thread_fn(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);

/* The MPI library's own definition of a Fortran entry point, or NULL. */
static void *next_symbol(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

/* MPI_Init from `use mpi_f08` (ierr is absent, NULL, when the optional ierror is). */
SHIM_EXPORT void mpi_init_f08_(MPI_Fint *ierr)
{
    fortran_ierr_fn *real = (fortran_ierr_fn *)next_symbol("mpi_init_f08_");
    MPI_Fint rc = MPI_ERR_OTHER;
    if (real)
        real(&rc);
    if (rc == MPI_SUCCESS)
        shim_startup();
    if (ierr)
        *ierr = rc;
}

/* MPI_Init_thread from `use mpi_f08`. */
SHIM_EXPORT void mpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    fortran_init_thread_fn *real =
        (fortran_init_thread_fn *)next_symbol("mpi_init_thread_f08_");
    MPI_Fint rc = MPI_ERR_OTHER;
    if (real)
        real(required, provided, &rc);
    if (rc == MPI_SUCCESS)
        shim_startup();
    if (ierr)
        *ierr = rc;
}

/* MPI_Finalize from `use mpi_f08`. */
SHIM_EXPORT void mpi_finalize_f08_(MPI_Fint *ierr)
{
    fortran_ierr_fn *real = (fortran_ierr_fn *)next_symbol("mpi_finalize_f08_");
    MPI_Fint rc = MPI_ERR_OTHER;
    if (shim_g.active)
        shim_shutdown();
    if (real)
        real(&rc);
    if (ierr)
        *ierr = rc;
}
