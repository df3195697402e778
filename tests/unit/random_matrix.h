/* Seeded random transfer matrices of many shapes, for property tests of plan/. */
#ifndef HRELAY_TESTS_RANDOM_MATRIX_H
#define HRELAY_TESTS_RANDOM_MATRIX_H

#include <stdint.h>

#include "plan/matrix.h"

/* The shapes random_matrix can draw. */
typedef enum rm_shape {
    RM_DENSE,         /* every entry random */
    RM_SPARSE,        /* each entry non-zero with probability ~ 3/p */
    RM_HOT_RECEIVER,  /* everyone sends much to one rank, little elsewhere */
    RM_HOT_SENDER,    /* one rank sends much to everyone */
    RM_PERMUTATION,   /* one message per rank, a random permutation */
    RM_ZERO,          /* nothing to send */
    RM_ONE_MESSAGE,   /* a single off-diagonal message */
    RM_HEAVY_TAILED,  /* power-law sizes: most tiny, a few huge */
    RM_UNIFORM,       /* every off-diagonal entry equal */
    RM_SHAPES
} rm_shape;

/* A deterministic 64-bit generator (splitmix64); state is advanced. */
uint64_t rm_next(uint64_t *state);

/* A uniform integer in [0, n) (n > 0). */
uint64_t rm_below(uint64_t *state, uint64_t n);

/* The name of a shape, for failure messages. */
const char *rm_shape_name(rm_shape shape);

/* Fills m (already initialised to p x p) with a random matrix of the given shape whose entries
 * stay below max_entry (>= 1); the diagonal is random too (a self-copy the planner ignores). */
void random_matrix(plan_matrix *m, rm_shape shape, uint64_t max_entry, uint64_t *state);

#endif
