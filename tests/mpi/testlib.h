/* Helpers shared by the MPI test programs: a seeded generator, the datatype pairs, the count
 * patterns, buffers laid out with guard bytes, and failure reporting. */
#ifndef HRELAY_TESTS_MPI_TESTLIB_H
#define HRELAY_TESTS_MPI_TESTLIB_H

#include <mpi.h>
#include <stddef.h>

#include "config.h" /* HRELAY_HAVE_MPI_LARGE_COUNT: MPI_Alltoall(v)_c exist */
#include <stdint.h>

/* Guard bytes around every receive region, and their value. */
enum { TL_GUARD = 24, TL_GUARD_BYTE = 0xA5 };

/* xorshift64* generator; the same seed gives the same sequence on every rank. */
typedef struct tl_rng {
    uint64_t s;
} tl_rng;

void tl_seed(tl_rng *r, uint64_t seed);
uint64_t tl_next(tl_rng *r);
/* Uniform in [0, n) (n > 0). */
int tl_below(tl_rng *r, int n);

/* A pair of matching datatypes: sper elements of stype carry the same type signature as rper
 * elements of rtype (one "unit"). */
typedef struct tl_types {
    const char *name;
    MPI_Datatype stype, rtype;
    int sper, rper;
} tl_types;

enum { TL_MAX_TYPES = 16 };

/* Creates and commits the datatype pairs into out (at most TL_MAX_TYPES); returns how many:
 * byte, int, double, vector, vector->ints, ints->vector, resized with negative lower bound,
 * struct with padding, struct->same signature in another memory order, contiguous(3,int)->
 * 3 ints, resized int (dense), short_int, 2 doubles->contiguous(2,double), dup(double)->double,
 * a zero-size type. */
int tl_types_create(tl_types *out);
void tl_types_free(tl_types *t, int n);

/* Count patterns (matrices of units, identical on every rank for the same seed). */
enum {
    TL_UNIFORM,
    TL_SPARSE,
    TL_HOT_RECEIVER,
    TL_HOT_SENDER,
    TL_ZERO,
    TL_RANDOM,
    TL_ONE_MESSAGE,
    TL_PERMUTATION,
    TL_SELF_ONLY,
    TL_LARGE,
    TL_PATTERNS
};
const char *tl_pattern_name(int pattern);

/* Fills units[p * p] (row = sender) for pattern; symmetric forces units[i][j] == units[j][i]
 * (needed by MPI_IN_PLACE). Entries stay below 1 << 20 (TL_LARGE) or 64 (the others). */
void tl_pattern(int pattern, int p, uint64_t seed, int symmetric, long *units);

/* One side of an exchange in a freshly allocated buffer: the message for peer j is count[j]
 * elements of type at base + displ[j] * extent. Regions are placed in a random order with at
 * least TL_GUARD bytes before, between and after them; span[i] is 1 for bytes inside the span
 * of some region (its true extent). */
typedef struct tl_side {
    int p;
    MPI_Datatype type;
    MPI_Count *count;
    MPI_Aint *displ;
    int *icount, *idispl; /* the same, as int (for MPI_Alltoallv) */
    char *buf, *base;
    size_t len;
    unsigned char *span;
} tl_side;

/* Lays out a side (random order and gaps from rng, or, if uniform, displ[j] = j * count[0] as
 * MPI_Alltoall requires) and fills the whole buffer with TL_GUARD_BYTE. Aborts on failure. */
void tl_side_init(tl_side *s, int p, const MPI_Count *count, MPI_Datatype type, tl_rng *rng,
                  int uniform);
void tl_side_free(tl_side *s);

/* Fills the region spans of s with random bytes (the gaps keep TL_GUARD_BYTE). */
void tl_side_fill(tl_side *s, tl_rng *rng);

/* A copy of s with its own buffer (same layout and contents). */
void tl_side_copy(tl_side *dst, const tl_side *src);

/* Compares got with ref (same layout): every byte must be equal, and every byte outside the
 * region spans must still be TL_GUARD_BYTE. Returns 0, or -1 after printing the first
 * difference with what. */
int tl_side_check(const tl_side *got, const tl_side *ref, const char *what);

/* 1 if every byte of s's buffer is TL_GUARD_BYTE (nothing was written). */
int tl_side_untouched(const tl_side *s);

/* Prints "rank R: FAIL: ..." on stderr and counts the failure. */
void tl_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Failures counted on this rank so far. */
int tl_failures(void);

/* Collective over MPI_COMM_WORLD: the total number of failures. */
int tl_total_failures(void);

#endif
