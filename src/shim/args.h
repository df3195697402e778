/* The arguments of an intercepted call, as the entry points received them. */
#ifndef HRELAY_SHIM_ARGS_H
#define HRELAY_SHIM_ARGS_H

#include <mpi.h>
#include <stdint.h>

#include "plan/cost.h"

typedef enum shim_kind {
    SHIM_ALLTOALL,
    SHIM_ALLTOALLV,
    SHIM_ALLTOALL_C,
    SHIM_ALLTOALLV_C
} shim_kind;

/* The arguments of any intercepted call, unchanged (for pass-through) with accessors that
 * normalise them (large counts, displacements in elements), and the caller's return address. */
typedef struct shim_args {
    shim_kind kind;
    const void *sendbuf;
    void *recvbuf;
    MPI_Datatype stype, rtype;
    MPI_Count scount, rcount;     /* SHIM_ALLTOALL(_C) */
    const int *scounts, *sdispls; /* SHIM_ALLTOALLV */
    const int *rcounts, *rdispls;
    const MPI_Count *scounts_c, *rcounts_c; /* SHIM_ALLTOALLV_C */
    const MPI_Aint *sdispls_c, *rdispls_c;
    MPI_Comm comm;
    uintptr_t caller;
} shim_args;

/* Whether a is an MPI_Alltoall or MPI_Alltoall_c (one count for every pair). */
static inline int shim_alltoall_kind(const shim_args *a)
{
    return a->kind == SHIM_ALLTOALL || a->kind == SHIM_ALLTOALL_C;
}

/* Calls the PMPI function matching a->kind with the original arguments. */
int shim_args_pmpi(const shim_args *a);

/* Element count of the message to (send, recv = 0) or from (recv = 1) peer j. */
MPI_Count shim_args_count(const shim_args *a, int recv, int j);

/* Displacement, in elements, of that message (saturating at PTRDIFF_MAX for MPI_Alltoall's
 * implied displacements). */
MPI_Aint shim_args_displ(const shim_args *a, int recv, int j);

/* "MPI_Alltoall", "MPI_Alltoallv", ... */
const char *shim_args_name(const shim_args *a);

/* The model of the MPI library's own algorithm for this call (MPICH chooses by the call and
 * MPI_IN_PLACE). */
plan_native_kind shim_args_native_kind(const shim_args *a);

#endif
