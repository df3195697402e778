/* Unit and property tests of the cost model at node level (plan/cost_topo.c) and of the
 * on-node figures of the calibration file. MPI-free; run by Check. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/cost.h"
#include "plan/node.h"
#include "plan/topo.h"
#include "plan_testlib.h"
#include "random_matrix.h"

/* Round numbers: beta 1 ps per byte, on-node 0.1 ps per byte. */
static plan_cost_params simple(void)
{
    return (plan_cost_params){.alpha_ps = 100, .gap_ps = 10, .beta_fs = 1000, .duplex_pct = 100,
                              .step_ps = 7, .native_pct = 50, .throttle = 32, .plan_ps = 3,
                              .local_alpha_ps = 5, .local_beta_fs = 100};
}

START_TEST(plan_by_hand)
{
    /* ranks 0, 1 on node 0; 2, 3 on node 1. One step: 0 -> 2 (100), 1 -> 3 (50), 0 -> 1 (30,
     * on the node). NIC of node 0 sends 150: 150 ps. Rank 0: one message more than one (10),
     * one on-node message (5), 30 on-node bytes (3): 18. Step: 7 + max(150, 18). */
    int32_t node_of[] = {0, 0, 1, 1};
    plan_topo t;
    ck_assert_int_eq(plan_topo_init(&t, 4, node_of, NULL), 0);
    plan pl;
    ck_assert_int_eq(plan_init(&pl, 4, PLAN_ALGO_DIRECT, PLAN_DUPLEX_FULL, NULL), 0);
    ck_assert_int_eq(plan_begin_step(&pl, NULL), 0);
    const int x[][3] = {{0, 2, 100}, {1, 3, 50}, {0, 1, 30}};
    for (int k = 0; k < 3; k++) {
        ck_assert_int_eq(plan_add_transfer(&pl, x[k][0], x[k][1], NULL), 0);
        ck_assert_int_eq(plan_add_segment(&pl, x[k][0], x[k][1], 0, (uint64_t)x[k][2], NULL), 0);
    }
    plan_cost_params c = simple();
    ck_assert_uint_eq(plan_cost_topo_plan(&pl, &t, &c), 157);
    c.local_beta_fs = 10000; /* on-node 10 ps per byte: rank 0 takes 10 + 5 + 300 */
    ck_assert_uint_eq(plan_cost_topo_plan(&pl, &t, &c), 7 + 315);
    c = simple();
    c.duplex_pct = 150; /* node 1 does not send: no duplex share */
    ck_assert_uint_eq(plan_cost_topo_plan(&pl, &t, &c), 157);
    ck_assert_int_eq(plan_begin_step(&pl, NULL), 0); /* step 2: 2 -> 0 (40) and 1 -> 3 (60) */
    ck_assert_int_eq(plan_add_transfer(&pl, 2, 0, NULL), 0);
    ck_assert_int_eq(plan_add_segment(&pl, 2, 0, 0, 40, NULL), 0);
    ck_assert_int_eq(plan_add_transfer(&pl, 1, 3, NULL), 0);
    ck_assert_int_eq(plan_add_segment(&pl, 1, 3, 50, 60, NULL), 0);
    ck_assert_uint_eq(plan_cost_topo_plan(&pl, &t, &c), 157 + 7 + 90); /* 60 * 150 % */
    plan_free(&pl);
    plan_topo_free(&t);
}
END_TEST

START_TEST(native_by_hand)
{
    /* 4 ranks, 100 bytes to every other, two per node, one block: every rank posts 6 messages;
     * each NIC sends and receives 400: 400 + 50 % of 400 = 600; on-node 100 each way at 0.1 ps:
     * 10 + 5. A rank: 100 + 5 * 10 + 600 = 750 (rank level: 100 + 50 + 300 + 150 = 600). */
    plan_matrix m;
    ck_assert_int_eq(plan_matrix_init(&m, 4, NULL), 0);
    for (int k = 0; k < 16; k++)
        m.bytes[k] = k % 5 ? 100 : 0;
    plan_topo t;
    ck_assert_int_eq(plan_topo_consecutive(&t, 4, 2, NULL), 0);
    plan_cost_params c = simple();
    ck_assert_uint_eq(plan_cost_native(&m, PLAN_NATIVE_ALLTOALLV, &c), 600);
    ck_assert_uint_eq(plan_cost_topo_native(&m, PLAN_NATIVE_ALLTOALLV, &t, &c), 750);
    /* node bound: NIC 400 bytes (400 ps) against 100 on-node bytes (10 ps) */
    ck_assert_uint_eq(plan_cost_topo_bound(&m, &t, PLAN_DUPLEX_FULL, &c), 400);
    ck_assert_uint_eq(plan_cost_bound(&m, PLAN_DUPLEX_FULL, &c), 300);
    /* pairwise alltoall (above 32 KiB): shifts 1 and 3 cross nodes for half the ranks (one per
     * node each way), shift 2 for all: 2 * (100 + 40000) + (100 + 80000) */
    for (int k = 0; k < 16; k++)
        m.bytes[k] = k % 5 ? 40000 : 0;
    ck_assert_uint_eq(plan_cost_topo_native(&m, PLAN_NATIVE_ALLTOALL, &t, &c),
                      2 * (100 + 40000) + 100 + 80000);
    plan_matrix_free(&m);
    plan_topo_free(&t);
}
END_TEST

/* Random parameters (integers, so the comparisons are exact). */
static plan_cost_params draw_params(uint64_t *st)
{
    static const uint32_t duplex[] = {100, 100, 130, 200, 250};
    plan_cost_params c = {.alpha_ps = rm_below(st, 10000000), .gap_ps = rm_below(st, 2000000),
                          .beta_fs = 1 + rm_below(st, 5000000),
                          .duplex_pct = duplex[rm_below(st, 5)],
                          .step_ps = rm_below(st, 5000000),
                          .native_pct = (uint32_t)rm_below(st, 300),
                          .throttle = 1 + (uint32_t)rm_below(st, 40), .plan_ps = 1,
                          .local_alpha_ps = rm_below(st, 2000000),
                          .local_beta_fs = 1 + rm_below(st, 500000)};
    return c;
}

START_TEST(one_rank_per_node_is_the_rank_model)
{
    uint64_t st = 0xc057;
    for (int k = 0; k < 120; k++) {
        int p = 1 + (int)rm_below(&st, 40);
        plan_matrix m;
        ck_assert_int_eq(plan_matrix_init(&m, p, NULL), 0);
        random_matrix(&m, (rm_shape)(k % RM_SHAPES), tl_draw_max(&st), &st);
        if (k % 4 == 0) /* uniform sizes around the alltoall thresholds */
            for (size_t e = 0; e < (size_t)p * p; e++)
                m.bytes[e] = (uint64_t[]){200, 1000, 40000}[k % 3];
        plan_topo t;
        ck_assert_int_eq(plan_topo_consecutive(&t, p, 1, NULL), 0);
        plan_cost_params c = draw_params(&st);
        for (int kind = 0; kind < 3; kind++)
            ck_assert_uint_eq(plan_cost_topo_native(&m, (plan_native_kind)kind, &t, &c),
                              plan_cost_native(&m, (plan_native_kind)kind, &c));
        for (int d = 0; d < 2; d++) {
            ck_assert_uint_eq(plan_cost_topo_bound(&m, &t, (plan_duplex)d, &c),
                              plan_cost_bound(&m, (plan_duplex)d, &c));
            for (int a = PLAN_ALGO_DIRECT; a < PLAN_ALGO_COUNT; a++) {
                plan_options o = {.duplex = (plan_duplex)d, .min_step_bytes = PLAN_MIN_STEP_AUTO};
                plan pl;
                if (plan_build((plan_algo)a, &m, &o, &pl, NULL))
                    continue; /* walker-otto on other patterns */
                uint64_t want = plan_cost_plan(&pl, &c);
                ck_assert_msg(plan_cost_topo_plan(&pl, &t, &c) == want &&
                                  plan_cost_topo_plan(&pl, NULL, &c) == want,
                              "#%d %s: %llu, rank level %llu", k, plan_algo_name((plan_algo)a),
                              (unsigned long long)plan_cost_topo_plan(&pl, &t, &c),
                              (unsigned long long)want);
                plan_free(&pl);
            }
        }
        plan_topo_free(&t);
        plan_matrix_free(&m);
    }
}
END_TEST

START_TEST(never_below_the_node_bound)
{
    uint64_t st = 0xb0d;
    for (int k = 0; k < 60; k++) {
        int p = 2 + (int)rm_below(&st, 30);
        plan_matrix m;
        ck_assert_int_eq(plan_matrix_init(&m, p, NULL), 0);
        random_matrix(&m, (rm_shape)(k % RM_SHAPES), tl_draw_max(&st), &st);
        plan_topo t;
        ck_assert_int_eq(plan_topo_consecutive(&t, p, 1 + (int)rm_below(&st, (uint64_t)p), NULL),
                         0);
        plan_cost_params c = draw_params(&st);
        uint64_t bound = plan_cost_topo_bound(&m, &t, PLAN_DUPLEX_FULL, &c);
        ck_assert_uint_ge(plan_cost_topo_native(&m, PLAN_NATIVE_ALLTOALLV, &t, &c), bound);
        for (int a = PLAN_ALGO_DIRECT; a < PLAN_ALGO_COUNT; a++)
            for (int d = 0; d < 2; d++) {
                plan_options o = {.duplex = (plan_duplex)d, .topo = &t};
                plan pl;
                if (plan_build((plan_algo)a, &m, &o, &pl, NULL))
                    continue;
                ck_assert_msg(plan_cost_topo_plan(&pl, &t, &c) >= bound, "#%d %s: below bound",
                              k, plan_algo_name((plan_algo)a));
                plan_free(&pl);
            }
        plan_topo_free(&t);
        plan_matrix_free(&m);
    }
}
END_TEST

/* Parses text as a calibration file into *c. */
static int parse_text(const char *text, plan_cost_params *c, plan_error *err)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    rewind(f);
    int rc = plan_cost_parse(f, c, err);
    fclose(f);
    return rc;
}

START_TEST(calibration_on_node_figures)
{
    plan_cost_params d = plan_cost_defaults(), c = d;
    ck_assert_uint_eq(d.local_alpha_ps, d.alpha_ps / 5);
    ck_assert_uint_eq(d.local_beta_fs, d.beta_fs / 10);
    /* a file from before the on-node figures: they follow its NIC figures */
    ck_assert_int_eq(parse_text("alpha_s = 1e-5\nbeta_s_per_byte = 2e-9\n", &c, NULL), 0);
    ck_assert_uint_eq(c.local_alpha_ps, 2000000);
    ck_assert_uint_eq(c.local_beta_fs, 200000);
    c = d; /* a file without alpha or beta keeps the built-in on-node figures */
    ck_assert_int_eq(parse_text("gap_s = 1e-6\n", &c, NULL), 0);
    ck_assert_uint_eq(c.local_alpha_ps, d.local_alpha_ps);
    c = d; /* given ones are kept */
    ck_assert_int_eq(parse_text("beta_s_per_byte = 2e-9\nlocal_beta_s_per_byte = 5e-10\n"
                                "local_alpha_s = 3e-7\n", &c, NULL), 0);
    ck_assert_uint_eq(c.local_beta_fs, 500000);
    ck_assert_uint_eq(c.local_alpha_ps, 300000);
    plan_error err = {0};
    ck_assert_int_eq(parse_text("local_beta_s_per_byte = 0\n", &c, &err), -1);
    ck_assert_int_eq(err.line, 1);
    /* written and read back */
    FILE *f = tmpfile();
    ck_assert_int_eq(plan_cost_write(f, &c), 0);
    rewind(f);
    plan_cost_params back = d;
    ck_assert_int_eq(plan_cost_parse(f, &back, NULL), 0);
    fclose(f);
    ck_assert_uint_eq(back.local_alpha_ps, c.local_alpha_ps);
    ck_assert_uint_eq(back.local_beta_fs, c.local_beta_fs);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("node cost");
    TCase *basic = tcase_create("basic"), *props = tcase_create("properties");
    tcase_add_test(basic, plan_by_hand);
    tcase_add_test(basic, native_by_hand);
    tcase_add_test(basic, calibration_on_node_figures);
    tcase_add_test(props, one_rank_per_node_is_the_rank_model);
    tcase_add_test(props, never_below_the_node_bound);
    return tl_run(s, basic, props);
}
