/* The intercepted entry points MPI_Alltoall, MPI_Alltoallv, MPI_Alltoall_c, MPI_Alltoallv_c.
 * Each captures its arguments and the address it was called from (the call site) in a
 * shim_args, whose accessors give every variant the same large-count view, and hands it to
 * shim_alltoall_any. */
#include <stdint.h>

#include "shim/shim.h"

/* Calls the matching PMPI function with the original arguments (see shim.h). */
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

/* Element count of one message (see shim.h). */
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

/* Displacement in elements of one message (see shim.h). */
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

/* The MPI name of the call (see shim.h). */
const char *shim_args_name(const shim_args *a)
{
    static const char *const names[] = {"MPI_Alltoall", "MPI_Alltoallv", "MPI_Alltoall_c",
                                        "MPI_Alltoallv_c"};
    return names[a->kind];
}

/* MPI_Alltoall, intercepted. */
SHIM_EXPORT int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    shim_args a = {.kind = SHIM_ALLTOALL, .sendbuf = sendbuf, .recvbuf = recvbuf,
                   .stype = sendtype, .rtype = recvtype, .scount = sendcount,
                   .rcount = recvcount, .comm = comm,
                   .caller = (uintptr_t)__builtin_return_address(0)};
    return shim_alltoall_any(&a);
}

/* MPI_Alltoallv, intercepted. */
SHIM_EXPORT int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                              MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                              const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    shim_args a = {.kind = SHIM_ALLTOALLV, .sendbuf = sendbuf, .recvbuf = recvbuf,
                   .stype = sendtype, .rtype = recvtype, .scounts = sendcounts,
                   .sdispls = sdispls, .rcounts = recvcounts, .rdispls = rdispls, .comm = comm,
                   .caller = (uintptr_t)__builtin_return_address(0)};
    return shim_alltoall_any(&a);
}

#ifdef HRELAY_HAVE_MPI_LARGE_COUNT
/* MPI_Alltoall_c (large counts), intercepted. */
SHIM_EXPORT int MPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm)
{
    shim_args a = {.kind = SHIM_ALLTOALL_C, .sendbuf = sendbuf, .recvbuf = recvbuf,
                   .stype = sendtype, .rtype = recvtype, .scount = sendcount,
                   .rcount = recvcount, .comm = comm,
                   .caller = (uintptr_t)__builtin_return_address(0)};
    return shim_alltoall_any(&a);
}

/* MPI_Alltoallv_c (large counts), intercepted. */
SHIM_EXPORT int MPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                                const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                MPI_Datatype recvtype, MPI_Comm comm)
{
    shim_args a = {.kind = SHIM_ALLTOALLV_C, .sendbuf = sendbuf, .recvbuf = recvbuf,
                   .stype = sendtype, .rtype = recvtype, .scounts_c = sendcounts,
                   .sdispls_c = sdispls, .rcounts_c = recvcounts, .rdispls_c = rdispls,
                   .comm = comm,
                   .caller = (uintptr_t)__builtin_return_address(0)};
    return shim_alltoall_any(&a);
}
#endif
