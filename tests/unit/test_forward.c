/* Tests of the forwarding planner (plan/forward.c over the half-duplex engine, plan/half_engine.c;
 * Sanders and Solis-Oba): validity by the independent verifier, the paper's time bounds, its
 * lower-bound instance, the 12-round structure for two odd cycles, determinism. MPI-free; run
 * by Check. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "plan/families.h"
#include "plan/plan.h"
#include "matrix_classes.h"
#include "plan_testlib.h"
#include "random_matrix.h"

/* Plans m with packet size S and checks the plan with the verifier. */
static plan forward_checked(const plan_matrix *m, uint64_t S)
{
    plan_options o = {.packet_bytes = S};
    plan pl = tl_build_checked(PLAN_ALGO_FORWARD, m, &o);
    ck_assert_int_eq(pl.duplex, PLAN_DUPLEX_HALF);
    ck_assert_int_eq(pl.algo, PLAN_ALGO_FORWARD);
    ck_assert_uint_eq(pl.packet_bytes, S);
    return pl;
}

typedef unsigned __int128 u128;

/* Whether the bandwidth term T (bytes) meets Theorem 1, compared exactly: in packets
 * T / S <= 6/5 (h + 1) for even p, (6/5 + 2/p)(h + 1) for odd p, i.e.
 * 5 p T <= (6 p + 10 [p odd]) (h + 1) S, plus slack bytes (5 p slack on the left). */
static int meets_bound(uint64_t T, uint64_t h, uint64_t S, int p, u128 slack5p)
{
    u128 lhs = (u128)5 * (u128)p * T;
    u128 rhs = (u128)(6 * (uint64_t)p + (p % 2 ? 10 : 0)) * (u128)(h + 1) * S;
    return lhs <= rhs + slack5p;
}

/* T / (S (h + 1)) as a double, for messages. */
static double ratio(uint64_t T, uint64_t h, uint64_t S)
{
    return (double)T / (double)S / (double)(h + 1);
}

/* A p x p matrix of disjoint directed cycles of length len (mc_cycles). */
static plan_matrix cycles(int p, int len, uint64_t bytes)
{
    plan_matrix m;
    ck_assert_int_eq(plan_matrix_init(&m, p, NULL), 0);
    mc_cycles(&m, len, bytes);
    return m;
}

/* Number of transfers of pl that carry data their sender did not originate or that does not
 * end at their receiver (forwarding legs). */
static size_t forwarded_legs(const plan *pl)
{
    size_t n = 0;
    for (size_t t = 0; t < pl->ntransfers; t++) {
        const plan_transfer *tr = &pl->transfers[t];
        const plan_segment *sg = &pl->segments[tr->seg_begin];
        n += sg->origin != tr->src || sg->target != tr->dst;
    }
    return n;
}

/* The largest transfer of step s. */
static uint64_t step_max(const plan *pl, size_t s)
{
    uint64_t mx = 0;
    for (size_t t = pl->step_begin[s]; t < pl->step_begin[s + 1]; t++)
        mx = pl->transfers[t].bytes > mx ? pl->transfers[t].bytes : mx;
    return mx;
}

START_TEST(forward_basics)
{
    plan_matrix m;
    plan pl;
    plan_error err = {0};
    ck_assert_int_eq(plan_matrix_init(&m, 1, NULL), 0);
    m.bytes[0] = 99; /* a self-message only */
    ck_assert_int_eq(plan_forward(&m, 0, &pl, &err), -1);
    pl = forward_checked(&m, 10);
    ck_assert_uint_eq(pl.nsteps, 0);
    plan_free(&pl);
    plan_matrix_free(&m);

    ck_assert_int_eq(plan_matrix_init(&m, 6, NULL), 0); /* nothing to send */
    pl = forward_checked(&m, 10);
    ck_assert_uint_eq(pl.nsteps, 0);
    plan_free(&pl);
    /* two ranks: no odd cycle, 1 byte and 7 bytes in two steps (no forwarding) */
    m.bytes[0 * 6 + 1] = 1;
    m.bytes[1 * 6 + 0] = 7;
    pl = forward_checked(&m, 4096);
    ck_assert_uint_eq(forwarded_legs(&pl), 0);
    ck_assert_uint_eq(plan_bandwidth_term(&pl), 8);
    plan_free(&pl);
    plan_matrix_free(&m);

    plan_algo a;
    ck_assert_int_eq(plan_algo_parse("forward", &a), 0);
    ck_assert_int_eq(a, PLAN_ALGO_FORWARD);
    ck_assert_str_eq(plan_algo_name(PLAN_ALGO_FORWARD), "forward");
}
END_TEST

/* Two 3-cycles of one packet each (Fig. 1): 12 rounds of a fifth of a packet, each cycle's
 * closing packet forwarded in three pieces by the other cycle (12 forwarding legs), 12/5
 * packets in all where 3 are needed without forwarding. */
START_TEST(forward_two_triangles)
{
    plan_matrix m = cycles(6, 3, 5);
    plan pl = forward_checked(&m, 5);
    ck_assert_uint_eq(pl.nsteps, 12);
    ck_assert_uint_eq(plan_bandwidth_term(&pl), 12);
    ck_assert_uint_eq(forwarded_legs(&pl), 12);
    for (size_t s = 0; s < pl.nsteps; s++)
        ck_assert_uint_eq(step_max(&pl, s), 1);
    plan_free(&pl);
    plan_matrix_free(&m);
    /* a 3-cycle and an idle rank, which forwards all three pieces */
    m = cycles(4, 3, 500);
    pl = forward_checked(&m, 500);
    ck_assert_uint_eq(plan_bandwidth_term(&pl), 1200);
    size_t via_idle = 0;
    for (size_t t = 0; t < pl.ntransfers; t++)
        via_idle += pl.transfers[t].src == 3 || pl.transfers[t].dst == 3;
    ck_assert_uint_eq(via_idle, 6);
    plan_free(&pl);
    plan_matrix_free(&m);
}
END_TEST

/* Sec. 2.5's instance: P = 3k disjoint 3-cycles with messages of h/2 packets. Without
 * forwarding at most one message of a 3-cycle moves at a time (any two share a rank), so a
 * direct half-duplex schedule needs 3h/2: the direct family in half duplex (plan_build) takes
 * exactly that, as does plan_regular's 1-factorisation. With forwarding: 6/5 (h + 1)
 * for even P, (6/5 + 2/P)(h + 1) for odd P, and never below the paper's lower bound
 * 6/5 (1 + 3/(5P - 3)) h for odd P (6/5 h for even). */
START_TEST(forward_lower_bound_instance)
{
    static const uint64_t sizes[] = {5, 4095, 65536};
    for (int k = 1; k <= 12; k++)
        for (int si = 0; si < 3; si++) {
            uint64_t S = sizes[si], half = 200; /* h = 400 packets */
            int p = 3 * k;
            plan_matrix m = cycles(p, 3, half * S);
            uint64_t h = tl_h_packets(&m, S);
            ck_assert_uint_eq(h, 2 * half);
            plan_options half_duplex = {.duplex = PLAN_DUPLEX_HALF};
            plan direct = tl_build_checked(PLAN_ALGO_DIRECT, &m, &half_duplex);
            ck_assert_int_eq(direct.duplex, PLAN_DUPLEX_HALF);
            ck_assert_uint_eq(plan_bandwidth_term(&direct), 3 * half * S);
            plan_free(&direct);
            ck_assert_int_eq(plan_regular(&m, PLAN_DUPLEX_HALF, PLAN_ALGO_DIRECT, &direct, NULL), 0);
            ck_assert_int_eq(plan_verify(&m, &direct, NULL), 0);
            ck_assert_uint_ge(plan_bandwidth_term(&direct), 3 * half * S);
            plan_free(&direct);
            plan pl = forward_checked(&m, S);
            uint64_t T = plan_bandwidth_term(&pl);
            u128 slack = S % 5 ? (u128)6 * p * pl.nsteps : 0;
            ck_assert_msg(meets_bound(T, h, S, p, slack), "p=%d S=%llu: T/S = %.2f, %.4f (h+1)", p,
                          (unsigned long long)S, (double)T / (double)S, ratio(T, h, S));
            if (p % 2 == 0) /* 6/5 (h + 1) < 3h/2 by the factor 4/5 (h + 1)/h */
                ck_assert(5 * (u128)T <= (u128)6 * (h + 1) * S + (S % 5 ? 6 * (u128)pl.nsteps : 0));
            /* the lower bound: 5 (5p - 3) T >= 6 (5p) h S (odd p), 5 T >= 6 h S (even p) */
            if (p % 2)
                ck_assert((u128)5 * (5 * p - 3) * T >= (u128)6 * 5 * p * h * S);
            else
                ck_assert((u128)5 * T >= (u128)6 * h * S);
            plan_free(&pl);
            plan_matrix_free(&m);
        }
}
END_TEST

/* Percentage of property tests with 41-64 ranks (tl_draw_p). */
enum { LARGE_P_PERCENT = 8 };

/* Packet sizes: multiples of 5 (exact fifths), and others, 1 byte included. */
static uint64_t draw_packet(uint64_t *st)
{
    static const uint64_t sizes[] = {5, 10, 40, 1000, 65535, 1, 2, 3, 7, 64, 4095, 4096};
    return sizes[rm_below(st, sizeof sizes / sizeof *sizes)];
}

/* Theorem 1 on 10,000 random matrices of every shape: every plan valid, and its time in packets at
 * most 6/5 (h + 1) (even P) or (6/5 + 2/P)(h + 1) (odd P), exactly when the packet is a
 * multiple of 5 bytes; otherwise fifths are rounded to bytes, which the planner keeps to 6/5
 * byte per iteration, so up to 6/5 byte per step is allowed. */
START_TEST(forward_bounds_random)
{
    uint64_t st = 0x5eedf0a1;
    double worst[2][2] = {{0}}; /* [S multiple of 5][p odd] */
    int bad = 0;
    char msg[400] = "";
    for (int n = 0; n < 10000 && !bad; n++) {
        int p = tl_draw_p(&st, LARGE_P_PERCENT);
        rm_shape shape = (rm_shape)(n % RM_SHAPES);
        /* dense shapes at large P make big plans: keep them to a few */
        if ((shape == RM_DENSE || shape == RM_HEAVY_TAILED || shape == RM_UNIFORM) && p > 24 && n % 11)
            p = 12 + n % 13;
        uint64_t S = draw_packet(&st), max = tl_draw_max(&st);
        plan_matrix m;
        ck_assert_int_eq(plan_matrix_init(&m, p, NULL), 0);
        random_matrix(&m, shape, max, &st);
        plan pl;
        plan_error err = {0};
        if (plan_forward(&m, S, &pl, &err) || plan_verify(&m, &pl, &err)) {
            snprintf(msg, sizeof msg, "#%d %s p=%d S=%llu: %s", n, rm_shape_name(shape), p,
                     (unsigned long long)S, err.text);
            bad = 1;
            plan_matrix_free(&m);
            break;
        }
        uint64_t T = plan_bandwidth_term(&pl), h = tl_h_packets(&m, S);
        u128 slack = S % 5 ? (u128)6 * p * pl.nsteps : 0;
        if (!meets_bound(T, h, S, p, slack)) {
            snprintf(msg, sizeof msg, "#%d %s p=%d S=%llu: %.4f (h+1), steps %zu", n,
                     rm_shape_name(shape), p, (unsigned long long)S, ratio(T, h, S), pl.nsteps);
            bad = 1;
        }
        double r = h ? ratio(T, h, S) / (1.2 + (p % 2 ? 2.0 / p : 0)) : 0;
        double *w = &worst[S % 5 == 0][p % 2];
        *w = r > *w ? r : *w;
        plan_free(&pl);
        plan_matrix_free(&m);
    }
    ck_assert_msg(!bad, "%s", msg);
    printf("forward: largest time / bound: S multiple of 5: even p %.4f, odd p %.4f; other S: "
           "even p %.4f, odd p %.4f\n", worst[1][0], worst[1][1], worst[0][0], worst[0][1]);
}
END_TEST

/* Long odd cycles and mixes of cycles of every length with big messages: the deferred pieces
 * of odd P stay small enough for the odd bound. */
START_TEST(forward_cycles)
{
    int bad = 0;
    char msg[400] = "";
    for (int p = 2; p <= 33 && !bad; p++)
        for (int len = 2; len <= p && !bad; len++) {
            uint64_t S = len % 2 ? 1000 : 4096;
            plan_matrix m = cycles(p, len, 777 * S + (uint64_t)len);
            plan pl;
            plan_error err = {0};
            if (plan_forward(&m, S, &pl, &err) || plan_verify(&m, &pl, &err)) {
                snprintf(msg, sizeof msg, "p=%d len=%d: %s", p, len, err.text);
                bad = 1;
            } else {
                uint64_t T = plan_bandwidth_term(&pl), h = tl_h_packets(&m, S);
                if (!meets_bound(T, h, S, p, S % 5 ? (u128)6 * p * pl.nsteps : 0)) {
                    snprintf(msg, sizeof msg, "p=%d len=%d: %.4f (h+1)", p, len, ratio(T, h, S));
                    bad = 1;
                }
                plan_free(&pl);
            }
            plan_matrix_free(&m);
        }
    ck_assert_msg(!bad, "%s", msg);
}
END_TEST

/* Forward options with a packet size from draw_packet. */
static plan_options draw_forward_options(uint64_t *st)
{
    return (plan_options){.packet_bytes = draw_packet(st)};
}

START_TEST(forward_deterministic)
{
    tl_check_deterministic(PLAN_ALGO_FORWARD, 0x5eedf0a2, 150, LARGE_P_PERCENT, 30,
                           draw_forward_options);
}
END_TEST

/* The plan-size limit (plan_build's max_segments, plan_forward_capped): one segment below the
 * unlimited plan's size, planning fails the same way every time; at that size it gives the
 * same plan; 0 means no limit. Odd and even P, packets with exact and rounded fifths. */
START_TEST(forward_segment_limit)
{
    uint64_t st = 0x5eedf0a3;
    for (int n = 0; n < 40; n++) {
        plan_matrix m;
        ck_assert_int_eq(plan_matrix_init(&m, 2 + n % 11, NULL), 0);
        random_matrix(&m, n % 2 ? RM_DENSE : RM_HEAVY_TAILED, tl_draw_max(&st), &st);
        if (plan_matrix_messages(&m) < 2) {
            plan_matrix_free(&m);
            continue;
        }
        plan_options o = {.packet_bytes = draw_packet(&st)};
        tl_check_segment_limit(PLAN_ALGO_FORWARD, &m, &o);
        plan full = forward_checked(&m, o.packet_bytes), pl;
        plan_error err = {0};
        ck_assert_int_eq(plan_forward_capped(&m, o.packet_bytes, full.nsegments - 1, &pl, &err), -1);
        ck_assert_int_eq(plan_forward_capped(&m, o.packet_bytes, 0, &pl, &err), 0);
        ck_assert(tl_plans_equal(&full, &pl));
        plan_free(&pl);
        plan_free(&full);
        plan_matrix_free(&m);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("forward");
    TCase *basic = tcase_create("basic"), *props = tcase_create("properties");
    tcase_add_test(basic, forward_basics);
    tcase_add_test(basic, forward_two_triangles);
    tcase_add_test(props, forward_lower_bound_instance);
    tcase_add_test(props, forward_bounds_random);
    tcase_add_test(props, forward_cycles);
    tcase_add_test(props, forward_deterministic);
    tcase_add_test(props, forward_segment_limit);
    return tl_run(s, basic, props);
}
