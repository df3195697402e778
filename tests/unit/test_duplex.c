/* Tests of the half-duplex form of every family (plan_build with plan_options.duplex =
 * PLAN_DUPLEX_HALF) and of plan_split_half: validity by the independent verifier, the bound of
 * each family, determinism. MPI-free; run by Check. */
#include <check.h>
#include <stdlib.h>

#include "matrix_classes.h"
#include "plan/families.h"
#include "plan/plan.h"
#include "plan/walker_otto.h"
#include "plan_testlib.h"
#include "random_matrix.h"

/* Percentage of property tests with 41-64 ranks (tl_draw_p). */
enum { LARGE_P_PERCENT = 5 };

/* Plans m with family algo in half duplex (min_step for direct) and checks it is valid and
 * half duplex. */
static plan half_checked(plan_algo algo, const plan_matrix *m, uint64_t min_step)
{
    plan_options o = {.duplex = PLAN_DUPLEX_HALF, .min_step_bytes = min_step, .grain_bytes = 3};
    plan pl = tl_build_checked(algo, m, &o);
    ck_assert_int_eq(pl.duplex, PLAN_DUPLEX_HALF);
    ck_assert_int_eq(pl.algo, algo);
    return pl;
}

/* A random matrix of the n-th shape with tl_draw_p ranks; dense shapes at large P are kept to
 * a few, their plans being large. */
static plan_matrix draw_matrix(uint64_t *st, int n)
{
    int p = tl_draw_p(st, LARGE_P_PERCENT);
    rm_shape shape = (rm_shape)(n % RM_SHAPES);
    if ((shape == RM_DENSE || shape == RM_HEAVY_TAILED) && p > 40 && n % 7)
        p = 24;
    plan_matrix m;
    ck_assert_int_eq(plan_matrix_init(&m, p, NULL), 0);
    random_matrix(&m, shape, tl_draw_max(st), st);
    return m;
}

/* Direct without forwarding in half duplex, on 3,000 random matrices of every shape: valid,
 * the bandwidth term between the half-duplex bound h and 3 ceil(h / 2) (Sanders and Solis-Oba:
 * ceil(h / 2) 2-relations of at most three steps), every step's transfers equal, at most three
 * steps per event of the decomposition; with a minimum step m at most 3 ceil(h / 2) + m per
 * step. */
START_TEST(half_direct_random)
{
    uint64_t st = 0x5eedd001;
    for (int n = 0; n < 3000; n++) {
        plan_matrix m = draw_matrix(&st, n);
        uint64_t min_step = n % 2 ? 0 : 1 + rm_below(&st, 1 + plan_matrix_lower_bound(&m, 0) / 8);
        plan pl = half_checked(PLAN_ALGO_DIRECT, &m, min_step);
        uint64_t h = plan_matrix_lower_bound(&m, PLAN_DUPLEX_HALF), bw = plan_bandwidth_term(&pl);
        uint64_t most = 3 * ((h + 1) / 2) + min_step * pl.nsteps;
        size_t nnz = plan_matrix_messages(&m);
        ck_assert_msg(bw >= h && bw <= most, "#%d p=%d m=%llu: bandwidth %llu outside [%llu, %llu]",
                      n, m.p, (unsigned long long)min_step, (unsigned long long)bw,
                      (unsigned long long)h, (unsigned long long)most);
        if (min_step == 0) {
            ck_assert_msg(tl_uneven_step(&pl) < 0, "#%d: step %ld moves different sizes", n,
                          tl_uneven_step(&pl));
            ck_assert_uint_le(pl.nsteps, 3 * (4 * nnz + 2 * (size_t)m.p));
        }
        plan_free(&pl);
        plan_matrix_free(&m);
    }
}
END_TEST

/* Whole-message families in half duplex, on random matrices of every shape: stepwise takes at
 * least D and at most 3 ceil(D / 2) steps (D: the most messages a rank sends plus receives;
 * Shannon's 3D/2 is what some multigraphs need); greedy takes each step as a maximal matching,
 * so at most 2D - 1. Both send every message whole. */
START_TEST(half_stepwise_greedy_random)
{
    uint64_t st = 0x5eedd002;
    for (int n = 0; n < 3000; n++) {
        plan_matrix m = draw_matrix(&st, n);
        size_t D = tl_max_degree(&m, PLAN_DUPLEX_HALF);
        plan sw = half_checked(PLAN_ALGO_STEPWISE, &m, 0), gr = half_checked(PLAN_ALGO_GREEDY, &m, 0);
        ck_assert_msg(tl_whole_messages(&m, &sw) && tl_whole_messages(&m, &gr), "#%d: split message",
                      n);
        ck_assert_msg(sw.nsteps >= D && sw.nsteps <= 3 * ((D + 1) / 2),
                      "#%d %s p=%d: stepwise NS %zu, D %zu", n,
                      rm_shape_name((rm_shape)(n % RM_SHAPES)), m.p, sw.nsteps, D);
        ck_assert_msg(gr.nsteps >= D && (D == 0 || gr.nsteps <= 2 * D - 1),
                      "#%d: greedy NS %zu, D %zu", n, gr.nsteps, D);
        ck_assert_msg(tl_non_maximal_step(&gr) < 0, "#%d: greedy step %ld not maximal", n,
                      tl_non_maximal_step(&gr));
        plan_free(&sw);
        plan_free(&gr);
        plan_matrix_free(&m);
    }
}
END_TEST

/* Transpose in half duplex: valid on random matrices, both rounds on the 1-factorisation (at
 * most 2 (p - 1) steps per round for even p, 2p for odd p); walker-otto in half duplex: its K
 * permutation steps split into at most 3K, valid. */
START_TEST(half_transpose_walker_otto)
{
    uint64_t st = 0x5eedd003;
    for (int n = 0; n < 600; n++) {
        plan_matrix m = draw_matrix(&st, n);
        plan pl = half_checked(PLAN_ALGO_TRANSPOSE, &m, 0);
        size_t rounds = m.p % 2 ? (size_t)m.p : (size_t)m.p - 1;
        ck_assert_uint_le(pl.nsteps, 2 * 2 * rounds);
        ck_assert_uint_eq(pl.packet_bytes, 3);
        plan_free(&pl);
        plan_matrix_free(&m);
    }
    for (int n = 0; n < 200; n++) {
        int P = 2 + (int)rm_below(&st, 40), K = 2 + (int)rm_below(&st, 3 * P), k;
        plan_matrix m;
        ck_assert_int_eq(plan_matrix_init(&m, P, NULL), 0);
        mc_block_cyclic(&m, K, 1 + rm_below(&st, 4096), 1 + (int)rm_below(&st, 3));
        uint64_t unit;
        ck_assert(plan_wo_recognise(&m, &k, &unit));
        plan pl = half_checked(PLAN_ALGO_WALKER_OTTO, &m, 0);
        ck_assert_uint_le(pl.nsteps, 3 * (size_t)k);
        plan_free(&pl);
        plan_matrix_free(&m);
    }
}
END_TEST

/* Whether a and b hold the same transfers, in any order within the plan. */
static int same_transfers(const plan *a, const plan *b)
{
    if (a->ntransfers != b->ntransfers)
        return 0;
    /* every transfer keeps its segments, so seg_begin identifies it */
    char *seen = calloc(a->nsegments + 1, 1);
    int ok = seen != NULL;
    for (size_t t = 0; t < b->ntransfers && ok; t++) {
        size_t g = b->transfers[t].seg_begin;
        ok = g <= a->nsegments && !seen[g];
        if (ok)
            seen[g] = 1;
    }
    for (size_t t = 0; t < a->ntransfers && ok; t++)
        ok = seen[a->transfers[t].seg_begin];
    free(seen);
    return ok;
}

/* plan_split_half on full-duplex plans of every full-duplex family: the result is valid and
 * half duplex, holds the same transfers, at most three steps per step and at most three times
 * the bandwidth term (two without odd cycles: a plan of two-rank swaps only doubles). */
START_TEST(split_half_random)
{
    uint64_t st = 0x5eedd004;
    static const plan_algo algos[] = {PLAN_ALGO_DIRECT, PLAN_ALGO_STEPWISE, PLAN_ALGO_GREEDY,
                                      PLAN_ALGO_TRANSPOSE};
    for (int n = 0; n < 1200; n++) {
        plan_matrix m = draw_matrix(&st, n);
        plan_options o = {.grain_bytes = 7};
        plan full = tl_build_checked(algos[n % 4], &m, &o), half = tl_build_checked(algos[n % 4], &m, &o);
        plan_error err = {0};
        ck_assert_int_eq(plan_split_half(&half, &err), 0);
        ck_assert_msg(plan_verify(&m, &half, &err) == 0, "#%d %s: %s", n,
                      plan_algo_name(algos[n % 4]), err.text);
        ck_assert_int_eq(half.duplex, PLAN_DUPLEX_HALF);
        ck_assert(same_transfers(&full, &half));
        ck_assert_uint_le(half.nsteps, 3 * full.nsteps);
        ck_assert_uint_le(plan_bandwidth_term(&half), 3 * plan_bandwidth_term(&full));
        ck_assert_int_eq(plan_split_half(&half, &err), 0); /* already half: unchanged */
        plan_free(&full);
        plan_free(&half);
        plan_matrix_free(&m);
    }
    /* p = 2: every step a swap, split in exactly two */
    const uint64_t two[4] = {0, 9, 5, 0};
    plan_matrix m;
    ck_assert_int_eq(plan_matrix_init(&m, 2, NULL), 0);
    m.bytes[1] = two[1];
    m.bytes[2] = two[2];
    plan pl = tl_build_checked(PLAN_ALGO_DIRECT, &m, NULL);
    ck_assert_int_eq(plan_split_half(&pl, NULL), 0);
    ck_assert_uint_eq(plan_bandwidth_term(&pl), 14);
    ck_assert_uint_eq(pl.nsteps, 3);
    plan_free(&pl);
    plan_matrix_free(&m);
}
END_TEST

/* Uniform matrices in half duplex get the 1-factorisation; forward is the same plan under
 * either duplex setting; an unknown duplex mode is refused. */
START_TEST(half_regular_forward_and_errors)
{
    uint64_t st = 0x5eedd005;
    for (int p = 2; p <= 17; p++) {
        plan_matrix m;
        ck_assert_int_eq(plan_matrix_init(&m, p, NULL), 0);
        random_matrix(&m, RM_UNIFORM, 1 + rm_below(&st, 1 << 16), &st);
        plan pl = half_checked(PLAN_ALGO_DIRECT, &m, 0);
        ck_assert_uint_eq(pl.nsteps, p % 2 ? 2 * (size_t)p : 2 * (size_t)p - 2);
        plan_free(&pl);
        random_matrix(&m, RM_HEAVY_TAILED, 1 << 20, &st);
        plan_options full = {.packet_bytes = 4096}, half = {.packet_bytes = 4096,
                                                            .duplex = PLAN_DUPLEX_HALF};
        plan a = tl_build_checked(PLAN_ALGO_FORWARD, &m, &full);
        plan b = tl_build_checked(PLAN_ALGO_FORWARD, &m, &half);
        ck_assert(tl_plans_equal(&a, &b));
        ck_assert_int_eq(a.duplex, PLAN_DUPLEX_HALF);
        plan_free(&a);
        plan_free(&b);
        plan_options bad = {.duplex = (plan_duplex)7};
        plan_error err = {0};
        ck_assert_int_eq(plan_build(PLAN_ALGO_DIRECT, &m, &bad, &pl, &err), -1);
        plan_matrix_free(&m);
    }
}
END_TEST

/* The plan-size limit (plan_options.max_segments) holds for direct in half duplex, exact and
 * with the automatic minimum step, and for direct in full duplex with the automatic step (the
 * whole-message plan, then the decomposition): one segment short fails the same way twice, the
 * exact size gives the unlimited plan. */
START_TEST(half_segment_limit)
{
    uint64_t st = 0x5eedd007;
    for (int n = 0; n < 12; n++) {
        plan_matrix m;
        ck_assert_int_eq(plan_matrix_init(&m, 3 + n % 9, NULL), 0);
        random_matrix(&m, n % 2 ? RM_DENSE : RM_HEAVY_TAILED, 1 << 16, &st);
        if (plan_matrix_messages(&m) < 2) {
            plan_matrix_free(&m);
            continue;
        }
        plan_options exact = {.duplex = PLAN_DUPLEX_HALF};
        plan_options merged = {.duplex = PLAN_DUPLEX_HALF, .min_step_bytes = PLAN_MIN_STEP_AUTO};
        plan_options full = {.min_step_bytes = PLAN_MIN_STEP_AUTO};
        tl_check_segment_limit(PLAN_ALGO_DIRECT, &m, &exact);
        tl_check_segment_limit(PLAN_ALGO_DIRECT, &m, &merged);
        tl_check_segment_limit(PLAN_ALGO_DIRECT, &m, &full);
        plan_matrix_free(&m);
    }
}
END_TEST

/* Half-duplex options, with a random minimum step half of the time (direct only uses it). */
static plan_options draw_half_options(uint64_t *st)
{
    return (plan_options){.duplex = PLAN_DUPLEX_HALF, .grain_bytes = 1 + rm_below(st, 9),
                          .min_step_bytes = rm_below(st, 2) ? 0 : 1 + rm_below(st, 5000)};
}

START_TEST(half_deterministic)
{
    static const plan_algo algos[] = {PLAN_ALGO_DIRECT, PLAN_ALGO_STEPWISE, PLAN_ALGO_GREEDY,
                                      PLAN_ALGO_TRANSPOSE};
    for (int a = 0; a < 4; a++)
        tl_check_deterministic(algos[a], 0x5eedd006 + (uint64_t)a, 60, LARGE_P_PERCENT, 48,
                               draw_half_options);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("duplex");
    TCase *basic = tcase_create("basic"), *props = tcase_create("properties");
    tcase_add_test(basic, half_regular_forward_and_errors);
    tcase_add_test(basic, half_segment_limit);
    tcase_add_test(props, half_direct_random);
    tcase_add_test(props, half_stepwise_greedy_random);
    tcase_add_test(props, half_transpose_walker_otto);
    tcase_add_test(props, split_half_random);
    tcase_add_test(props, half_deterministic);
    return tl_run(s, basic, props);
}
