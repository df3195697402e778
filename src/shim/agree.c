/* The agreement of an intercepted call: one allreduce of four words that tells every rank
 * whether all ranks' arguments are fine and which cached pattern all of them match (word 0,
 * bitwise AND), and carries maxima: the slowest rank's time of the previous agreed call, and
 * the highest and lowest cache slot any rank prepared a run for (words 1 to 3). */
#include "shim/shim.h"

/* The reduction over elements of SHIM_AGREE_WORDS words: word 0 by AND, the others by
 * maximum. */
static void agree_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    const uint64_t *a = in;
    uint64_t *b = inout;
    (void)type;
    for (int i = 0; i < *len; i++, a += SHIM_AGREE_WORDS, b += SHIM_AGREE_WORDS) {
        b[0] &= a[0];
        for (int k = 1; k < SHIM_AGREE_WORDS; k++)
            if (a[k] > b[k])
                b[k] = a[k];
    }
}

int shim_agree_op_create(MPI_Op *op, MPI_Datatype *pair)
{
    *pair = MPI_DATATYPE_NULL;
    int rc = PMPI_Type_contiguous(SHIM_AGREE_WORDS, MPI_UINT64_T, pair);
    if (rc == MPI_SUCCESS && (rc = PMPI_Type_commit(pair)) == MPI_SUCCESS &&
        (rc = PMPI_Op_create(agree_fn, 1, op)) == MPI_SUCCESS)
        return MPI_SUCCESS;
    if (*pair != MPI_DATATYPE_NULL)
        PMPI_Type_free(pair);
    return rc;
}

void shim_agree_op_free(MPI_Op *op, MPI_Datatype *pair)
{
    PMPI_Op_free(op);
    PMPI_Type_free(pair);
}

int shim_agree(uint64_t w[SHIM_AGREE_WORDS], MPI_Comm comm)
{
    return PMPI_Allreduce(MPI_IN_PLACE, w, 1, shim_g.agree_pair, shim_g.agree_op, comm);
}
