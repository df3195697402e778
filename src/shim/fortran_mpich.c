/* MPI_Init / MPI_Init_thread / MPI_Finalize from `use mpi_f08` with the MPICH ABI family (built
 * only there; configure decides). MPICH's mpi_f08 subroutines (libmpichfort) call PMPI_Init,
 * PMPI_Init_thread and PMPI_Finalize, not the MPI_ names, so hrelay would stay a pass-through;
 * their calls of MPI_Alltoall(v) do reach the C names. hrelay exports the three entry points
 * (fortran_init.c runs the library's own around hrelay's start-up and shut-down). The mpif.h
 * and `use mpi` bindings call the C MPI_ names and need nothing here. ierr is NULL when the
 * optional ierror argument is absent. */
#include "shim/export.h"
#include "shim/fortran.h"

/* MPI_Init from `use mpi_f08`. */
SHIM_EXPORT void mpi_init_f08_(MPI_Fint *ierr)
{
    shim_fortran_init("mpi_init_f08_", ierr);
}

/* MPI_Init_thread from `use mpi_f08`. */
SHIM_EXPORT void mpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    shim_fortran_init_thread("mpi_init_thread_f08_", required, provided, ierr);
}

/* MPI_Finalize from `use mpi_f08`. */
SHIM_EXPORT void mpi_finalize_f08_(MPI_Fint *ierr)
{
    shim_fortran_finalize("mpi_finalize_f08_", ierr);
}
