/* Fortran MPI_Init / MPI_Init_thread / MPI_Finalize entry points whose MPI library calls
 * PMPI_Init(_thread) / PMPI_Finalize (Open MPI's Fortran bindings, MPICH's mpi_f08), so that
 * the C hooks of init.c never run: fortran_ompi.c and fortran_mpich.c export the library's
 * Fortran names and call these, which run the library's own definition (found with
 * dlsym(RTLD_NEXT, name), as Darshan does) and start or stop hrelay around it. */
#include <dlfcn.h>

#include "shim/fortran.h"
#include "shim/init.h"
#include "shim/state.h"

typedef void fortran_ierr_fn(MPI_Fint *ierr);
typedef void fortran_init_thread_fn(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);

/* Runs the library's Fortran MPI_Init `name`, then hrelay's start-up (see fortran.h). */
void shim_fortran_init(const char *name, MPI_Fint *ierr)
{
    fortran_ierr_fn *real = (fortran_ierr_fn *)dlsym(RTLD_NEXT, name);
    MPI_Fint rc = MPI_ERR_OTHER;
    if (real)
        real(&rc);
    if (rc == MPI_SUCCESS)
        shim_startup();
    if (ierr)
        *ierr = rc;
}

/* Runs the library's Fortran MPI_Init_thread `name`, then hrelay's start-up (see fortran.h). */
void shim_fortran_init_thread(const char *name, MPI_Fint *required, MPI_Fint *provided,
                              MPI_Fint *ierr)
{
    fortran_init_thread_fn *real = (fortran_init_thread_fn *)dlsym(RTLD_NEXT, name);
    MPI_Fint rc = MPI_ERR_OTHER;
    if (real)
        real(required, provided, &rc);
    if (rc == MPI_SUCCESS)
        shim_startup();
    if (ierr)
        *ierr = rc;
}

/* Runs hrelay's shut-down, then the library's Fortran MPI_Finalize `name` (see fortran.h). */
void shim_fortran_finalize(const char *name, MPI_Fint *ierr)
{
    fortran_ierr_fn *real = (fortran_ierr_fn *)dlsym(RTLD_NEXT, name);
    MPI_Fint rc = MPI_ERR_OTHER;
    if (shim_g.active)
        shim_shutdown();
    if (real)
        real(&rc);
    if (ierr)
        *ierr = rc;
}
