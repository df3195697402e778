/* Starting and stopping hrelay around the MPI library's own initialisation and finalisation
 * (init.c; called from the C hooks there and from the Fortran ones, fortran.h). */
#ifndef HRELAY_SHIM_INIT_H
#define HRELAY_SHIM_INIT_H

/* After PMPI_Init(_thread): reads and agrees on the configuration and, unless disabled, sets
 * up interception. Collective over MPI_COMM_WORLD. On any failure (on any rank) hrelay stays a
 * pass-through on every rank. Runs once; later calls do nothing. */
void shim_startup(void);

/* Before PMPI_Finalize, if shim_g.active: merges statistics, writes the report (rank 0), frees
 * hrelay's state. Collective over MPI_COMM_WORLD. */
void shim_shutdown(void);

#endif
