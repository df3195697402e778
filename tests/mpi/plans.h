/* Random plans for the exec test: built from a shared seed, so every rank builds the same plan,
 * and checked with plan_verify before use. */
#ifndef HRELAY_TESTS_MPI_PLANS_H
#define HRELAY_TESTS_MPI_PLANS_H

#include <stdint.h>

#include "plan/plan.h"
#include "testlib.h"

/* Aborts the job with what and err's text unless cond holds (a bug in the test). */
void tp_need(int cond, const char *what, const plan_error *err);

/* Every message cut into 1..5 pieces at random byte offsets, consecutive pieces grouped 1..2
 * per transfer, transfers of different messages interleaved at random (each message's pieces
 * in order), packed into full-duplex steps. No forwarding. */
void tp_random_direct(const plan_matrix *m, tl_rng *rng, plan *pl);

/* Every message cut into 1..5 pieces at random byte offsets; each piece goes directly or (for
 * p >= 3, three times in four) through a random intermediate rank. Steps are packed greedily,
 * pieces with higher offsets first, so the pieces of a message reach their target from
 * different ranks and in non-increasing offset order; all pieces a rank passes to the same
 * rank in a step travel as one transfer, with their segments in random order (own data and
 * forwarded data of several origins mixed). duplex selects the step rule (half: a rank only
 * sends or only receives in a step). */
void tp_random_forward(const plan_matrix *m, tl_rng *rng, plan_duplex duplex, plan *pl);

/* Bytes this rank holds for forwarding at the peak, replayed from the plan independently of
 * exec: per step, add what it receives for others, record the maximum, subtract what it
 * forwards. Equals exec_view_staging when every held piece leaves in one send (transpose,
 * tp_random_forward). */
uint64_t tp_forward_peak(const plan *pl, int rank);

#endif
