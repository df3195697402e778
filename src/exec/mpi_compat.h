/* The MPI-4 large-count functions exec/ and shim/ use, for MPI libraries that lack them (Open MPI
 * 4.1 implements MPI-3.1; configure defines HRELAY_HAVE_MPI_LARGE_COUNT where MPI_Alltoallv_c
 * exists). Each maps to the MPI-3 function: sizes and extents through the MPI_Count "_x"
 * queries; counts and positions that do not fit an int give MPI_ERR_COUNT (the shim passes every
 * call whose messages exceed INT_MAX bytes to the MPI library unchanged on such libraries, so
 * exec never sees one). Included by exec.h; nothing here is used where the library has the real
 * functions. */
#ifndef HRELAY_EXEC_MPI_COMPAT_H
#define HRELAY_EXEC_MPI_COMPAT_H

#include <limits.h>
#include <mpi.h>
#include <stdlib.h>

#include "config.h"

#ifndef HRELAY_HAVE_MPI_LARGE_COUNT

/* 1 if every value fits an int. */
static inline int compat_fits(MPI_Count a, MPI_Count b, MPI_Count c)
{
    return a >= INT_MIN && a <= INT_MAX && b >= INT_MIN && b <= INT_MAX && c >= INT_MIN &&
           c <= INT_MAX;
}

static inline int PMPI_Type_size_c(MPI_Datatype t, MPI_Count *size)
{
    return PMPI_Type_size_x(t, size);
}

static inline int PMPI_Type_get_extent_c(MPI_Datatype t, MPI_Count *lb, MPI_Count *extent)
{
    return PMPI_Type_get_extent_x(t, lb, extent);
}

static inline int PMPI_Type_get_true_extent_c(MPI_Datatype t, MPI_Count *lb, MPI_Count *extent)
{
    return PMPI_Type_get_true_extent_x(t, lb, extent);
}

static inline int PMPI_Type_get_envelope_c(MPI_Datatype t, MPI_Count *ni, MPI_Count *na,
                                           MPI_Count *nl, MPI_Count *nd, int *combiner)
{
    int i, a, d, rc = PMPI_Type_get_envelope(t, &i, &a, &d, combiner);
    *ni = i;
    *na = a;
    *nl = 0;
    *nd = d;
    return rc;
}

static inline int PMPI_Type_get_contents_c(MPI_Datatype t, MPI_Count ni, MPI_Count na,
                                           MPI_Count nl, MPI_Count nd, int ints[],
                                           MPI_Aint addrs[], MPI_Count larges[],
                                           MPI_Datatype types[])
{
    (void)nl;
    (void)larges;
    return PMPI_Type_get_contents(t, (int)ni, (int)na, (int)nd, ints, addrs, types);
}

static inline int PMPI_Pack_size_c(MPI_Count n, MPI_Datatype t, MPI_Comm comm, MPI_Count *size)
{
    int s = 0, rc = compat_fits(n, 0, 0) ? PMPI_Pack_size((int)n, t, comm, &s) : MPI_ERR_COUNT;
    *size = s;
    return rc;
}

static inline int PMPI_Pack_c(const void *in, MPI_Count n, MPI_Datatype t, void *out,
                              MPI_Count outsize, MPI_Count *pos, MPI_Comm comm)
{
    int p = (int)*pos, rc;
    if (!compat_fits(n, outsize, *pos))
        return MPI_ERR_COUNT;
    rc = PMPI_Pack(in, (int)n, t, out, (int)outsize, &p, comm);
    *pos = p;
    return rc;
}

static inline int PMPI_Unpack_c(const void *in, MPI_Count insize, MPI_Count *pos, void *out,
                                MPI_Count n, MPI_Datatype t, MPI_Comm comm)
{
    int p = (int)*pos, rc;
    if (!compat_fits(n, insize, *pos))
        return MPI_ERR_COUNT;
    rc = PMPI_Unpack(in, (int)insize, &p, out, (int)n, t, comm);
    *pos = p;
    return rc;
}

static inline int PMPI_Isend_c(const void *buf, MPI_Count n, MPI_Datatype t, int dest, int tag,
                               MPI_Comm comm, MPI_Request *req)
{
    return compat_fits(n, 0, 0) ? PMPI_Isend(buf, (int)n, t, dest, tag, comm, req)
                                : MPI_ERR_COUNT;
}

static inline int PMPI_Irecv_c(void *buf, MPI_Count n, MPI_Datatype t, int src, int tag,
                               MPI_Comm comm, MPI_Request *req)
{
    return compat_fits(n, 0, 0) ? PMPI_Irecv(buf, (int)n, t, src, tag, comm, req)
                                : MPI_ERR_COUNT;
}

/* The struct type of n blocks (lengths must fit an int). */
static inline int PMPI_Type_create_struct_c(MPI_Count n, const MPI_Count lens[],
                                            const MPI_Count disps[], const MPI_Datatype types[],
                                            MPI_Datatype *out)
{
    int *l = malloc((size_t)(n > 0 ? n : 1) * sizeof *l), rc = MPI_SUCCESS;
    MPI_Aint *d = malloc((size_t)(n > 0 ? n : 1) * sizeof *d);
    if (!l || !d || n > INT_MAX)
        rc = l && d ? MPI_ERR_COUNT : MPI_ERR_NO_MEM;
    for (MPI_Count i = 0; i < n && rc == MPI_SUCCESS; i++) {
        if (!compat_fits(lens[i], 0, 0))
            rc = MPI_ERR_COUNT;
        l[i] = (int)lens[i];
        d[i] = (MPI_Aint)disps[i];
    }
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_create_struct((int)n, l, d, (MPI_Datatype *)types, out);
    free(l);
    free(d);
    return rc;
}

#endif /* !HRELAY_HAVE_MPI_LARGE_COUNT */
#endif
