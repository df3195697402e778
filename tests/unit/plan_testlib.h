/* Helpers shared by the Check unit tests of plan/: random test parameters, planning checked by
 * the verifier, plan comparison and the plan-size limit. MPI-free. */
#ifndef HRELAY_TESTS_PLAN_TESTLIB_H
#define HRELAY_TESTS_PLAN_TESTLIB_H

#include <check.h>
#include <stdint.h>

#include "plan/plan.h"

/* A rank count for property tests: 1-16 for 70% of draws, 41-64 for large_percent% of them
 * (at most 30), 17-40 otherwise. */
int tl_draw_p(uint64_t *st, int large_percent);

/* An entry bound: tiny (many ties and partial packets), moderate, or large 64-bit values. */
uint64_t tl_draw_max(uint64_t *st);

/* Plans m with family algo and options o through plan_build, asserts that planning succeeds
 * and that the verifier accepts the plan, and returns it. */
plan tl_build_checked(plan_algo algo, const plan_matrix *m, const plan_options *o);

/* Whether a and b are the same plan: the same steps, transfers (all fields) and segments. */
int tl_plans_equal(const plan *a, const plan *b);

/* Determinism of family algo: n random matrices (seeded with seed; every shape in turn; ranks
 * from tl_draw_p(large_percent), at most max_p; entries below tl_draw_max) are each planned
 * twice, with the options draw_options draws after the matrix (NULL: defaults), and both plans
 * must be the same and valid. */
void tl_check_deterministic(plan_algo algo, uint64_t seed, int n, int large_percent, int max_p,
                            plan_options (*draw_options)(uint64_t *st));

/* The plan-size limit of plan_build for family algo on m with options o (max_segments unset):
 * one segment below the size of the unlimited plan, planning fails, twice in a row with the
 * same error; at exactly that size it gives the unlimited plan. */
void tl_check_segment_limit(plan_algo algo, const plan_matrix *m, const plan_options *o);

/* The largest number of messages one rank sends or receives (full duplex), or sends plus
 * receives (half duplex): the fewest steps of any whole-message schedule. Computed here, not
 * by plan/. */
size_t tl_max_degree(const plan_matrix *m, plan_duplex duplex);

/* Whether every transfer of pl carries one whole message in one segment, each message once. */
int tl_whole_messages(const plan_matrix *m, const plan *pl);

/* The first step whose transfers do not all move the same number of bytes, or -1. */
long tl_uneven_step(const plan *pl);

/* The first step of pl after which a later transfer could have joined it (its ranks free in
 * that step under pl->duplex), or -1: every step of a greedy plan is a maximal matching. */
long tl_non_maximal_step(const plan *pl);

/* h of Sanders and Solis-Oba: the largest number of packets of S bytes (the last one of a
 * message possibly short) a rank sends plus receives. */
uint64_t tl_h_packets(const plan_matrix *m, uint64_t S);

/* Whether the two-round transpose's dealing of m in grains of g bytes meets Bader, Helman and
 * JaJa's bounds: rank i's round-1 bin for any intermediate at most sent_i / p + p / 2 grains,
 * an intermediate's round-2 bin for rank j at most received_j / p + p / 2 (so n / p^2 + p / 2
 * and h / p + p / 2 for balanced input); counts from plan_transpose_share. */
int tl_transpose_bins_ok(const plan_matrix *m, uint64_t g);

/* Runs suite s with its test cases basic and props (property tests, allowed 600 s each),
 * printing Check's report. Returns the exit status: EXIT_SUCCESS if every test passed. */
int tl_run(Suite *s, TCase *basic, TCase *props);

#endif
