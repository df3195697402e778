/* The intercepted entry points MPI_Alltoall, MPI_Alltoallv, MPI_Alltoall_c, MPI_Alltoallv_c.
 * The common case of a call left unchecked (quiet.h) calls the PMPI function at once; every
 * other call captures its arguments and the address it was called from (the call site) in a
 * shim_args and hands it to shim_alltoall_any (exchange.c). */
#include <stdint.h>

#include "config.h" /* HRELAY_HAVE_MPI_LARGE_COUNT */

#include "shim/args.h"
#include "shim/call.h"
#include "shim/export.h"
#include "shim/quiet.h"

/* MPI_Alltoall, intercepted. */
SHIM_EXPORT int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    uintptr_t caller = (uintptr_t)__builtin_return_address(0);
    shim_quiet q;
    shim_pair pair = SHIM_PAIR_OF(sendbuf, sendcount, sendtype, recvcount, recvtype);
    if (shim_quiet_begin(comm, caller, pair, &q)) {
        int rc = PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
        return shim_quiet_end(&q, rc);
    }
    shim_args a = {.kind = SHIM_ALLTOALL, .sendbuf = sendbuf, .recvbuf = recvbuf,
                   .stype = sendtype, .rtype = recvtype, .scount = sendcount,
                   .rcount = recvcount, .comm = comm,
                   .caller = caller};
    return shim_alltoall_any(&a);
}

/* MPI_Alltoallv, intercepted. */
SHIM_EXPORT int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                              MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                              const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    uintptr_t caller = (uintptr_t)__builtin_return_address(0);
    shim_quiet q;
    if (shim_quiet_begin(comm, caller, (shim_pair){.count = -1}, &q)) {
        int rc = PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                rdispls, recvtype, comm);
        return shim_quiet_end(&q, rc);
    }
    shim_args a = {.kind = SHIM_ALLTOALLV, .sendbuf = sendbuf, .recvbuf = recvbuf,
                   .stype = sendtype, .rtype = recvtype, .scounts = sendcounts,
                   .sdispls = sdispls, .rcounts = recvcounts, .rdispls = rdispls, .comm = comm,
                   .caller = caller};
    return shim_alltoall_any(&a);
}

#ifdef HRELAY_HAVE_MPI_LARGE_COUNT
/* MPI_Alltoall_c (large counts), intercepted. */
SHIM_EXPORT int MPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm)
{
    uintptr_t caller = (uintptr_t)__builtin_return_address(0);
    shim_quiet q;
    shim_pair pair = SHIM_PAIR_OF(sendbuf, sendcount, sendtype, recvcount, recvtype);
    if (shim_quiet_begin(comm, caller, pair, &q)) {
        int rc = PMPI_Alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
        return shim_quiet_end(&q, rc);
    }
    shim_args a = {.kind = SHIM_ALLTOALL_C, .sendbuf = sendbuf, .recvbuf = recvbuf,
                   .stype = sendtype, .rtype = recvtype, .scount = sendcount,
                   .rcount = recvcount, .comm = comm,
                   .caller = caller};
    return shim_alltoall_any(&a);
}

/* MPI_Alltoallv_c (large counts), intercepted. */
SHIM_EXPORT int MPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                                const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                MPI_Datatype recvtype, MPI_Comm comm)
{
    uintptr_t caller = (uintptr_t)__builtin_return_address(0);
    shim_quiet q;
    if (shim_quiet_begin(comm, caller, (shim_pair){.count = -1}, &q)) {
        int rc = PMPI_Alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                  rdispls, recvtype, comm);
        return shim_quiet_end(&q, rc);
    }
    shim_args a = {.kind = SHIM_ALLTOALLV_C, .sendbuf = sendbuf, .recvbuf = recvbuf,
                   .stype = sendtype, .rtype = recvtype, .scounts_c = sendcounts,
                   .sdispls_c = sdispls, .rcounts_c = recvcounts, .rdispls_c = rdispls,
                   .comm = comm,
                   .caller = caller};
    return shim_alltoall_any(&a);
}
#endif
