/* A call's description: every rank checks its arguments as the MPI library does (validate.c)
 * and turns them into exec's form, counts and displacements in bytes, before anything is
 * communicated. */
#include <limits.h>
#include <string.h>

#include "shim/describe.h"
#include "shim/state.h"
#include "shim/validate.h"

/* The MPI error class of an error code. */
static int error_class(int code)
{
    int cls = MPI_ERR_OTHER;
    return PMPI_Error_class(code, &cls) == MPI_SUCCESS ? cls : MPI_ERR_OTHER;
}

uint64_t shim_local_bytes(const shim_args *a, int p)
{
    int inplace = a->sendbuf == MPI_IN_PLACE;
    MPI_Count size = 0;
    uint64_t total = 0;
    if (PMPI_Type_size_c(inplace ? a->rtype : a->stype, &size) != MPI_SUCCESS || size <= 0)
        return 0;
    for (int j = 0; j < p; j++) {
        MPI_Count c = shim_args_count(a, inplace, j);
        if (c > 0)
            total += (uint64_t)c * (uint64_t)size;
    }
    return total;
}

/* The datatype of one side of a (recv: the receive side) into *t, checked as the MPI library
 * checks it; memo (a record's memo of that side, or NULL) answers for a common predefined type
 * described before and keeps one. Returns MPI_SUCCESS or the MPI error class. */
static int side_type(const shim_args *a, int recv, exec_type *memo, exec_type *t)
{
    MPI_Datatype type = recv ? a->rtype : a->stype;
    int rc;
    if (memo && memo->size > 0 && memo->type == type) {
        *t = *memo; /* nothing to ask */
        return MPI_SUCCESS;
    }
    if ((rc = shim_check_type(type, shim_g.self)) != MPI_SUCCESS)
        return rc;
    if ((rc = exec_type_init(t, type)) != MPI_SUCCESS)
        return error_class(rc);
    if (memo && shim_type_common(type))
        *memo = *t;
    return MPI_SUCCESS;
}

/* Message j of one side of a with type t, checked as the MPI library checks it: its count into
 * *count and its bytes into *bytes. Returns MPI_SUCCESS or the MPI error class. */
static int message_of(const shim_args *a, int recv, int j, const exec_type *t, MPI_Count *count,
                      MPI_Count *bytes)
{
    *count = shim_args_count(a, recv, j);
    int rc = shim_check_message(a, recv, j, *count, t);
    if (rc != MPI_SUCCESS)
        return rc;
    return __builtin_mul_overflow(*count, t->size, bytes) ? MPI_ERR_COUNT : MPI_SUCCESS;
}

uint64_t shim_args_load(const shim_args *a, int p, int rank, int half, const int32_t *node,
                        uint64_t *off)
{
    int inplace = a->sendbuf == MPI_IN_PLACE;
    uint64_t bytes[2] = {0, 0}, away = 0; /* sent, received; both to or from other nodes */
    if (off)
        *off = UINT64_MAX;
    if (!inplace && shim_check_alias(a) != MPI_SUCCESS)
        return UINT64_MAX;
    for (int recv = 0; recv < 2; recv++) {
        int side = recv || inplace; /* in place, both from the receive arguments */
        exec_type t;
        if (side_type(a, side, NULL, &t) != MPI_SUCCESS)
            return UINT64_MAX;
        for (int j = 0; j < p; j++) {
            MPI_Count c, b;
            if (message_of(a, side, j, &t, &c, &b) != MPI_SUCCESS ||
                __builtin_add_overflow(bytes[recv], j == rank ? 0 : (uint64_t)b, &bytes[recv]))
                return UINT64_MAX;
            if ((!node || node[j] != node[rank]) && j != rank &&
                __builtin_add_overflow(away, (uint64_t)b, &away))
                away = UINT64_MAX;
        }
    }
    uint64_t big = bytes[0] > bytes[1] ? bytes[0] : bytes[1];
    uint64_t small = bytes[0] > bytes[1] ? bytes[1] : bytes[0];
    uint64_t load = !half ? big : big + small < big ? UINT64_MAX : big + small;
    if (off && load != UINT64_MAX)
        *off = away;
    return load;
}

/* Fills one side of x from the arguments into the record's arrays, checking them as the MPI
 * library does (validate.c). Returns an MPI error class (MPI_ERR_TYPE, MPI_ERR_COUNT, ...),
 * SHIM_STATUS_NATIVE (a byte displacement overflows) or MPI_SUCCESS. */
static int describe_side(const shim_args *a, int recv, shim_comm *rec, exec_side *s,
                         MPI_Count *count, MPI_Aint *displ)
{
    int rc = side_type(a, recv, &rec->type_memo[recv], &s->type);
    if (rc != MPI_SUCCESS)
        return rc;
    for (int j = 0; j < rec->p; j++) {
        MPI_Count total;
        if ((rc = message_of(a, recv, j, &s->type, &count[j], &total)) != MPI_SUCCESS)
            return rc;
#ifndef HRELAY_HAVE_MPI_LARGE_COUNT
        if (total > INT_MAX) /* exec's int-count MPI-3 calls cannot move it (mpi_compat.h) */
            return SHIM_STATUS_NATIVE;
#endif
        if (__builtin_mul_overflow(shim_args_displ(a, recv, j), (MPI_Aint)s->type.extent,
                                   &displ[j]))
            return SHIM_STATUS_NATIVE;
    }
    s->base = recv ? a->recvbuf : (char *)a->sendbuf;
    s->count = count;
    s->displ = displ;
    return MPI_SUCCESS;
}

int shim_describe(const shim_args *a, shim_comm *rec, exec_exchange *x, uint64_t *row)
{
    int p = rec->p, inplace = a->sendbuf == MPI_IN_PLACE, rc;
    memset(x, 0, sizeof *x);
    x->p = p;
    x->rank = rec->rank;
    if (!inplace &&
        ((rc = describe_side(a, 0, rec, &x->send, rec->scount, rec->sdispl)) != MPI_SUCCESS ||
         (rc = shim_check_alias(a)) != MPI_SUCCESS))
        return rc;
    if ((rc = describe_side(a, 1, rec, &x->recv, rec->rcount, rec->rdispl)) != MPI_SUCCESS)
        return rc;
    const exec_side *s = inplace ? &x->recv : &x->send;
    for (int j = 0; j < p; j++)
        row[j] = (uint64_t)s->count[j] * (uint64_t)s->type.size;
    return MPI_SUCCESS;
}

void shim_describe_col(const exec_exchange *x, uint64_t *col)
{
    for (int i = 0; i < x->p; i++)
        col[i] = (uint64_t)x->recv.count[i] * (uint64_t)x->recv.type.size;
}

uint64_t shim_type_facts(const exec_exchange *x, int inplace)
{
    const exec_type *s = inplace ? &x->recv.type : &x->send.type, *r = &x->recv.type;
    return 2 * plan_gcd((uint64_t)s->size, (uint64_t)r->size) + (uint64_t)(s->dense && r->dense);
}
