/* Erroneous calls: the argument checks the MPI library makes, repeated by hrelay on each rank
 * before anything is communicated, and the delivery of an error through the communicator's
 * error handler.
 *
 * The checks follow MPICH's own parameter checking of MPI_Alltoall(v)(_c) (src/binding/c/coll/
 * in MPICH 4), in its order: send type (valid, committed), then per peer the send count (not
 * negative) and a NULL send buffer (for MPI_Alltoallv only where the displacement is 0, as
 * MPICH: a NULL base with other displacements may address absolute memory), then aliasing of
 * the send and receive buffers, then the receive type, then per peer MPI_IN_PLACE as receive
 * buffer, the receive count and a NULL receive buffer. Each returns the MPI error class MPICH
 * returns for that argument on the rank that passed it (tests/mpi/errors.sh compares both). */
#include <stdio.h>

#include "shim/validate.h"

/* Whether t is a common predefined datatype (see validate.h). */
int shim_type_common(MPI_Datatype t)
{
    return t == MPI_BYTE || t == MPI_CHAR || t == MPI_INT || t == MPI_DOUBLE || t == MPI_FLOAT ||
           t == MPI_LONG || t == MPI_UNSIGNED || t == MPI_LONG_LONG || t == MPI_UNSIGNED_LONG ||
           t == MPI_INT64_T || t == MPI_UINT64_T || t == MPI_INT32_T || t == MPI_UINT32_T ||
           t == MPI_SHORT || t == MPI_UNSIGNED_CHAR || t == MPI_INTEGER ||
           t == MPI_DOUBLE_PRECISION || t == MPI_REAL;
}

/* MPI_SUCCESS if type is a valid, committed datatype, else MPI_ERR_TYPE (see validate.h). */
int shim_check_type(MPI_Datatype type, MPI_Comm priv)
{
    if (type == MPI_DATATYPE_NULL)
        return MPI_ERR_TYPE;
    if (shim_type_common(type))
        return MPI_SUCCESS;
    /* A call that runs the library's datatype checks (handle kind, validity, commit) and does
     * nothing else; priv returns errors. MPICH: MPI_Pack_size of one element (its MPI_Send
     * skips the commit check for count 0); Open MPI: an empty send to MPI_PROC_NULL (its
     * MPI_Pack_size skips the commit check). Any other failure (a size beyond the count type)
     * is not a type error. */
    int cls = MPI_SUCCESS;
#ifdef OPEN_MPI
    int rc = PMPI_Send(NULL, 0, type, MPI_PROC_NULL, 0, priv);
#else
    MPI_Count size;
    int rc = PMPI_Pack_size_c(1, type, priv, &size);
#endif
    if (rc != MPI_SUCCESS && PMPI_Error_class(rc, &cls) != MPI_SUCCESS)
        cls = MPI_ERR_TYPE;
    return cls == MPI_ERR_TYPE ? MPI_ERR_TYPE : MPI_SUCCESS;
}

/* The checks of one message's count and buffer (see validate.h). */
int shim_check_message(const shim_args *a, int recv, int j, MPI_Count count, const exec_type *t)
{
    const void *buf = recv ? a->recvbuf : a->sendbuf;
    int v = a->kind == SHIM_ALLTOALLV || a->kind == SHIM_ALLTOALLV_C;
    if (recv && buf == MPI_IN_PLACE && count > 0)
#ifdef OPEN_MPI
        return MPI_ERR_ARG; /* Open MPI's class for it */
#else
        return MPI_ERR_BUFFER;
#endif
    if (count < 0)
        return MPI_ERR_COUNT;
    if (count > 0 && buf == NULL && t->true_lb == 0 && t->size > 0 &&
        (!v || shim_args_displ(a, recv, j) == 0))
        return MPI_ERR_BUFFER;
    return MPI_SUCCESS;
}

/* MPI_ERR_BUFFER for the send and receive buffer aliasing MPICH rejects (see validate.h). */
int shim_check_alias(const shim_args *a)
{
    if (a->sendbuf == MPI_IN_PLACE || a->sendbuf != a->recvbuf || a->stype != a->rtype)
        return MPI_SUCCESS;
    switch (a->kind) {
    case SHIM_ALLTOALL:
    case SHIM_ALLTOALL_C:
        return a->scount == a->rcount && a->scount != 0 ? MPI_ERR_BUFFER : MPI_SUCCESS;
    case SHIM_ALLTOALLV:
        return a->scounts == a->rcounts ? MPI_ERR_BUFFER : MPI_SUCCESS;
    case SHIM_ALLTOALLV_C:
        return a->scounts_c == a->rcounts_c ? MPI_ERR_BUFFER : MPI_SUCCESS;
    }
    return MPI_SUCCESS;
}

/* 1 if comm's error handler aborts the job (MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT). */
static int handler_is_fatal(MPI_Comm comm)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    if (PMPI_Comm_get_errhandler(comm, &eh) != MPI_SUCCESS)
        return 0;
    int fatal = eh == MPI_ERRORS_ARE_FATAL;
#ifdef MPI_ERRORS_ABORT
    fatal |= eh == MPI_ERRORS_ABORT;
#endif
    if (eh != MPI_ERRHANDLER_NULL)
        PMPI_Errhandler_free(&eh);
    return fatal;
}

/* Raises code through comm's error handler (see validate.h). */
int shim_raise(const shim_args *a, int code)
{
    if (handler_is_fatal(a->comm)) {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0, rank = -1, cls = code;
        if (PMPI_Error_string(code, text, &len) != MPI_SUCCESS)
            len = 0;
        text[len] = '\0';
        PMPI_Error_class(code, &cls);
        PMPI_Comm_rank(a->comm, &rank);
        fprintf(stderr,
                "hrelay: error in %s on rank %d of the communicator: %s (error class %d); the "
                "communicator's error handler aborts the job\n",
                shim_args_name(a), rank, len ? text : "unknown error", cls);
        fflush(stderr);
    }
    PMPI_Comm_call_errhandler(a->comm, code);
    return code;
}

/* A call some rank's receive region truncates (see validate.h). */
int shim_truncated_call(const shim_args *a, int here)
{
#ifdef OPEN_MPI
    /* Open MPI's own MPI_Alltoall leaves the senders waiting forever: every rank returns */
    (void)here;
    return shim_raise(a, MPI_ERR_TRUNCATE);
#else
    if (here && handler_is_fatal(a->comm))
        return shim_raise(a, MPI_ERR_TRUNCATE);
    return shim_args_pmpi(a);
#endif
}
