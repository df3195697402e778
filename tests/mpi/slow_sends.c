/* libslow_sends.so: a test's reproducibly slow plans (tests/mpi/comms.sh). Preloaded ahead of
 * libhrelay.so, it delays every PMPI_Isend_c by SLOW_SENDS_DELAY_NS before passing it on: the
 * sends hrelay's plans post (src/exec/post.c) take that much longer, while MPI's own
 * MPI_Alltoallv and hrelay's agreements, which MPICH runs on its internal point-to-point
 * functions, do not. So a plan loses to MPI's algorithm by a wide margin whatever the machine. */
#include <dlfcn.h>
#include <mpi.h>
#include <time.h>

/* 3 ms per send: a plan of one step on 2 ranks at 1 MiB per rank takes about 20 x MPI's call. */
enum { SLOW_SENDS_DELAY_NS = 3000000 };

typedef int (*isend_c_fn)(const void *, MPI_Count, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);

/* PMPI_Isend_c, SLOW_SENDS_DELAY_NS later (MPI_ERR_INTERN where the next definition cannot be
 * found). */
__attribute__((visibility("default"))) int PMPI_Isend_c(const void *buf, MPI_Count count,
                                                        MPI_Datatype type, int dest, int tag,
                                                        MPI_Comm comm, MPI_Request *req)
{
    isend_c_fn next = (isend_c_fn)(void (*)(void))dlsym(RTLD_NEXT, "PMPI_Isend_c");
    if (!next)
        return MPI_ERR_INTERN;
    struct timespec d = {0, SLOW_SENDS_DELAY_NS};
    while (nanosleep(&d, &d) != 0) {
    }
    return next(buf, count, type, dest, tag, comm, req);
}
