/* Unit and property tests of plan/: matrix figures, the direct planner, the verifier and the
 * per-rank view. MPI-free; run by Check. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "plan/families.h"
#include "plan/local.h"
#include "plan/plan.h"
#include "plan/walker_otto.h"
#include "matrix_classes.h"
#include "plan_testlib.h"
#include "random_matrix.h"
#include "walker_otto_figures.h"

/* A p x p matrix from a row-major literal. */
static plan_matrix literal(int p, const uint64_t *v)
{
    plan_matrix m;
    ck_assert_int_eq(plan_matrix_init(&m, p, NULL), 0);
    memcpy(m.bytes, v, sizeof *v * (size_t)p * p);
    return m;
}

/* Plans m with the direct planner and minimum step min_step (0: exact), checks it with the
 * verifier and returns it. */
static plan plan_checked(const plan_matrix *m, uint64_t min_step)
{
    plan_options o = {.min_step_bytes = min_step};
    return tl_build_checked(PLAN_ALGO_DIRECT, m, &o);
}

START_TEST(matrix_figures)
{
    const uint64_t v[9] = {7, 5, 0, /**/ 3, 9, 4, /**/ 0, 6, 1};
    plan_matrix m = literal(3, v);
    ck_assert_uint_eq(plan_matrix_sent(&m, 0), 5);
    ck_assert_uint_eq(plan_matrix_sent(&m, 1), 7);
    ck_assert_uint_eq(plan_matrix_received(&m, 1), 11);
    ck_assert_uint_eq(plan_matrix_lower_bound(&m, PLAN_DUPLEX_FULL), 11);
    ck_assert_uint_eq(plan_matrix_lower_bound(&m, PLAN_DUPLEX_HALF), 18);
    ck_assert_uint_eq(plan_matrix_messages(&m), 4);
    plan_matrix_free(&m);
    plan_error err;
    ck_assert_int_eq(plan_matrix_init(&m, 0, &err), -1);
    ck_assert_ptr_null(m.bytes);
}
END_TEST

START_TEST(direct_two_ranks)
{
    const uint64_t v[4] = {100, 5, 3, 100};
    plan_matrix m = literal(2, v);
    plan pl = plan_checked(&m, 0);
    ck_assert_uint_eq(pl.nsteps, 2);
    ck_assert_uint_eq(plan_bandwidth_term(&pl), 5);
    /* step 0 moves 3 bytes both ways; step 1 the last 2 bytes of 0 -> 1, at offset 3 */
    ck_assert_uint_eq(pl.step_begin[1], 2);
    const plan_transfer *last = &pl.transfers[pl.ntransfers - 1];
    ck_assert_int_eq(last->src, 0);
    ck_assert_uint_eq(pl.segments[last->seg_begin].offset, 3);
    ck_assert_uint_eq(last->bytes, 2);
    plan_free(&pl);
    plan_matrix_free(&m);
}
END_TEST

START_TEST(direct_single_rank_and_zero)
{
    const uint64_t one[1] = {42};
    plan_matrix m = literal(1, one);
    plan pl = plan_checked(&m, 0);
    ck_assert_uint_eq(pl.nsteps, 0);
    plan_free(&pl);
    plan_matrix_free(&m);
    ck_assert_int_eq(plan_matrix_init(&m, 5, NULL), 0);
    pl = plan_checked(&m, 0);
    ck_assert_uint_eq(pl.nsteps, 0);
    ck_assert_uint_eq(plan_bandwidth_term(&pl), 0);
    plan_free(&pl);
    plan_matrix_free(&m);
}
END_TEST

/* Percentage of property tests with 41-64 ranks (tl_draw_p). */
enum { LARGE_P_PERCENT = 5 };

/* The paper's guarantees of the exact direct plan, on 10,000 random matrices of every shape:
 * valid (independent verifier), bandwidth term == lower bound, steps <= messages + 2P, and in
 * each step every transfer moves the same number of bytes. */
START_TEST(direct_properties_random)
{
    uint64_t st = 0x5eed0001;
    for (int n = 0; n < 10000; n++) {
        int p = tl_draw_p(&st, LARGE_P_PERCENT);
        rm_shape shape = (rm_shape)(n % RM_SHAPES);
        /* dense shapes at large P make big plans: keep them to a few */
        if ((shape == RM_DENSE || shape == RM_HEAVY_TAILED) && p > 40 && n % 7)
            p = 24;
        plan_matrix m;
        ck_assert_int_eq(plan_matrix_init(&m, p, NULL), 0);
        uint64_t max = tl_draw_max(&st);
        random_matrix(&m, shape, max, &st);
        plan pl = plan_checked(&m, 0);
        uint64_t lb = plan_matrix_lower_bound(&m, PLAN_DUPLEX_FULL);
        size_t nnz = plan_matrix_messages(&m);
        ck_assert_msg(plan_bandwidth_term(&pl) == lb, "#%d %s p=%d: bandwidth %llu != bound %llu",
                      n, rm_shape_name(shape), p, (unsigned long long)plan_bandwidth_term(&pl),
                      (unsigned long long)lb);
        ck_assert_msg(pl.nsteps <= nnz + 2 * (size_t)p, "#%d %s p=%d: %zu steps > %zu + 2p", n,
                      rm_shape_name(shape), p, pl.nsteps, nnz);
        ck_assert_msg(tl_uneven_step(&pl) < 0, "#%d: step %ld moves different sizes", n,
                      tl_uneven_step(&pl));
        plan_free(&pl);
        plan_matrix_free(&m);
    }
}
END_TEST

/* bandwidth term plus price per step, as plan_direct weighs plans against each other */
static unsigned __int128 priced(const plan *pl, uint64_t price)
{
    return (unsigned __int128)plan_bandwidth_term(pl) + (unsigned __int128)price * pl->nsteps;
}

/* The widest-step decomposition: valid, exact (bandwidth term == bound), at most messages + 2p
 * steps, deterministic, a size limit refused the same way; on dense matrices of 4 to
 * PLAN_WIDEST_MAX_P ranks fewer than half the exact decomposition's steps in total; more than
 * 64 ranks refused. */
START_TEST(direct_widest_random)
{
    uint64_t st = 0x5eed0007;
    size_t widest_steps = 0, exact_steps = 0;
    for (int n = 0; n < 3000; n++) {
        int p = 1 + (int)rm_below(&st, PLAN_WIDEST_MAX_P);
        rm_shape shape = (rm_shape)(n % RM_SHAPES);
        plan_matrix m;
        ck_assert_int_eq(plan_matrix_init(&m, p, NULL), 0);
        random_matrix(&m, shape, tl_draw_max(&st), &st);
        plan pl, again;
        plan_error err;
        ck_assert_msg(plan_direct_widest(&m, 0, &pl, &err) == 0, "#%d: %s", n, err.text);
        ck_assert_msg(plan_verify(&m, &pl, &err) == 0, "#%d %s p=%d: %s", n,
                      rm_shape_name(shape), p, err.text);
        uint64_t lb = plan_matrix_lower_bound(&m, PLAN_DUPLEX_FULL);
        ck_assert_msg(plan_bandwidth_term(&pl) == lb, "#%d %s p=%d: bandwidth %llu != bound %llu",
                      n, rm_shape_name(shape), p, (unsigned long long)plan_bandwidth_term(&pl),
                      (unsigned long long)lb);
        ck_assert_msg(pl.nsteps <= plan_matrix_messages(&m) + 2 * (size_t)p,
                      "#%d p=%d: %zu steps", n, p, pl.nsteps);
        ck_assert_int_eq(plan_direct_widest(&m, 0, &again, &err), 0);
        ck_assert(tl_plans_equal(&pl, &again));
        plan_free(&again);
        if (pl.nsegments > 1)
            ck_assert_int_eq(plan_direct_widest(&m, pl.nsegments - 1, &again, &err), -1);
        if (shape == RM_DENSE && p >= 4) {
            plan ex = plan_checked(&m, 0);
            widest_steps += pl.nsteps;
            exact_steps += ex.nsteps;
            plan_free(&ex);
        }
        plan_free(&pl);
        plan_matrix_free(&m);
    }
    ck_assert_msg(2 * widest_steps < exact_steps, "widest %zu steps, exact %zu", widest_steps,
                  exact_steps);
    plan_matrix big;
    plan pl;
    plan_error err;
    ck_assert_int_eq(plan_matrix_init(&big, 65, NULL), 0);
    random_matrix(&big, RM_DENSE, 1000, &st);
    ck_assert_int_eq(plan_direct_widest(&big, 0, &pl, &err), -1); /* more than 64 ranks */
    plan_matrix_free(&big);
}
END_TEST

/* The widest plan with a priced whole-message tail: valid, deterministic, the widest plan
 * itself without a price, and never dearer at its price than the widest plan or either
 * whole-message plan of the matrix (the splits at all and at none of the widest steps); on
 * skewed and sparse matrices strictly cheaper than all three in some cases (a split in
 * between wins); under a size limit below its plan, the widest plan where that fits, else a
 * failure. */
START_TEST(direct_widest_priced_random)
{
    uint64_t st = 0x5eed0009;
    int between = 0;
    for (int n = 0; n < 2000; n++) {
        int p = 1 + (int)rm_below(&st, PLAN_WIDEST_MAX_P);
        rm_shape shape = (rm_shape)(n % RM_SHAPES);
        plan_matrix m;
        ck_assert_int_eq(plan_matrix_init(&m, p, NULL), 0);
        uint64_t max = tl_draw_max(&st);
        random_matrix(&m, shape, max, &st);
        uint64_t price = 1 + rm_below(&st, max / 4 + 1);
        plan wd, sw, gr, got, again;
        plan_error err;
        ck_assert_int_eq(plan_direct_widest(&m, 0, &wd, &err), 0);
        ck_assert_int_eq(plan_stepwise(&m, &sw, &err), 0);
        ck_assert_int_eq(plan_greedy(&m, &gr, &err), 0);
        ck_assert_msg(plan_direct_widest_priced(&m, price, 0, &got, &err) == 0, "#%d: %s", n,
                      err.text);
        ck_assert_msg(plan_verify(&m, &got, &err) == 0, "#%d %s p=%d: %s", n, rm_shape_name(shape),
                      p, err.text);
        ck_assert_int_eq(got.algo, PLAN_ALGO_DIRECT);
        unsigned __int128 cost = priced(&got, price);
        ck_assert_msg(cost <= priced(&wd, price) && cost <= priced(&sw, price) &&
                          cost <= priced(&gr, price),
                      "#%d %s p=%d price %llu: dearer than widest or whole messages", n,
                      rm_shape_name(shape), p, (unsigned long long)price);
        between += cost < priced(&wd, price) && cost < priced(&sw, price) &&
                   cost < priced(&gr, price);
        ck_assert_int_eq(plan_direct_widest_priced(&m, price, 0, &again, &err), 0);
        ck_assert(tl_plans_equal(&got, &again));
        plan_free(&again);
        if (got.nsegments > 1) { /* the widest plan where it fits, else a failure */
            int fits = wd.nsegments < got.nsegments;
            ck_assert_int_eq(plan_direct_widest_priced(&m, price, got.nsegments - 1, &again, &err),
                             fits ? 0 : -1);
            if (fits) {
                ck_assert(tl_plans_equal(&again, &wd));
                plan_free(&again);
            }
        }
        ck_assert_int_eq(plan_direct_widest_priced(&m, 0, 0, &again, &err), 0);
        ck_assert(tl_plans_equal(&again, &wd));
        plan_free(&again);
        plan_free(&wd);
        plan_free(&sw);
        plan_free(&gr);
        plan_free(&got);
        plan_matrix_free(&m);
    }
    ck_assert_msg(between >= 20, "a split between all and none of the widest steps won %d times",
                  between);
}
END_TEST

/* With a step price, direct keeps whichever of its own plan and the widest-step plan (with a
 * minimum step, with its priced whole-message tail: plan_direct_widest_priced) has the
 * smaller bandwidth term plus price per step (its own on a tie), exact or with a minimum step;
 * above PLAN_WIDEST_MAX_P ranks, or without a price, its own. */
START_TEST(direct_step_price_random)
{
    uint64_t st = 0x5eed0008;
    for (int n = 0; n < 2000; n++) {
        int p = 1 + (int)rm_below(&st, PLAN_WIDEST_MAX_P + 4);
        plan_matrix m;
        ck_assert_int_eq(plan_matrix_init(&m, p, NULL), 0);
        uint64_t max = tl_draw_max(&st);
        random_matrix(&m, (rm_shape)(n % RM_SHAPES), max, &st);
        uint64_t min_step = rm_below(&st, 2) ? 0 : 1 + rm_below(&st, max);
        uint64_t price = rm_below(&st, 5) ? 1 + rm_below(&st, 4 * max) : 0;
        plan_direct_opts own_opts = {.min_step_bytes = min_step};
        plan_direct_opts priced_opts = {.min_step_bytes = min_step, .step_price = price};
        plan own, wd, got;
        plan_error err;
        ck_assert_int_eq(plan_direct(&m, &own_opts, &own, &err), 0);
        ck_assert_int_eq(plan_direct(&m, &priced_opts, &got, &err), 0);
        ck_assert_msg(plan_verify(&m, &got, &err) == 0, "#%d p=%d: %s", n, p, err.text);
        if (price && p <= PLAN_WIDEST_MAX_P && !plan_matrix_is_uniform(&m, NULL)) {
            ck_assert_int_eq(plan_direct_widest_priced(&m, min_step ? price : 0, 0, &wd, &err), 0);
            const plan *want = priced(&wd, price) < priced(&own, price) ? &wd : &own;
            ck_assert_msg(tl_plans_equal(&got, want), "#%d p=%d price %llu: not the cheaper plan",
                          n, p, (unsigned long long)price);
            plan_free(&wd);
        } else {
            ck_assert_msg(tl_plans_equal(&got, &own), "#%d p=%d: the plan changed", n, p);
        }
        plan_free(&own);
        plan_free(&got);
        plan_matrix_free(&m);
    }
}
END_TEST

/* The first step with a transfer that is shorter than the step's largest or than min_step
 * without ending its message, or -1. */
static ssize_t short_step(const plan_matrix *m, const plan *pl, uint64_t min_step)
{
    for (size_t s = 0; s < pl->nsteps; s++) {
        uint64_t mx = 0;
        for (size_t t = pl->step_begin[s]; t < pl->step_begin[s + 1]; t++)
            mx = pl->transfers[t].bytes > mx ? pl->transfers[t].bytes : mx;
        for (size_t t = pl->step_begin[s]; t < pl->step_begin[s + 1]; t++) {
            const plan_transfer *tr = &pl->transfers[t];
            const plan_segment *sg = &pl->segments[tr->seg_begin];
            int ends = sg->offset + sg->bytes == plan_matrix_at(m, tr->src, tr->dst);
            if (!ends && (tr->bytes != mx || tr->bytes < min_step))
                return (ssize_t)s;
        }
    }
    return -1;
}

/* With a minimum step size the plan stays valid, each step is at least min_step wide unless
 * every message in it ends, and the bandwidth term exceeds the bound by at most min_step per
 * step. */
START_TEST(direct_min_step_random)
{
    uint64_t st = 0x5eed0002;
    for (int n = 0; n < 3000; n++) {
        int p = tl_draw_p(&st, LARGE_P_PERCENT);
        plan_matrix m;
        ck_assert_int_eq(plan_matrix_init(&m, p, NULL), 0);
        uint64_t max = tl_draw_max(&st);
        random_matrix(&m, (rm_shape)(n % RM_SHAPES), max, &st);
        uint64_t min_step = 1 + rm_below(&st, max);
        plan pl = plan_checked(&m, min_step);
        uint64_t lb = plan_matrix_lower_bound(&m, PLAN_DUPLEX_FULL);
        ck_assert_msg(plan_bandwidth_term(&pl) <= lb + min_step * pl.nsteps,
                      "#%d p=%d: bandwidth %llu > %llu + %llu * %zu", n, p,
                      (unsigned long long)plan_bandwidth_term(&pl), (unsigned long long)lb,
                      (unsigned long long)min_step, pl.nsteps);
        ck_assert_uint_ge(plan_bandwidth_term(&pl), lb);
        ssize_t bad = short_step(&m, &pl, min_step);
        ck_assert_msg(bad < 0, "#%d: step %zd has a short transfer mid-message", n, bad);
        plan_free(&pl);
        plan_matrix_free(&m);
    }
}
END_TEST

/* With a minimum step, direct keeps whole messages (the greedy schedule) where they stay
 * within the bound, and splits them where they would not: a dense random matrix goes whole; a
 * rank forwarding a large message in halves (0 -> 1: H; 1 -> 2, 1 -> 3: H/2 each) would take
 * 3H/2 whole, so it is split and stays within min_step per step of H. */
START_TEST(direct_min_step_whole_or_split)
{
    uint64_t st = 0x5eed000c;
    plan_matrix m;
    ck_assert_int_eq(plan_matrix_init(&m, 48, NULL), 0);
    random_matrix(&m, RM_DENSE, 1 << 20, &st);
    plan_options o = {.min_step_bytes = PLAN_MIN_STEP_AUTO};
    plan pl = tl_build_checked(PLAN_ALGO_DIRECT, &m, &o);
    ck_assert(tl_whole_messages(&m, &pl));
    ck_assert_int_eq(pl.algo, PLAN_ALGO_DIRECT);
    ck_assert_uint_eq(pl.min_step_bytes, plan_auto_min_step(&m));
    ck_assert_uint_le(plan_bandwidth_term(&pl),
                      plan_matrix_lower_bound(&m, PLAN_DUPLEX_FULL) + pl.min_step_bytes * pl.nsteps);
    plan_free(&pl);
    plan_matrix_free(&m);

    const uint64_t H = 1 << 20, v[16] = {0, H, 0, 0, /**/ 0, 0, H / 2, H / 2, /**/ 0, 0, 0, 0,
                                         /**/ 0, 0, 0, 0};
    m = literal(4, v);
    pl = plan_checked(&m, H / 64);
    ck_assert(!tl_whole_messages(&m, &pl));
    ck_assert_uint_le(plan_bandwidth_term(&pl), H + H / 64 * pl.nsteps);
    ck_assert_uint_lt(plan_bandwidth_term(&pl), H + H / 2);
    plan_free(&pl);
    plan_matrix_free(&m);
}
END_TEST

/* With a minimum step, direct takes the stepwise schedule of whole messages where it is
 * cheaper than the greedy one by bandwidth term plus min_step per step: on the node matrix of
 * 8 nodes x 4 ranks with four hot receiving ranks (bench/'s hot-receivers, 2 MiB per rank),
 * greedy exceeds the bound by 29 % in 9 steps, which the minimum step does not allow, and the
 * decomposition needs 15 steps; stepwise meets the bound in 7 (N - 1) steps. */
START_TEST(direct_min_step_stepwise)
{
    enum { N = 8 };
    const uint64_t lo = 524288, hi = 1572864;
    uint64_t v[N * N];
    for (int a = 0; a < N; a++)
        for (int b = 0; b < N; b++)
            v[a * N + b] = a == b ? 0 : b % 2 ? lo : hi;
    plan_matrix m = literal(N, v);
    uint64_t bound = plan_matrix_lower_bound(&m, PLAN_DUPLEX_FULL);
    plan g;
    plan_error err;
    ck_assert_int_eq(plan_greedy(&m, &g, &err), 0);
    ck_assert_uint_gt(plan_bandwidth_term(&g), bound + plan_auto_min_step(&m) * g.nsteps);
    plan_free(&g);
    plan pl = plan_checked(&m, plan_auto_min_step(&m));
    ck_assert(tl_whole_messages(&m, &pl));
    ck_assert_int_eq(pl.algo, PLAN_ALGO_DIRECT);
    ck_assert_uint_eq(pl.nsteps, N - 1);
    ck_assert_uint_eq(plan_bandwidth_term(&pl), bound);
    plan_free(&pl);
    pl = plan_checked(&m, 0); /* exact: the decomposition, more steps */
    ck_assert_uint_gt(pl.nsteps, N - 1);
    plan_free(&pl);
    plan_matrix_free(&m);
}
END_TEST

START_TEST(direct_deterministic)
{
    tl_check_deterministic(PLAN_ALGO_DIRECT, 0x5eed0003, 200, LARGE_P_PERCENT, 64, NULL);
}
END_TEST

/* A hand-made plan: p ranks, transfers given as {step, src, dst, origin, target, off, bytes}. */
typedef struct hand_seg {
    int step, src, dst, origin, target;
    uint64_t offset, bytes;
} hand_seg;

static plan hand_plan(int p, plan_duplex duplex, const hand_seg *h, int n)
{
    plan pl;
    ck_assert_int_eq(plan_init(&pl, p, PLAN_ALGO_DIRECT, duplex, NULL), 0);
    int step = -1;
    for (int k = 0; k < n; k++) {
        while (step < h[k].step) {
            ck_assert_int_eq(plan_begin_step(&pl, NULL), 0);
            step++;
        }
        if (k == 0 || h[k].step != h[k - 1].step || h[k].src != h[k - 1].src ||
            h[k].dst != h[k - 1].dst)
            ck_assert_int_eq(plan_add_transfer(&pl, h[k].src, h[k].dst, NULL), 0);
        ck_assert_int_eq(plan_add_segment(&pl, h[k].origin, h[k].target, h[k].offset,
                                          h[k].bytes, NULL), 0);
    }
    return pl;
}

/* Returns the verifier's verdict on a hand-made plan (0 valid, -1 rejected). */
static int verdict(const plan_matrix *m, plan_duplex duplex, const hand_seg *h, int n)
{
    plan pl = hand_plan(m->p, duplex, h, n);
    plan_error err;
    int rc = plan_verify(m, &pl, &err);
    plan_free(&pl);
    return rc;
}

START_TEST(verifier_accepts_and_rejects)
{
    /* 0 -> 2: 10 bytes; 1 -> 0: 4 bytes */
    const uint64_t v[9] = {0, 0, 10, /**/ 4, 0, 0, /**/ 0, 0, 0};
    plan_matrix m = literal(3, v);
    const hand_seg ok[] = {{0, 0, 2, 0, 2, 0, 6}, {0, 1, 0, 1, 0, 0, 4}, {1, 0, 2, 0, 2, 6, 4}};
    ck_assert_int_eq(verdict(&m, PLAN_DUPLEX_FULL, ok, 3), 0);
    /* forwarding: 0 -> 1 carries bytes of 0 -> 2, then 1 forwards them */
    const hand_seg fwd[] = {{0, 0, 1, 0, 2, 0, 10}, {1, 1, 2, 0, 2, 0, 10}};
    ck_assert_int_eq(verdict(&m, PLAN_DUPLEX_FULL, fwd, 2), -1); /* 1 -> 0 missing */
    const hand_seg fwd_ok[] = {{0, 0, 1, 0, 2, 0, 10}, {1, 1, 2, 0, 2, 0, 10}, {2, 1, 0, 1, 0, 0, 4}};
    ck_assert_int_eq(verdict(&m, PLAN_DUPLEX_FULL, fwd_ok, 3), 0);
    /* forwarding in the step the data arrives */
    const hand_seg early[] = {{0, 0, 1, 0, 2, 0, 10}, {0, 1, 2, 0, 2, 0, 10}, {1, 1, 0, 1, 0, 0, 4}};
    ck_assert_int_eq(verdict(&m, PLAN_DUPLEX_FULL, early, 3), -1);
    /* data left at the intermediate */
    const hand_seg stranded[] = {{0, 0, 1, 0, 2, 0, 10}, {1, 1, 0, 1, 0, 0, 4}};
    ck_assert_int_eq(verdict(&m, PLAN_DUPLEX_FULL, stranded, 2), -1);
    /* a byte delivered twice */
    const hand_seg twice[] = {{0, 0, 2, 0, 2, 0, 6}, {0, 1, 0, 1, 0, 0, 4}, {1, 0, 2, 0, 2, 5, 5}};
    ck_assert_int_eq(verdict(&m, PLAN_DUPLEX_FULL, twice, 3), -1);
    /* a byte missing */
    const hand_seg gap[] = {{0, 0, 2, 0, 2, 0, 6}, {0, 1, 0, 1, 0, 0, 4}, {1, 0, 2, 0, 2, 7, 3}};
    ck_assert_int_eq(verdict(&m, PLAN_DUPLEX_FULL, gap, 3), -1);
    /* beyond the message */
    const hand_seg beyond[] = {{0, 0, 2, 0, 2, 0, 11}, {0, 1, 0, 1, 0, 0, 4}};
    ck_assert_int_eq(verdict(&m, PLAN_DUPLEX_FULL, beyond, 2), -1);
    /* a rank sending two transfers in one step */
    const hand_seg two_sends[] = {{0, 0, 2, 0, 2, 0, 6}, {0, 0, 1, 0, 2, 6, 4}, {1, 1, 2, 0, 2, 6, 4},
                                  {2, 1, 0, 1, 0, 0, 4}};
    ck_assert_int_eq(verdict(&m, PLAN_DUPLEX_FULL, two_sends, 4), -1);
    /* half duplex: rank 0 sends and receives in step 0 */
    ck_assert_int_eq(verdict(&m, PLAN_DUPLEX_HALF, ok, 3), -1);
    const hand_seg half_ok[] = {{0, 0, 2, 0, 2, 0, 6}, {1, 1, 0, 1, 0, 0, 4}, {2, 0, 2, 0, 2, 6, 4}};
    ck_assert_int_eq(verdict(&m, PLAN_DUPLEX_HALF, half_ok, 3), 0);
    /* the target sends its own data on */
    const hand_seg bounce[] = {{0, 0, 2, 0, 2, 0, 10}, {0, 1, 0, 1, 0, 0, 4}, {1, 2, 1, 0, 2, 0, 10},
                               {2, 1, 2, 0, 2, 0, 10}};
    ck_assert_int_eq(verdict(&m, PLAN_DUPLEX_FULL, bounce, 4), -1);
    /* a self-transfer */
    const hand_seg self[] = {{0, 0, 0, 0, 2, 0, 10}, {1, 0, 2, 0, 2, 0, 10}, {1, 1, 0, 1, 0, 0, 4}};
    ck_assert_int_eq(verdict(&m, PLAN_DUPLEX_FULL, self, 3), -1);
    plan_matrix_free(&m);
}
END_TEST

/* Every valid random plan, broken in one random way, is rejected. */
START_TEST(verifier_rejects_mutations)
{
    uint64_t st = 0x5eed0004;
    int rejected = 0;
    for (int n = 0; n < 2000; n++) {
        int p = 3 + (int)rm_below(&st, 11);
        plan_matrix m;
        ck_assert_int_eq(plan_matrix_init(&m, p, NULL), 0);
        random_matrix(&m, RM_DENSE, 1000, &st);
        plan pl = plan_checked(&m, 0);
        if (pl.nsegments == 0) {
            plan_free(&pl);
            plan_matrix_free(&m);
            continue;
        }
        size_t g = rm_below(&st, pl.nsegments);
        size_t t = 0;
        while (!(pl.transfers[t].seg_begin <= g && g < pl.transfers[t].seg_begin + pl.transfers[t].nsegs))
            t++;
        switch (n % 5) {
        case 0: /* one byte fewer */
            pl.segments[g].bytes--;
            pl.transfers[t].bytes--;
            break;
        case 1: /* shifted by one byte */
            pl.segments[g].offset++;
            break;
        case 2: /* wrong target */
            pl.segments[g].target = (pl.segments[g].target + 1) % p;
            if (pl.segments[g].target == pl.segments[g].origin)
                pl.segments[g].target = (pl.segments[g].target + 1) % p;
            break;
        case 3: /* byte count of the transfer disagrees with its segments */
            pl.transfers[t].bytes++;
            break;
        default: /* sent by another rank */
            pl.transfers[t].src = (pl.transfers[t].src + 1) % p;
            break;
        }
        plan_error err;
        int rc = plan_verify(&m, &pl, &err);
        ck_assert_msg(rc == -1, "mutation %d of a %d-rank plan accepted", n % 5, p);
        rejected++;
        plan_free(&pl);
        plan_matrix_free(&m);
    }
    ck_assert_int_gt(rejected, 1900);
}
END_TEST

START_TEST(local_view)
{
    uint64_t st = 0x5eed0005;
    plan_matrix m;
    ck_assert_int_eq(plan_matrix_init(&m, 9, NULL), 0);
    random_matrix(&m, RM_HEAVY_TAILED, 1 << 20, &st);
    plan pl = plan_checked(&m, 0);
    for (int r = 0; r < 9; r++) {
        plan_local lo;
        ck_assert_int_eq(plan_local_extract(&pl, r, &lo, NULL), 0);
        uint64_t out = 0, in = 0;
        for (size_t k = 0; k < lo.nsends; k++) {
            out += lo.sends[k].bytes;
            ck_assert(k == 0 || lo.sends[k].step > lo.sends[k - 1].step);
        }
        for (size_t k = 0; k < lo.nrecvs; k++) {
            in += lo.recvs[k].bytes;
            ck_assert(k == 0 || lo.recvs[k].step > lo.recvs[k - 1].step);
        }
        ck_assert_uint_eq(out, plan_matrix_sent(&m, r));
        ck_assert_uint_eq(in, plan_matrix_received(&m, r));
        plan_local_free(&lo);
    }
    plan_local lo;
    ck_assert_int_eq(plan_local_extract(&pl, 9, &lo, NULL), -1);
    plan_free(&pl);
    plan_matrix_free(&m);
}
END_TEST

/* Stepwise: valid, whole messages, and exactly max-degree steps (NS optimal, König). Greedy:
 * valid, whole messages, each step a maximal matching of what is left, at least max-degree
 * steps. Both on random matrices of every shape. */
START_TEST(stepwise_and_greedy_random)
{
    uint64_t st = 0x5eed0006;
    for (int n = 0; n < 3000; n++) {
        int p = tl_draw_p(&st, LARGE_P_PERCENT);
        plan_matrix m;
        ck_assert_int_eq(plan_matrix_init(&m, p, NULL), 0);
        random_matrix(&m, (rm_shape)(n % RM_SHAPES), tl_draw_max(&st), &st);
        plan sw, gr;
        plan_error err = {0};
        ck_assert_msg(plan_stepwise(&m, &sw, &err) == 0, "stepwise: %s", err.text);
        ck_assert_msg(plan_verify(&m, &sw, &err) == 0, "#%d stepwise verify: %s", n, err.text);
        ck_assert_msg(plan_greedy(&m, &gr, &err) == 0, "greedy: %s", err.text);
        ck_assert_msg(plan_verify(&m, &gr, &err) == 0, "#%d greedy verify: %s", n, err.text);
        size_t delta = tl_max_degree(&m, PLAN_DUPLEX_FULL);
        ck_assert_msg(sw.nsteps == delta, "#%d %s p=%d: stepwise NS %zu != max degree %zu", n,
                      rm_shape_name((rm_shape)(n % RM_SHAPES)), p, sw.nsteps, delta);
        ck_assert_msg(tl_whole_messages(&m, &sw) && tl_whole_messages(&m, &gr), "#%d: split message", n);
        ck_assert_uint_ge(gr.nsteps, delta);
        ck_assert_msg(tl_non_maximal_step(&gr) < 0, "#%d: greedy step %ld not maximal", n,
                      tl_non_maximal_step(&gr));
        ck_assert_int_eq(sw.algo, PLAN_ALGO_STEPWISE);
        ck_assert_int_eq(gr.algo, PLAN_ALGO_GREEDY);
        plan_free(&sw);
        plan_free(&gr);
        plan_matrix_free(&m);
    }
}
END_TEST

/* The closed forms reproduce the paper's Figures 8 and 9 (P = 16, K = 12) entry by entry. */
START_TEST(walker_otto_figures)
{
    for (int k = 0; k < 12; k++)
        for (int p = 0; p < 16; p++) {
            uint64_t B = plan_wo_send_block(16, 12, k, p), C = plan_wo_recv_block(16, 12, k, p);
            ck_assert_uint_eq(B, fig8_block[k][p]);
            ck_assert_int_eq(plan_wo_send_process(16, 12, k, p), fig8_process[k][p]);
            ck_assert_uint_eq(B / 16, fig8_local[k][p]);
            ck_assert_uint_eq(C, fig9_block[k][p]);
            ck_assert_uint_eq(C % 16, fig9_process[k][p]);
            ck_assert_uint_eq(C % 12, fig9_local[k][p]);
        }
}
END_TEST

/* For many P and K: every step is a permutation, every process sends each of its K blocks
 * once, and the receive schedule is compatible with the send schedule (Eq. 12). */
START_TEST(walker_otto_schedule_properties)
{
    int *hit = malloc(64 * sizeof *hit);
    for (int P = 1; P <= 40; P++)
        for (int K = 2; K <= 40; K++) {
            int bad = 0;
            for (int k = 0; k < K && !bad; k++) {
                for (int q = 0; q < P; q++)
                    hit[q] = 0;
                for (int p = 0; p < P; p++) {
                    uint64_t B = plan_wo_send_block(P, K, k, p);
                    bad |= B % (uint64_t)P != (uint64_t)p || B / (uint64_t)P >= (uint64_t)K;
                    int q = plan_wo_send_process(P, K, k, p);
                    bad |= hit[q]++ != 0;
                    uint64_t C = plan_wo_recv_block(P, K, k, q);
                    bad |= C != B;
                }
            }
            for (int p = 0; p < P && !bad; p++) { /* each local block exactly once */
                uint64_t seen = 0;
                for (int k = 0; k < K; k++)
                    seen |= (uint64_t)1 << (plan_wo_send_block(P, K, k, p) / (uint64_t)P);
                bad |= seen != (K == 64 ? ~(uint64_t)0 : ((uint64_t)1 << K) - 1);
            }
            ck_assert_msg(!bad, "Walker-Otto schedule broken for P=%d K=%d", P, K);
        }
    free(hit);
}
END_TEST

/* Block-cyclic redistributions are recognised, planned in at most K permutation steps of equal
 * transfers, and pass the verifier; other shapes are not taken for them. */
START_TEST(walker_otto_recognised_and_planned)
{
    uint64_t st = 0x5eed0007;
    for (int n = 0; n < 400; n++) {
        int P = 2 + (int)rm_below(&st, 31), K = 2 + (int)rm_below(&st, 3 * P);
        uint64_t block = 1 + rm_below(&st, 4096);
        int cycles = 1 + (int)rm_below(&st, 3);
        plan_matrix m;
        ck_assert_int_eq(plan_matrix_init(&m, P, NULL), 0);
        mc_block_cyclic(&m, K, block, cycles);
        int k_found;
        uint64_t unit;
        ck_assert_msg(plan_wo_recognise(&m, &k_found, &unit), "P=%d K=%d not recognised", P, K);
        ck_assert_int_le(k_found, K);
        plan pl;
        plan_error err = {0};
        ck_assert_msg(plan_walker_otto(&m, &pl, &err) == 0, "P=%d K=%d: %s", P, K, err.text);
        ck_assert_msg(plan_verify(&m, &pl, &err) == 0, "P=%d K=%d verify: %s", P, K, err.text);
        ck_assert_uint_le(pl.nsteps, (size_t)k_found);
        ck_assert_msg(tl_uneven_step(&pl) < 0, "P=%d K=%d: unequal transfers in a step", P, K);
        plan_free(&pl);
        /* a random dense matrix is no redistribution */
        random_matrix(&m, RM_DENSE, 1 << 20, &st);
        ck_assert_int_eq(plan_wo_recognise(&m, &k_found, &unit), 0);
        ck_assert_int_eq(plan_walker_otto(&m, &pl, &err), -1);
        plan_matrix_free(&m);
    }
}
END_TEST

/* The 1-factorisation: (i - j) mod p for odd p, every round an involution, every pair meeting
 * in exactly one round (p - 1 rounds for even p, p for odd). */
START_TEST(one_factorisation)
{
    for (int p = 2; p <= 41; p++) {
        int rounds = p % 2 ? p : p - 1;
        int met[41][41] = {{0}};
        for (int i = 0; i < rounds; i++)
            for (int j = 0; j < p; j++) {
                int k = plan_one_factor_partner(p, i, j);
                ck_assert_int_eq(plan_one_factor_partner(p, i, k), j);
                if (p % 2)
                    ck_assert_int_eq(k, ((i - j) % p + p) % p);
                if (k != j)
                    met[j][k]++;
            }
        for (int j = 0; j < p; j++)
            for (int k = 0; k < p; k++)
                ck_assert_int_eq(met[j][k], j != k);
    }
}
END_TEST

/* Uniform exchanges: direct uses the p - 1 shift rounds; the half-duplex 1-factorisation meets
 * the half-duplex bound for even p and p / (p - 1) of it for odd p; any matrix gives a valid
 * regular plan. */
START_TEST(regular_exchanges)
{
    uint64_t st = 0x5eed0008;
    for (int p = 2; p <= 40; p++) {
        plan_matrix m;
        ck_assert_int_eq(plan_matrix_init(&m, p, NULL), 0);
        random_matrix(&m, RM_UNIFORM, 1 + rm_below(&st, 1 << 20), &st);
        uint64_t ell;
        ck_assert(plan_matrix_is_uniform(&m, &ell));
        plan pl = plan_checked(&m, 0);
        ck_assert_uint_eq(pl.nsteps, (size_t)p - 1);
        ck_assert_uint_eq(plan_bandwidth_term(&pl), plan_matrix_lower_bound(&m, PLAN_DUPLEX_FULL));
        plan_free(&pl);
        plan_error err = {0};
        ck_assert_int_eq(plan_regular(&m, PLAN_DUPLEX_HALF, PLAN_ALGO_DIRECT, &pl, &err), 0);
        ck_assert_msg(plan_verify(&m, &pl, &err) == 0, "p=%d half: %s", p, err.text);
        uint64_t half_lb = plan_matrix_lower_bound(&m, PLAN_DUPLEX_HALF);
        ck_assert_uint_eq(pl.nsteps, p % 2 ? 2 * (size_t)p : 2 * (size_t)p - 2);
        ck_assert_uint_eq(plan_bandwidth_term(&pl), p % 2 ? half_lb / (p - 1) * p : half_lb);
        plan_free(&pl);
        random_matrix(&m, (rm_shape)(p % RM_SHAPES), 1000, &st);
        for (int d = 0; d < 2; d++) {
            ck_assert_int_eq(plan_regular(&m, (plan_duplex)d, PLAN_ALGO_DIRECT, &pl, &err), 0);
            ck_assert_msg(plan_verify(&m, &pl, &err) == 0, "p=%d regular: %s", p, err.text);
            plan_free(&pl);
        }
        plan_matrix_free(&m);
    }
}
END_TEST

/* The two-round transpose on random matrices of every shape and grain: valid (delivery through
 * the intermediates, byte-exact), at most 2(p - 1) steps, and the paper's bounds in grains: a
 * round-1 bin of rank i holds at most sent_i / p + p / 2 grains, a round-2 bin for rank j at
 * most received_j / p + p / 2 (so n / p^2 + p / 2 and h / p + p / 2 for balanced input). */
START_TEST(transpose_random)
{
    uint64_t st = 0x5eed0009;
    static const uint64_t grains[] = {1, 3, 64, 4096};
    for (int n = 0; n < 1500; n++) {
        int p = tl_draw_p(&st, LARGE_P_PERCENT);
        uint64_t g = grains[n % 4];
        plan_matrix m;
        ck_assert_int_eq(plan_matrix_init(&m, p, NULL), 0);
        random_matrix(&m, (rm_shape)(n % RM_SHAPES), n % 3 ? 100000 : 50, &st);
        plan pl;
        plan_error err = {0};
        ck_assert_msg(plan_transpose(&m, g, &pl, &err) == 0, "transpose: %s", err.text);
        ck_assert_msg(plan_verify(&m, &pl, &err) == 0, "#%d %s p=%d g=%llu: %s", n,
                      rm_shape_name((rm_shape)(n % RM_SHAPES)), p, (unsigned long long)g, err.text);
        ck_assert_uint_le(pl.nsteps, 2 * (size_t)(p - 1));
        int bad = !tl_transpose_bins_ok(&m, g);
        ck_assert_msg(!bad, "#%d p=%d: a transpose bin exceeds the paper's bound", n, p);
        plan_free(&pl);
        plan_matrix_free(&m);
    }
}
END_TEST

/* The Gantt chart has two bars per segment, forwarded ones marked, and is one SVG document. */
START_TEST(svg_chart)
{
    uint64_t st = 0x5eed000a;
    plan_matrix m;
    ck_assert_int_eq(plan_matrix_init(&m, 6, NULL), 0);
    random_matrix(&m, RM_DENSE, 5000, &st);
    plan pl;
    ck_assert_int_eq(plan_transpose(&m, 64, &pl, NULL), 0);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    plan_model model = {5e-6, 1e-9};
    ck_assert_int_eq(plan_write_svg(f, &pl, &m, &model), 0);
    fclose(f);
    size_t bars = 0, fwd = 0, want_fwd = 0;
    for (const char *c = text; (c = strstr(c, "class=\"xfer")); c++) {
        bars++;
        fwd += strncmp(c, "class=\"xfer fwd\"", 16) == 0;
    }
    for (size_t t = 0; t < pl.ntransfers; t++)
        for (size_t g = 0; g < pl.transfers[t].nsegs; g++) {
            const plan_segment *sg = &pl.segments[pl.transfers[t].seg_begin + g];
            want_fwd += 2 * (sg->origin != pl.transfers[t].src || sg->target != pl.transfers[t].dst);
        }
    ck_assert_uint_eq(bars, 2 * pl.nsegments);
    ck_assert_uint_eq(fwd, want_fwd);
    ck_assert_uint_gt(fwd, 0);
    ck_assert(strncmp(text, "<svg ", 5) == 0);
    ck_assert_ptr_nonnull(strstr(text, "</svg>\n"));
    free(text);
    plan_free(&pl);
    plan_matrix_free(&m);
}
END_TEST

/* plan_build's automatic minimum step and its plan-size limit. */
START_TEST(build_options)
{
    uint64_t st = 0x5eed000b;
    plan_matrix m;
    ck_assert_int_eq(plan_matrix_init(&m, 32, NULL), 0);
    random_matrix(&m, RM_DENSE, 1 << 20, &st);
    uint64_t lb = plan_matrix_lower_bound(&m, PLAN_DUPLEX_FULL);
    ck_assert_uint_eq(plan_auto_min_step(&m), lb / 128 > 32768 ? lb / 128 : 32768);
    plan pl;
    plan_error err = {0};
    plan_options o = {.min_step_bytes = PLAN_MIN_STEP_AUTO};
    ck_assert_int_eq(plan_build(PLAN_ALGO_DIRECT, &m, &o, &pl, &err), 0);
    ck_assert_uint_eq(pl.min_step_bytes, plan_auto_min_step(&m));
    ck_assert_int_eq(plan_verify(&m, &pl, &err), 0);
    size_t merged = pl.nsegments;
    plan_free(&pl);
    o.min_step_bytes = 0;
    ck_assert_int_eq(plan_build(PLAN_ALGO_DIRECT, &m, &o, &pl, &err), 0);
    ck_assert_uint_lt(merged, pl.nsegments); /* the automatic step makes a smaller plan */
    plan_free(&pl);
    tl_check_segment_limit(PLAN_ALGO_DIRECT, &m, &o);
    for (int a = PLAN_ALGO_NATIVE + 1; a < PLAN_ALGO_COUNT; a++) {
        if (a == PLAN_ALGO_WALKER_OTTO)
            continue;
        ck_assert_msg(plan_build((plan_algo)a, &m, NULL, &pl, &err) == 0, "%s: %s",
                      plan_algo_name((plan_algo)a), err.text);
        ck_assert_int_eq(pl.algo, a);
        ck_assert_int_eq(plan_verify(&m, &pl, &err), 0);
        plan_free(&pl);
    }
    ck_assert_int_eq(plan_build(PLAN_ALGO_NATIVE, &m, NULL, &pl, &err), -1);
    plan_matrix_free(&m);
}
END_TEST

START_TEST(algo_names)
{
    plan_algo a;
    ck_assert_int_eq(plan_algo_parse("direct", &a), 0);
    ck_assert_int_eq(a, PLAN_ALGO_DIRECT);
    ck_assert_str_eq(plan_algo_name(PLAN_ALGO_NATIVE), "native");
    ck_assert_int_eq(plan_algo_parse("fastest", &a), -1);
    for (int k = 0; k < PLAN_ALGO_COUNT; k++) {
        ck_assert_int_eq(plan_algo_parse(plan_algo_name((plan_algo)k), &a), 0);
        ck_assert_int_eq(a, k);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("plan");
    TCase *basic = tcase_create("basic"), *props = tcase_create("properties");
    tcase_add_test(basic, matrix_figures);
    tcase_add_test(basic, direct_two_ranks);
    tcase_add_test(basic, direct_single_rank_and_zero);
    tcase_add_test(basic, verifier_accepts_and_rejects);
    tcase_add_test(basic, local_view);
    tcase_add_test(basic, algo_names);
    tcase_add_test(basic, walker_otto_figures);
    tcase_add_test(basic, one_factorisation);
    tcase_add_test(basic, svg_chart);
    tcase_add_test(basic, build_options);
    tcase_add_test(basic, regular_exchanges);
    tcase_add_test(basic, walker_otto_schedule_properties);
    tcase_add_test(props, walker_otto_recognised_and_planned);
    tcase_add_test(props, transpose_random);
    tcase_add_test(props, direct_properties_random);
    tcase_add_test(props, direct_min_step_random);
    tcase_add_test(props, direct_widest_random);
    tcase_add_test(props, direct_widest_priced_random);
    tcase_add_test(props, direct_step_price_random);
    tcase_add_test(props, direct_deterministic);
    tcase_add_test(basic, direct_min_step_whole_or_split);
    tcase_add_test(basic, direct_min_step_stepwise);
    tcase_add_test(props, stepwise_and_greedy_random);
    tcase_add_test(props, verifier_rejects_mutations);
    return tl_run(s, basic, props);
}
