/* Datatype facts exec needs: size, extent, where the data starts, and whether a run of elements
 * is one contiguous byte range in type-signature order ("dense"). */
#include "exec/exec.h"

enum { DENSE_MAX_DEPTH = 64 };

/* Frees a datatype handle returned by MPI_Type_get_contents if it is a derived type (named
 * types must not be freed). */
static void free_returned_type(MPI_Datatype t)
{
    MPI_Count ni, na, nl, nd;
    int combiner;
    if (PMPI_Type_get_envelope_c(t, &ni, &na, &nl, &nd, &combiner) == MPI_SUCCESS &&
        combiner != MPI_COMBINER_NAMED)
        PMPI_Type_free(&t);
}

/* Sets *dense to 1 if one element of type is one contiguous run of size bytes in signature
 * order and size == extent == true extent, so that n elements form n * size contiguous bytes.
 * Conservative: only named types and dup / contiguous / resized chains of such types qualify.
 * Returns MPI_SUCCESS or the error of a failing query. */
static int dense_check(MPI_Datatype type, int depth, int *dense)
{
    MPI_Count size, lb, extent, tlb, textent, ni, na, nl, nd;
    int combiner, rc;

    *dense = 0;
    if (depth > DENSE_MAX_DEPTH)
        return MPI_SUCCESS;
    if ((rc = PMPI_Type_size_c(type, &size)) != MPI_SUCCESS ||
        (rc = PMPI_Type_get_extent_c(type, &lb, &extent)) != MPI_SUCCESS ||
        (rc = PMPI_Type_get_true_extent_c(type, &tlb, &textent)) != MPI_SUCCESS ||
        (rc = PMPI_Type_get_envelope_c(type, &ni, &na, &nl, &nd, &combiner)) != MPI_SUCCESS)
        return rc;
    if (size != extent || size != textent)
        return MPI_SUCCESS;
    if (combiner == MPI_COMBINER_NAMED) {
        *dense = 1;
        return MPI_SUCCESS;
    }
    if (combiner != MPI_COMBINER_DUP && combiner != MPI_COMBINER_CONTIGUOUS &&
        combiner != MPI_COMBINER_RESIZED)
        return MPI_SUCCESS;
    if (nd != 1 || ni > 4 || na > 4 || nl > 4)
        return MPI_SUCCESS;

    /* dup, contiguous and resized have one old type; resized-to-size keeps the old type's
     * element layout and with extent == size its elements abut, as for contiguous. */
    int ints[4];
    MPI_Aint addrs[4];
    MPI_Count larges[4];
    MPI_Datatype old;
    rc = PMPI_Type_get_contents_c(type, ni, na, nl, nd, ints, addrs, larges, &old);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = dense_check(old, depth + 1, dense);
    free_returned_type(old);
    return rc;
}

/* Fills t (see exec.h). */
int exec_type_init(exec_type *t, MPI_Datatype type)
{
    MPI_Count lb, textent;
    int rc;

    t->type = type;
    t->dense = 0;
    if ((rc = PMPI_Type_size_c(type, &t->size)) != MPI_SUCCESS ||
        (rc = PMPI_Type_get_extent_c(type, &lb, &t->extent)) != MPI_SUCCESS ||
        (rc = PMPI_Type_get_true_extent_c(type, &t->true_lb, &textent)) != MPI_SUCCESS)
        return rc;
    if (t->size == 0) {
        t->dense = 1; /* no bytes: nothing ever moves */
        return MPI_SUCCESS;
    }
    return dense_check(type, 0, &t->dense);
}
