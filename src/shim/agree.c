/* The agreement of an intercepted call: one allreduce of SHIM_AGREE_WORDS words that tells
 * every rank whether all ranks' arguments are fine and which cached pattern all of them match,
 * and carries maxima: the slowest rank's time of the previous agreed call, and the highest and
 * lowest cache slot any rank prepared a run for. The layout of the words lives here only. */
#include "shim/agree.h"
#include "shim/state.h"

_Static_assert(SHIM_CACHE_MAX <= 61, "the agreement's AND word has 61 slot bits");

/* The words: their ranges in the order AND, MAX, SUM (agree.h). */
enum {
    W_FLAGS = 0,              /* AND: slot bits 0..60 and the three flags below */
    W_PREV_PS = SHIM_AGREE_AND, /* MAX */
    W_PREPARED_HI,            /* MAX: 1 + the slot prepared, 0 for none */
    W_PREPARED_LO             /* MAX: SHIM_CACHE_MAX - the slot prepared, 0 for none */
};
_Static_assert(W_PREPARED_LO < SHIM_AGREE_AND + SHIM_AGREE_MAX, "MAX words fit their range");

/* Bits of W_FLAGS above the slots. */
enum { BIT_GATHER = 61, BIT_TIMED = 62, BIT_OK = 63 };

#define SLOT_BITS (((uint64_t)1 << SHIM_CACHE_MAX) - 1)

void shim_agree_pack(const shim_agreement *a, uint64_t w[SHIM_AGREE_WORDS])
{
    w[W_FLAGS] = (a->slots & SLOT_BITS) | (uint64_t)(a->ok != 0) << BIT_OK |
                 (uint64_t)(a->timed != 0) << BIT_TIMED |
                 (uint64_t)(a->can_gather != 0) << BIT_GATHER;
    w[W_PREV_PS] = a->timed ? a->prev_ps : 0;
    w[W_PREPARED_HI] = a->prepared >= 0 ? 1 + (uint64_t)a->prepared : 0;
    w[W_PREPARED_LO] = a->prepared >= 0 ? SHIM_CACHE_MAX - (uint64_t)a->prepared : 0;
}

void shim_agree_unpack(const uint64_t w[SHIM_AGREE_WORDS], shim_agreement *a)
{
    a->slots = w[W_FLAGS] & SLOT_BITS;
    a->ok = (int)(w[W_FLAGS] >> BIT_OK & 1);
    a->timed = (int)(w[W_FLAGS] >> BIT_TIMED & 1);
    a->can_gather = (int)(w[W_FLAGS] >> BIT_GATHER & 1);
    a->prev_ps = w[W_PREV_PS];
    /* the highest slot prepared is hi - 1, the lowest SHIM_CACHE_MAX - lo: equal if one */
    uint64_t hi = w[W_PREPARED_HI], lo = w[W_PREPARED_LO];
    a->prepared = hi >= 1 && hi - 1 == SHIM_CACHE_MAX - lo ? (int)(hi - 1) : -1;
}

void shim_agree_combine(const uint64_t *in, uint64_t *inout, int n)
{
    for (int e = 0; e < n; e++, in += SHIM_AGREE_WORDS, inout += SHIM_AGREE_WORDS) {
        int k = 0;
        for (; k < SHIM_AGREE_AND; k++)
            inout[k] &= in[k];
        for (; k < SHIM_AGREE_AND + SHIM_AGREE_MAX; k++)
            if (in[k] > inout[k])
                inout[k] = in[k];
        for (; k < SHIM_AGREE_WORDS; k++)
            inout[k] += in[k];
    }
}

/* The reduction over elements of SHIM_AGREE_WORDS words. */
static void agree_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    shim_agree_combine(in, inout, *len);
}

int shim_agree_op_create(MPI_Op *op, MPI_Datatype *type)
{
    *type = MPI_DATATYPE_NULL;
    int rc = PMPI_Type_contiguous(SHIM_AGREE_WORDS, MPI_UINT64_T, type);
    if (rc == MPI_SUCCESS && (rc = PMPI_Type_commit(type)) == MPI_SUCCESS &&
        (rc = PMPI_Op_create(agree_fn, 1, op)) == MPI_SUCCESS)
        return MPI_SUCCESS;
    if (*type != MPI_DATATYPE_NULL)
        PMPI_Type_free(type);
    return rc;
}

void shim_agree_op_free(MPI_Op *op, MPI_Datatype *type)
{
    PMPI_Op_free(op);
    PMPI_Type_free(type);
}

int shim_agree(shim_agreement *a, MPI_Comm comm)
{
    uint64_t w[SHIM_AGREE_WORDS];
    shim_agree_pack(a, w);
    int rc = PMPI_Allreduce(MPI_IN_PLACE, w, 1, shim_g.agree_type, shim_g.agree_op, comm);
    if (rc == MPI_SUCCESS)
        shim_agree_unpack(w, a);
    return rc;
}
