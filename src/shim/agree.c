/* The agreement of an intercepted call: one allreduce that tells every rank whether all ranks'
 * arguments are fine, which cached pattern all of them match and whether the pattern repeats,
 * and carries sums and maxima: the slowest rank's times of the previous agreed call, the
 * highest and lowest cache slot and call site, and the summary of the call's pattern (the
 * bytes and messages of the busiest ranks, the native model's blocks). The layout of the words
 * lives here only. */
#include <string.h>

#include "shim/agree.h"
#include "shim/state.h"

_Static_assert(SHIM_CACHE_MAX <= 64, "the agreement's slot word has 64 bits");

/* The words: their ranges in the order AND, SUM, MAX (agree.h), then the blocks (MAX). */
enum {
    W_WORDS = 0,            /* AND: the element's layout (layout(); the same on every rank) */
    W_SLOTS,                /* AND: slot bits */
    W_FLAGS,                /* AND: the flags below */
    W_SUM = SHIM_AGREE_AND, /* SUM: the summary's sum words */
    W_PREV_EXEC = W_SUM + SHIM_AGREE_SUM, /* MAX */
    W_PREV_WHOLE,
    W_PREV_SETUP,
    W_PREPARED_HI, /* 1 + the slot prepared, 0 for none */
    W_PREPARED_LO, /* SHIM_CACHE_MAX - the slot prepared, 0 for none */
    W_SITE_HI,     /* 1 + the site, 0 for none */
    W_SITE_LO,     /* SITE_LIMIT - the site, 0 for none */
    W_UNCHECKED,
    W_SUMMARY_MAX, /* the summary's max words */
    W_BLOCKS = W_SUMMARY_MAX + PLAN_SUMMARY_MAX
};
_Static_assert((int)W_BLOCKS == (int)SHIM_AGREE_FIXED, "the fixed words fill their ranges");

/* Bits of W_FLAGS. */
enum { BIT_OK, BIT_TIMED, BIT_GATHER, BIT_REPEAT, BIT_HISTORY, BIT_AGAIN, BIT_LOST };

/* Site indices above this are not agreed (an index and its complement both fit a word). */
#define SITE_LIMIT ((uint64_t)1 << 40)

int shim_agree_words(size_t nblocks)
{
    return SHIM_AGREE_FIXED + (int)nblocks;
}

/* The first word of an element of `words` words whose first nand words (this one included)
 * are combined by AND, the next nsum by sum and the rest by maximum. */
static uint64_t layout(int words, int nand, int nsum)
{
    return (uint64_t)(uint32_t)words | (uint64_t)(uint16_t)nand << 32 |
           (uint64_t)(uint16_t)nsum << 48;
}

/* The pair of MAX words that agree on an index i (-1 for none) below limit. */
static void put_index(uint64_t *w, int i, uint64_t limit)
{
    w[0] = i >= 0 ? 1 + (uint64_t)i : 0;
    w[1] = i >= 0 ? limit - (uint64_t)i : 0;
}

/* The index both words of a combined pair say, or -1 if the ranks' differed (or none). */
static int get_index(const uint64_t *w, uint64_t limit)
{
    uint64_t hi = w[0], lo = w[1];
    return hi >= 1 && lo >= 1 && hi - 1 == limit - lo ? (int)(hi - 1) : -1;
}

void shim_agree_pack(const shim_agreement *a, uint64_t *w)
{
    const plan_summary *s = &a->summary;
    w[W_WORDS] = layout(shim_agree_words(s->nblocks), SHIM_AGREE_AND, SHIM_AGREE_SUM);
    w[W_SLOTS] = a->slots;
    w[W_FLAGS] = (uint64_t)(a->ok != 0) << BIT_OK | (uint64_t)(a->timed != 0) << BIT_TIMED |
                 (uint64_t)(a->can_gather != 0) << BIT_GATHER |
                 (uint64_t)(a->repeat != 0) << BIT_REPEAT |
                 (uint64_t)(a->history != 0) << BIT_HISTORY |
                 (uint64_t)(a->again != 0) << BIT_AGAIN | (uint64_t)(a->lost != 0) << BIT_LOST;
    memcpy(w + W_SUM, s->sum, sizeof s->sum);
    w[W_PREV_EXEC] = a->timed ? a->prev_exec_ps : 0;
    w[W_PREV_WHOLE] = a->timed ? a->prev_whole_ps : 0;
    w[W_PREV_SETUP] = a->timed ? a->prev_setup_ps : 0;
    put_index(w + W_PREPARED_HI, a->prepared, SHIM_CACHE_MAX);
    put_index(w + W_SITE_HI, (uint64_t)a->site < SITE_LIMIT ? a->site : -1, SITE_LIMIT);
    w[W_UNCHECKED] = a->unchecked;
    memcpy(w + W_SUMMARY_MAX, s->max, sizeof s->max);
    if (s->nblocks)
        memcpy(w + W_BLOCKS, s->block, s->nblocks * sizeof *w);
}

void shim_agree_unpack(const uint64_t *w, shim_agreement *a)
{
    plan_summary *s = &a->summary;
    a->slots = w[W_SLOTS];
    a->ok = (int)(w[W_FLAGS] >> BIT_OK & 1);
    a->timed = (int)(w[W_FLAGS] >> BIT_TIMED & 1);
    a->can_gather = (int)(w[W_FLAGS] >> BIT_GATHER & 1);
    a->repeat = (int)(w[W_FLAGS] >> BIT_REPEAT & 1);
    a->history = (int)(w[W_FLAGS] >> BIT_HISTORY & 1);
    a->again = (int)(w[W_FLAGS] >> BIT_AGAIN & 1);
    a->lost = (int)(w[W_FLAGS] >> BIT_LOST & 1);
    memcpy(s->sum, w + W_SUM, sizeof s->sum);
    a->prev_exec_ps = w[W_PREV_EXEC];
    a->prev_whole_ps = w[W_PREV_WHOLE];
    a->prev_setup_ps = w[W_PREV_SETUP];
    a->prepared = get_index(w + W_PREPARED_HI, SHIM_CACHE_MAX);
    a->site = get_index(w + W_SITE_HI, SITE_LIMIT);
    a->unchecked = w[W_UNCHECKED];
    memcpy(s->max, w + W_SUMMARY_MAX, sizeof s->max);
    if (s->nblocks)
        memcpy(s->block, w + W_BLOCKS, s->nblocks * sizeof *w);
}

void shim_agree_combine(const uint64_t *in, uint64_t *inout, int n)
{
    for (int e = 0; e < n; e++) {
        uint64_t h = in[W_WORDS];
        int words = (int)(uint32_t)h, nand = (int)(h >> 32 & 0xffff), nsum = (int)(h >> 48);
        int k = 0;
        for (; k < nand; k++)
            inout[k] &= in[k];
        for (; k < nand + nsum; k++)
            inout[k] += in[k];
        for (; k < words; k++)
            if (in[k] > inout[k])
                inout[k] = in[k];
        in += words;
        inout += words;
    }
}

/* The reduction over elements whose layout is in their first word. */
static void agree_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    shim_agree_combine(in, inout, *len);
}

int shim_agree_op_create(MPI_Op *op)
{
    return PMPI_Op_create(agree_fn, 1, op);
}

int shim_agree_type_create(int words, MPI_Datatype *type)
{
    *type = MPI_DATATYPE_NULL;
    int rc = PMPI_Type_contiguous(words, MPI_UINT64_T, type);
    if (rc == MPI_SUCCESS && (rc = PMPI_Type_commit(type)) != MPI_SUCCESS)
        PMPI_Type_free(type);
    if (rc != MPI_SUCCESS)
        *type = MPI_DATATYPE_NULL;
    return rc;
}

int shim_agree(shim_agreement *a, MPI_Comm comm, MPI_Datatype type, uint64_t *w)
{
    shim_agree_pack(a, w);
    int rc = PMPI_Allreduce(MPI_IN_PLACE, w, 1, type, shim_g.agree_op, comm);
    if (rc == MPI_SUCCESS)
        shim_agree_unpack(w, a);
    return rc;
}

int shim_agree_few_type_create(MPI_Datatype *type)
{
    return shim_agree_type_create(1 + SHIM_FEW_WORDS, type);
}

int shim_agree_few(uint64_t *w, int n, int nand, int nsum, MPI_Comm comm)
{
    uint64_t e[1 + SHIM_FEW_WORDS] = {layout(1 + SHIM_FEW_WORDS, 1 + nand, nsum)};
    memcpy(e + 1, w, (size_t)n * sizeof *w); /* the words after n: 0, in the MAX range */
    int rc = PMPI_Allreduce(MPI_IN_PLACE, e, 1, shim_g.few_type, shim_g.agree_op, comm);
    if (rc == MPI_SUCCESS)
        memcpy(w, e + 1, (size_t)n * sizeof *w);
    return rc;
}
