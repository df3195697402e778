/* Structured transfer matrices for the property tests of plan/: the patterns the papers are
 * about (block-cyclic redistributions, cycles) and the shapes that stress schedules (hot spots,
 * heavy-tailed sizes). Deterministic: a seeded generator where there is randomness. */
#ifndef HRELAY_TESTS_MATRIX_CLASSES_H
#define HRELAY_TESTS_MATRIX_CLASSES_H

#include <stdint.h>

#include "plan/matrix.h"

/* Redistributing `cycles` cycles of P * K blocks of `block` bytes from cyclic(r) to
 * cyclic(K r) on the m->p ranks (Walker and Otto): global block B goes from rank B mod P to
 * rank (B / K) mod P. */
void mc_block_cyclic(plan_matrix *m, int K, uint64_t block, int cycles);

/* Redistributing an array of `elements` elements of `elem_bytes` bytes from cyclic(r) on ranks
 * 0 .. P - 1 to cyclic(s) on ranks 0 .. Q - 1 (Desprez et al.; m->p >= P and >= Q): element x
 * goes from rank (x / r) mod P to rank (x / s) mod Q. */
void mc_redistribution(plan_matrix *m, int P, uint64_t r, int Q, uint64_t s, uint64_t elements,
                       uint64_t elem_bytes);

/* Hot spots: `hot` ranks (chosen at random) receive up to `big` bytes from every rank and send
 * up to `big` to a few; every other entry is below `small` with probability 1/4, else 0. */
void mc_hot_spots(plan_matrix *m, int hot, uint64_t big, uint64_t small, uint64_t *state);

/* Heavy-tailed sizes: every off-diagonal entry is present with probability density_percent %
 * and Pareto-distributed (shape 1.2, at least `scale` bytes, capped at 2^40). */
void mc_pareto(plan_matrix *m, int density_percent, uint64_t scale, uint64_t *state);

/* Disjoint directed cycles of length len (ranks k len .. k len + len - 1; the m->p mod len
 * last ranks idle), every message `bytes` long. */
void mc_cycles(plan_matrix *m, int len, uint64_t bytes);

#endif
