/* The arguments of an intercepted call: the PMPI call with them unchanged, and accessors that
 * give every variant (MPI_Alltoall(v), large-count or not) the same large-count view. */
#include <stdint.h>

#include "config.h" /* HRELAY_HAVE_MPI_LARGE_COUNT */

#include "shim/args.h"

int shim_args_pmpi(const shim_args *a)
{
    switch (a->kind) {
    case SHIM_ALLTOALL:
        return PMPI_Alltoall(a->sendbuf, (int)a->scount, a->stype, a->recvbuf, (int)a->rcount,
                             a->rtype, a->comm);
    case SHIM_ALLTOALLV:
        return PMPI_Alltoallv(a->sendbuf, a->scounts, a->sdispls, a->stype, a->recvbuf,
                              a->rcounts, a->rdispls, a->rtype, a->comm);
#ifdef HRELAY_HAVE_MPI_LARGE_COUNT
    case SHIM_ALLTOALL_C:
        return PMPI_Alltoall_c(a->sendbuf, a->scount, a->stype, a->recvbuf, a->rcount, a->rtype,
                               a->comm);
    case SHIM_ALLTOALLV_C:
        return PMPI_Alltoallv_c(a->sendbuf, a->scounts_c, a->sdispls_c, a->stype, a->recvbuf,
                                a->rcounts_c, a->rdispls_c, a->rtype, a->comm);
#else
    case SHIM_ALLTOALL_C: /* not intercepted: the library has no such function */
    case SHIM_ALLTOALLV_C:
        break;
#endif
    }
    return MPI_ERR_INTERN;
}

MPI_Count shim_args_count(const shim_args *a, int recv, int j)
{
    switch (a->kind) {
    case SHIM_ALLTOALL:
    case SHIM_ALLTOALL_C:
        return recv ? a->rcount : a->scount;
    case SHIM_ALLTOALLV:
        return recv ? a->rcounts[j] : a->scounts[j];
    case SHIM_ALLTOALLV_C:
        return recv ? a->rcounts_c[j] : a->scounts_c[j];
    }
    return 0;
}

MPI_Aint shim_args_displ(const shim_args *a, int recv, int j)
{
    switch (a->kind) {
    case SHIM_ALLTOALL:
    case SHIM_ALLTOALL_C:
    {
        MPI_Aint d; /* saturates: no buffer is that large, and describe() then passes through */
        return __builtin_mul_overflow((MPI_Aint)j, recv ? a->rcount : a->scount, &d)
                   ? PTRDIFF_MAX
                   : d;
    }
    case SHIM_ALLTOALLV:
        return recv ? a->rdispls[j] : a->sdispls[j];
    case SHIM_ALLTOALLV_C:
        return recv ? a->rdispls_c[j] : a->sdispls_c[j];
    }
    return 0;
}

const char *shim_args_name(const shim_args *a)
{
    static const char *const names[] = {"MPI_Alltoall", "MPI_Alltoallv", "MPI_Alltoall_c",
                                        "MPI_Alltoallv_c"};
    return names[a->kind];
}

plan_native_kind shim_args_native_kind(const shim_args *a)
{
    if (a->sendbuf == MPI_IN_PLACE)
        return PLAN_NATIVE_INPLACE;
    return shim_alltoall_kind(a) ? PLAN_NATIVE_ALLTOALL : PLAN_NATIVE_ALLTOALLV;
}
