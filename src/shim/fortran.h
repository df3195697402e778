/* The Fortran MPI_Init / MPI_Init_thread / MPI_Finalize entry points' common body
 * (fortran_init.c); fortran_ompi.c and fortran_mpich.c export the names. */
#ifndef HRELAY_SHIM_FORTRAN_H
#define HRELAY_SHIM_FORTRAN_H

#include <mpi.h>

/* The body of an exported Fortran MPI_Init whose library definition, `name` (found with
 * dlsym(RTLD_NEXT)), calls PMPI_Init: runs it, then shim_startup if it succeeded; *ierr (if
 * ierr is not NULL) is its result. */
void shim_fortran_init(const char *name, MPI_Fint *ierr);

/* The same for MPI_Init_thread (required, provided: the Fortran arguments). */
void shim_fortran_init_thread(const char *name, MPI_Fint *required, MPI_Fint *provided,
                              MPI_Fint *ierr);

/* The same for MPI_Finalize: shim_shutdown (if active), then the library's `name`. */
void shim_fortran_finalize(const char *name, MPI_Fint *ierr);

#endif
