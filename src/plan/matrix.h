/* The P x P transfer matrix: bytes every rank sends to every other rank. Pure C, no MPI. */
#ifndef HRELAY_PLAN_MATRIX_H
#define HRELAY_PLAN_MATRIX_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "plan/error.h"

/* Row-major P x P matrix of 64-bit byte counts: bytes[i * p + j] is what rank i sends to j.
 * The diagonal (a rank's message to itself) is a local copy and never scheduled. */
typedef struct plan_matrix {
    int p;
    uint64_t *bytes;
} plan_matrix;

/* Communication model of a step: full duplex (a rank sends one and receives one transfer at
 * once) or half duplex (a rank either sends or receives one transfer at a time). */
typedef enum plan_duplex { PLAN_DUPLEX_FULL = 0, PLAN_DUPLEX_HALF = 1 } plan_duplex;

/* Makes m a zero-filled p x p matrix. Returns 0, or -1 (p < 1, or out of memory) with err set. */
int plan_matrix_init(plan_matrix *m, int p, plan_error *err);

/* Releases what plan_matrix_init allocated; m may be zero-initialised or already freed. */
void plan_matrix_free(plan_matrix *m);

/* The entry for (i, j); i and j must be in [0, p). */
static inline uint64_t plan_matrix_at(const plan_matrix *m, int i, int j)
{
    return m->bytes[(size_t)i * (size_t)m->p + (size_t)j];
}

/* Bytes rank i sends to other ranks (the diagonal excluded). */
uint64_t plan_matrix_sent(const plan_matrix *m, int i);

/* Bytes rank j receives from other ranks (the diagonal excluded). */
uint64_t plan_matrix_received(const plan_matrix *m, int j);

/* The bandwidth lower bound in bytes: full duplex max_i max(sent_i, received_i), half duplex
 * max_i (sent_i + received_i). No schedule of point-to-point transfers moves the data in less. */
uint64_t plan_matrix_lower_bound(const plan_matrix *m, plan_duplex duplex);

/* The largest load of a rank in bytes when share_pct percent of the smaller of what it sends
 * and receives (rounded down) adds to the larger: 0 is the full-duplex bound, 100 the
 * half-duplex one, between them links that carry both directions at once in part. */
uint64_t plan_matrix_shared_load(const plan_matrix *m, uint32_t share_pct);

/* The fewest steps any schedule that sends every message whole needs: the largest number of
 * messages one rank sends or receives (full duplex), or sends plus receives (half duplex). */
size_t plan_matrix_max_degree(const plan_matrix *m, plan_duplex duplex);

/* Number of non-zero off-diagonal entries (the messages a schedule must move). */
size_t plan_matrix_messages(const plan_matrix *m);

/* Greatest common divisor of a and b; plan_gcd(0, b) == b. */
uint64_t plan_gcd(uint64_t a, uint64_t b);

/* Whether every off-diagonal entry is the same non-zero number (then stored in *bytes if
 * bytes is not NULL): a regular exchange, such as any MPI_Alltoall. Needs p >= 2. */
int plan_matrix_is_uniform(const plan_matrix *m, uint64_t *bytes);

/* Reads a matrix in text form: P lines of P non-negative decimal integers separated by blanks;
 * '#' starts a comment to the end of the line; blank lines are ignored. Returns 0, or -1 with
 * err->line and err->text naming the offending line (ragged rows, negative, non-numeric or
 * overflowing entries, no rows). m must not hold memory; on failure it holds none. */
int plan_matrix_parse(FILE *in, plan_matrix *m, plan_error *err);

#endif
