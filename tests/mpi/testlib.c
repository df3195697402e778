/* Helpers shared by the MPI test programs (see testlib.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

static _Atomic int failures; /* tl_fail may be called from several threads */

/* Seeds the generator (a zero state is avoided). */
void tl_seed(tl_rng *r, uint64_t seed)
{
    r->s = seed * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;
    if (!r->s)
        r->s = 1;
}

/* Next 64 random bits (xorshift64*). */
uint64_t tl_next(tl_rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545F4914F6CDD1DULL;
}

/* Uniform in [0, n). */
int tl_below(tl_rng *r, int n)
{
    return (int)(tl_next(r) % (uint64_t)n);
}

/* Aborts the job on an MPI error in test set-up. */
static void ok(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "FAIL: %s returned %d\n", what, rc);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* Commits t and returns it. */
static MPI_Datatype commit(MPI_Datatype t)
{
    ok(MPI_Type_commit(&t), "MPI_Type_commit");
    return t;
}

/* Adds a pair to out[*n]. */
static void add(tl_types *out, int *n, const char *name, MPI_Datatype s, int sper, MPI_Datatype r,
                int rper)
{
    out[*n] = (tl_types){name, s, r, sper, rper};
    (*n)++;
}

/* Creates the datatype pairs (see testlib.h). */
int tl_types_create(tl_types *out)
{
    MPI_Datatype vec, neg, negr, st, str, shuf, shufr, contig3, rint, contig2d, dupd, empty;
    int n = 0;

    /* 2 blocks of 3 ints, stride 5: 24 bytes of data in a 32-byte extent */
    ok(MPI_Type_vector(2, 3, 5, MPI_INT, &vec), "vector");
    vec = commit(vec);

    /* data at -8 and +4 from the element's address; lb -12, extent 20 */
    int nbl[2] = {1, 1};
    MPI_Aint ndisp[2] = {-8, 4};
    MPI_Datatype nty[2] = {MPI_INT, MPI_INT};
    ok(MPI_Type_create_struct(2, nbl, ndisp, nty, &neg), "struct");
    ok(MPI_Type_create_resized(neg, -12, 20, &negr), "resized");
    MPI_Type_free(&neg);
    negr = commit(negr);

    /* int, double, char at 0, 8, 16 (13 bytes of data, extent 24) */
    int sbl[3] = {1, 1, 1};
    MPI_Aint sdisp[3] = {0, 8, 16};
    MPI_Datatype sty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    ok(MPI_Type_create_struct(3, sbl, sdisp, sty, &st), "struct");
    ok(MPI_Type_create_resized(st, 0, 24, &str), "resized");
    MPI_Type_free(&st);
    str = commit(str);

    /* the same signature with memory order unlike signature order: int at 16, double at 0,
     * char at 12 */
    MPI_Aint hdisp[3] = {16, 0, 12};
    ok(MPI_Type_create_struct(3, sbl, hdisp, sty, &shuf), "struct");
    ok(MPI_Type_create_resized(shuf, 0, 24, &shufr), "resized");
    MPI_Type_free(&shuf);
    shufr = commit(shufr);

    ok(MPI_Type_contiguous(3, MPI_INT, &contig3), "contiguous");
    contig3 = commit(contig3);
    ok(MPI_Type_create_resized(MPI_INT, -4, 4, &rint), "resized");
    rint = commit(rint);
    ok(MPI_Type_contiguous(2, MPI_DOUBLE, &contig2d), "contiguous");
    contig2d = commit(contig2d);
    ok(MPI_Type_dup(MPI_DOUBLE, &dupd), "dup");
    dupd = commit(dupd);
    ok(MPI_Type_contiguous(0, MPI_INT, &empty), "contiguous"); /* size 0: no bytes at all */
    empty = commit(empty);

    add(out, &n, "byte", MPI_BYTE, 1, MPI_BYTE, 1);
    add(out, &n, "int", MPI_INT, 1, MPI_INT, 1);
    add(out, &n, "double", MPI_DOUBLE, 1, MPI_DOUBLE, 1);
    add(out, &n, "vector", vec, 1, vec, 1);
    add(out, &n, "vector->6int", vec, 1, MPI_INT, 6);
    add(out, &n, "6int->vector", MPI_INT, 6, vec, 1);
    add(out, &n, "neglb-resized", negr, 1, negr, 1);
    add(out, &n, "neglb->2int", negr, 1, MPI_INT, 2);
    add(out, &n, "struct", str, 1, str, 1);
    add(out, &n, "struct->shuffled", str, 1, shufr, 1);
    add(out, &n, "contig3int->3int", contig3, 1, MPI_INT, 3);
    add(out, &n, "resized-int", rint, 1, rint, 1);
    add(out, &n, "short_int", MPI_SHORT_INT, 1, MPI_SHORT_INT, 1);
    add(out, &n, "2double->contig2", MPI_DOUBLE, 2, contig2d, 1);
    add(out, &n, "dup-double->double", dupd, 1, MPI_DOUBLE, 1);
    add(out, &n, "zero-size", empty, 1, empty, 1);
    return n;
}

/* Frees the derived types of the pairs (each once). */
void tl_types_free(tl_types *t, int n)
{
    MPI_Datatype seen[2 * TL_MAX_TYPES];
    int nseen = 0;
    for (int i = 0; i < n; i++) {
        MPI_Datatype both[2] = {t[i].stype, t[i].rtype};
        for (int k = 0; k < 2; k++) {
            int ni, na, nd, comb, dup = 0;
            for (int s = 0; s < nseen; s++)
                dup |= seen[s] == both[k];
            if (dup)
                continue;
            MPI_Type_get_envelope(both[k], &ni, &na, &nd, &comb);
            if (comb == MPI_COMBINER_NAMED)
                continue;
            seen[nseen++] = both[k];
            MPI_Type_free(&both[k]);
        }
    }
}

/* Pattern names, in enum order. */
const char *tl_pattern_name(int pattern)
{
    static const char *const names[TL_PATTERNS] = {
        "uniform", "sparse",      "hot-receiver", "hot-sender", "zero",
        "random",  "one-message", "permutation",  "self-only",  "large"};
    return pattern >= 0 && pattern < TL_PATTERNS ? names[pattern] : "?";
}

/* Fills a units matrix (see testlib.h). */
void tl_pattern(int pattern, int p, uint64_t seed, int symmetric, long *u)
{
    tl_rng r;
    tl_seed(&r, seed * 131 + (uint64_t)pattern);
    int hot = tl_below(&r, p), c = 1 + tl_below(&r, 8);
    int oi = tl_below(&r, p), oj = tl_below(&r, p);
    int *perm = malloc((size_t)p * sizeof *perm);
    for (int i = 0; i < p; i++)
        perm[i] = i;
    for (int i = p - 1; i > 0; i--) {
        int k = tl_below(&r, i + 1), t = perm[i];
        perm[i] = perm[k];
        perm[k] = t;
    }
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++) {
            long v = 0;
            switch (pattern) {
            case TL_UNIFORM: v = c; break;
            case TL_SPARSE: v = tl_below(&r, 4) == 0 ? 1 + tl_below(&r, 63) : 0; break;
            case TL_HOT_RECEIVER: v = j == hot ? 32 + tl_below(&r, 32) : tl_below(&r, 4); break;
            case TL_HOT_SENDER: v = i == hot ? 32 + tl_below(&r, 32) : tl_below(&r, 4); break;
            case TL_ZERO: v = 0; break;
            case TL_RANDOM: v = tl_below(&r, 64); break;
            case TL_ONE_MESSAGE: v = i == oi && j == oj ? 1 + tl_below(&r, 63) : 0; break;
            case TL_PERMUTATION: v = j == perm[i] ? 1 + tl_below(&r, 63) : 0; break;
            case TL_SELF_ONLY: v = i == j ? 1 + tl_below(&r, 63) : 0; break;
            case TL_LARGE:
                v = j == hot ? (1 << 14) + tl_below(&r, 1 << 14) : tl_below(&r, 1 << 10);
                break;
            }
            u[(size_t)i * p + j] = v;
        }
    if (symmetric)
        for (int i = 0; i < p; i++)
            for (int j = 0; j < i; j++)
                u[(size_t)i * p + j] = u[(size_t)j * p + i];
    free(perm);
}

/* Allocates or aborts. */
static void *xmalloc(size_t n)
{
    void *v = malloc(n ? n : 1);
    if (!v) {
        fprintf(stderr, "FAIL: out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return v;
}

/* Lays out a side (see testlib.h). */
void tl_side_init(tl_side *s, int p, const MPI_Count *count, MPI_Datatype type, tl_rng *rng,
                  int uniform)
{
    MPI_Aint lb, ext, tlb, text;
    ok(MPI_Type_get_extent(type, &lb, &ext), "MPI_Type_get_extent");
    ok(MPI_Type_get_true_extent(type, &tlb, &text), "MPI_Type_get_true_extent");
    memset(s, 0, sizeof *s);
    s->p = p;
    s->type = type;
    s->count = xmalloc((size_t)p * sizeof *s->count);
    s->displ = xmalloc((size_t)p * sizeof *s->displ);
    s->icount = xmalloc((size_t)p * sizeof *s->icount);
    s->idispl = xmalloc((size_t)p * sizeof *s->idispl);
    MPI_Aint *lo = xmalloc((size_t)p * sizeof *lo), *hi = xmalloc((size_t)p * sizeof *hi);
    int *order = xmalloc((size_t)p * sizeof *order);
    for (int i = 0; i < p; i++)
        order[i] = i;
    if (!uniform)
        for (int i = p - 1; i > 0; i--) {
            int k = tl_below(rng, i + 1), t = order[i];
            order[i] = order[k];
            order[k] = t;
        }

    /* offsets relative to base; base sits `shift` bytes into the buffer */
    MPI_Aint cursor = 0, shift = 0, end = 0;
    if (uniform && tlb < TL_GUARD)
        shift = (TL_GUARD - tlb + 7) / 8 * 8;
    for (int k = 0; k < p; k++) {
        int j = order[k];
        MPI_Count n = count[uniform ? 0 : j];
        MPI_Aint d;
        s->count[j] = n;
        if (uniform) {
            d = (MPI_Aint)j * (MPI_Aint)n;
        } else {
            MPI_Aint want = cursor + TL_GUARD + tl_below(rng, 3) * 8 - tlb;
            d = want <= 0 || ext <= 0 ? 0 : (want + ext - 1) / ext;
        }
        s->displ[j] = d;
        lo[j] = hi[j] = 0;
        if (n > 0 && text > 0) {
            lo[j] = d * ext + tlb;
            hi[j] = d * ext + (MPI_Aint)(n - 1) * ext + tlb + text;
            cursor = hi[j];
            if (hi[j] > end)
                end = hi[j];
        }
    }
    for (int j = 0; j < p; j++) {
        s->icount[j] = (int)s->count[j];
        s->idispl[j] = (int)s->displ[j];
    }
    s->len = (size_t)(shift + end + TL_GUARD);
    s->buf = xmalloc(s->len);
    s->base = s->buf + shift;
    s->span = xmalloc(s->len);
    memset(s->buf, TL_GUARD_BYTE, s->len);
    memset(s->span, 0, s->len);
    for (int j = 0; j < p; j++)
        if (hi[j] > lo[j])
            memset(s->span + shift + lo[j], 1, (size_t)(hi[j] - lo[j]));
    free(lo);
    free(hi);
    free(order);
}

/* Frees a side. */
void tl_side_free(tl_side *s)
{
    free(s->count);
    free(s->displ);
    free(s->icount);
    free(s->idispl);
    free(s->buf);
    free(s->span);
    memset(s, 0, sizeof *s);
}

/* Random bytes in the region spans. */
void tl_side_fill(tl_side *s, tl_rng *rng)
{
    for (size_t i = 0; i < s->len; i++)
        if (s->span[i])
            s->buf[i] = (char)(tl_next(rng) >> 56);
}

/* Deep copy of a side. */
void tl_side_copy(tl_side *d, const tl_side *s)
{
    size_t p = (size_t)s->p;
    *d = *s;
    d->count = xmalloc(p * sizeof *d->count);
    d->displ = xmalloc(p * sizeof *d->displ);
    d->icount = xmalloc(p * sizeof *d->icount);
    d->idispl = xmalloc(p * sizeof *d->idispl);
    d->buf = xmalloc(s->len);
    d->span = xmalloc(s->len);
    memcpy(d->count, s->count, p * sizeof *d->count);
    memcpy(d->displ, s->displ, p * sizeof *d->displ);
    memcpy(d->icount, s->icount, p * sizeof *d->icount);
    memcpy(d->idispl, s->idispl, p * sizeof *d->idispl);
    memcpy(d->buf, s->buf, s->len);
    memcpy(d->span, s->span, s->len);
    d->base = d->buf + (s->base - s->buf);
}

/* Compares against the reference (see testlib.h). */
int tl_side_check(const tl_side *got, const tl_side *ref, const char *what)
{
    for (size_t i = 0; i < got->len; i++) {
        unsigned char g = (unsigned char)got->buf[i], r = (unsigned char)ref->buf[i];
        if (!got->span[i] && g != TL_GUARD_BYTE) {
            tl_fail("%s: guard byte %zu of %zu overwritten (0x%02x)", what, i, got->len, g);
            return -1;
        }
        if (g != r) {
            tl_fail("%s: byte %zu of %zu differs from PMPI: 0x%02x, expected 0x%02x", what, i,
                    got->len, g, r);
            return -1;
        }
    }
    return 0;
}

/* 1 if the buffer holds only guard bytes. */
int tl_side_untouched(const tl_side *s)
{
    for (size_t i = 0; i < s->len; i++)
        if ((unsigned char)s->buf[i] != TL_GUARD_BYTE)
            return 0;
    return 1;
}

/* Reports a failure. */
void tl_fail(const char *fmt, ...)
{
    int rank = -1, finalized = 0;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    MPI_Finalized(&finalized);
    if (!finalized)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "rank %d: FAIL: %s\n", rank, line);
    failures++;
}

/* Failures on this rank. */
int tl_failures(void)
{
    return failures;
}

/* Sum of failures over MPI_COMM_WORLD. */
int tl_total_failures(void)
{
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return total;
}
