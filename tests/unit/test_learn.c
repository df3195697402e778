/* Unit and property tests of deciding drifting patterns: the summary of an exchange against
 * the matrix-based figures it replaces (plan/summary.c, plan_cost_native_rank), the learned
 * corrections (plan/learn.c) and the forecast before gathering with its exploration budget
 * (plan/forecast.c). MPI-free; run by Check. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "plan/forecast.h"
#include "plan/learn.h"
#include "plan/node.h"
#include "plan/summary.h"
#include "plan_testlib.h"
#include "random_matrix.h"

/* A summary of m with its own block array (free s->block). */
static plan_summary summary_of(const plan_matrix *m, uint64_t packet, const plan_cost_params *c)
{
    plan_summary s = {0};
    s.block = calloc(plan_summary_blocks(m->p, c) + 1, sizeof *s.block);
    ck_assert_ptr_nonnull(s.block);
    ck_assert_int_eq(plan_summary_of_matrix(&s, m, NULL, packet, c), 0);
    return s;
}

/* What auto's optimistic time of family a on m was before summaries (the matrix-based
 * formula of shim/decide.c), for comparison. */
static uint64_t optimistic_of_matrix(plan_algo a, const plan_matrix *m, plan_duplex duplex,
                                     const plan_cost_params *c)
{
    uint64_t p = (uint64_t)m->p, bound = plan_cost_bound(m, duplex, c);
    if (a == PLAN_ALGO_TRANSPOSE)
        return 2 * (bound / p) * (p - 1) + 2 * (p - 1) * c->step_ps;
    if (a == PLAN_ALGO_FORWARD && duplex != PLAN_DUPLEX_HALF)
        return plan_cost_overlap_bound(m, c) +
               (uint64_t)plan_matrix_max_degree(m, PLAN_DUPLEX_HALF) * c->step_ps;
    return bound + (uint64_t)plan_matrix_max_degree(m, duplex) * c->step_ps;
}

START_TEST(summary_equals_matrix)
{
    uint64_t st = 0x5533a;
    for (int round = 0; round < 400; round++) {
        int p = round < 40 ? 1 + round % 5 : tl_draw_p(&st, 20);
        plan_matrix m;
        ck_assert_int_eq(plan_matrix_init(&m, p, NULL), 0);
        random_matrix(&m, (rm_shape)(round % RM_SHAPES), tl_draw_max(&st) % (1ull << 40) + 2,
                      &st);
        plan_cost_params c = plan_cost_defaults();
        c.duplex_pct = 100 + (uint32_t)rm_below(&st, 101);
        c.throttle = 1 + (uint32_t)rm_below(&st, 40);
        c.native_pct = (uint32_t)rm_below(&st, 300);
        uint64_t packet = 1 + rm_below(&st, 1 << 17);
        plan_summary s = summary_of(&m, packet, &c);
        for (int d = 0; d < 2; d++) {
            plan_duplex duplex = d ? PLAN_DUPLEX_HALF : PLAN_DUPLEX_FULL;
            ck_assert_uint_eq(plan_summary_bound(&s, duplex), plan_matrix_lower_bound(&m, duplex));
            ck_assert_uint_eq(plan_summary_degree(&s, duplex), plan_matrix_max_degree(&m, duplex));
            const plan_algo fam[] = {PLAN_ALGO_DIRECT, PLAN_ALGO_STEPWISE, PLAN_ALGO_GREEDY,
                                     PLAN_ALGO_WALKER_OTTO, PLAN_ALGO_TRANSPOSE,
                                     PLAN_ALGO_FORWARD};
            for (size_t f = 0; f < sizeof fam / sizeof fam[0]; f++)
                ck_assert_uint_eq(plan_summary_optimistic(&s, fam[f], duplex, &c),
                                  optimistic_of_matrix(fam[f], &m, duplex, &c));
        }
        for (int k = 0; k < 3; k++)
            ck_assert_msg(plan_summary_native(&s, (plan_native_kind)k, &c) ==
                              plan_cost_native(&m, (plan_native_kind)k, &c),
                          "native kind %d, p %d, %s", k, p, rm_shape_name(round % RM_SHAPES));
        ck_assert_uint_eq(plan_summary_planning(&s, PLAN_ALGO_DIRECT, &c),
                          plan_cost_planning(&m, plan_matrix_messages(&m), &c));
        ck_assert_uint_eq(plan_summary_planning(&s, PLAN_ALGO_FORWARD, &c),
                          plan_cost_planning_forward(&m, packet, &c));
        ck_assert_uint_eq(plan_cost_overlap_bound(&m, &c),
                          plan_cost_bytes(s.max[PLAN_SUMMARY_LOAD_SHARED], &c));
        ck_assert(plan_summary_consistent(&s));
        free(s.block);
        plan_matrix_free(&m);
    }
}
END_TEST

START_TEST(summary_finds_mismatched_receives)
{
    /* rank r expects one byte less (or more) from rank i than i sends it: the combined summary
     * is not consistent, and the ranks' balance words (plan_summary_balance) sum to its nonzero
     * balance; every rank's part as sent: they sum to zero */
    uint64_t st = 0xbad;
    for (int round = 0; round < 200; round++) {
        int p = 2 + (int)rm_below(&st, 20);
        plan_matrix m;
        ck_assert_int_eq(plan_matrix_init(&m, p, NULL), 0);
        random_matrix(&m, (rm_shape)(round % RM_SHAPES), 1000, &st);
        plan_cost_params c = plan_cost_defaults();
        int r = (int)rm_below(&st, (uint64_t)p), from = (int)rm_below(&st, (uint64_t)p);
        uint64_t *col = calloc((size_t)p, sizeof *col);
        plan_summary all = {.block = calloc(plan_summary_blocks(p, &c), sizeof(uint64_t))};
        plan_summary one = {.block = calloc(plan_summary_blocks(p, &c), sizeof(uint64_t))};
        uint64_t sent = 0, wrong = 0; /* the ranks' balance words summed: as sent, as received */
        for (int k = 0; k < p; k++) {
            for (int i = 0; i < p; i++)
                col[i] = plan_matrix_at(&m, i, k);
            sent += plan_summary_balance(p, k, m.bytes + (size_t)k * (size_t)p, col);
            if (k == r)
                col[from] += round % 2 ? 1 : (uint64_t)-1;
            wrong += plan_summary_balance(p, k, m.bytes + (size_t)k * (size_t)p, col);
            plan_summary_rank(k ? &one : &all, p, k, m.bytes + (size_t)k * (size_t)p, col, NULL, 64,
                              &c);
            if (k)
                plan_summary_merge(&all, &one);
        }
        ck_assert(!plan_summary_consistent(&all));
        ck_assert_uint_eq(sent, 0);
        ck_assert_uint_ne(wrong, 0);
        ck_assert_uint_eq(wrong, all.sum[PLAN_SUMMARY_BALANCE]);
        free(col);
        free(all.block);
        free(one.block);
        plan_matrix_free(&m);
    }
}
END_TEST

START_TEST(summary_optimistic_is_a_lower_bound)
{
    /* no plan of a family is modeled faster than its optimistic time */
    uint64_t st = 0x10b0;
    for (int round = 0; round < 120; round++) {
        int p = 2 + (int)rm_below(&st, 14);
        plan_matrix m;
        ck_assert_int_eq(plan_matrix_init(&m, p, NULL), 0);
        random_matrix(&m, (rm_shape)(round % RM_SHAPES), 1 + rm_below(&st, 100000), &st);
        plan_cost_params c = plan_cost_defaults();
        c.duplex_pct = 100 + (uint32_t)rm_below(&st, 101);
        plan_summary s = summary_of(&m, 4096, &c);
        const plan_algo fam[] = {PLAN_ALGO_DIRECT, PLAN_ALGO_STEPWISE, PLAN_ALGO_GREEDY,
                                 PLAN_ALGO_FORWARD};
        for (size_t f = 0; f < sizeof fam / sizeof fam[0]; f++) {
            plan_options o = {.grain_bytes = 64, .packet_bytes = 4096};
            plan pl = tl_build_checked(fam[f], &m, &o);
            ck_assert_uint_le(plan_summary_optimistic(&s, fam[f], PLAN_DUPLEX_FULL, &c),
                              plan_cost_plan(&pl, &c));
            plan_free(&pl);
        }
        free(s.block);
        plan_matrix_free(&m);
    }
}
END_TEST

/* A summary of m placed by t with its own block array (free s->block). */
static plan_summary summary_on(const plan_matrix *m, const plan_topo *t, const plan_cost_params *c)
{
    plan_summary s = {0};
    s.block = calloc(plan_summary_blocks(m->p, c) + 1, sizeof *s.block);
    ck_assert_ptr_nonnull(s.block);
    ck_assert_int_eq(plan_summary_of_matrix(&s, m, t, 4096, c), 0);
    return s;
}

/* Random cost parameters with on-node figures and duplex share drawn too. */
static plan_cost_params draw_costs(uint64_t *st)
{
    plan_cost_params c = plan_cost_defaults();
    c.duplex_pct = 100 + (uint32_t)rm_below(st, 101);
    c.local_beta_fs = 1 + rm_below(st, 3 * c.beta_fs);
    c.local_alpha_ps = rm_below(st, 2 * c.alpha_ps);
    c.gap_ps = rm_below(st, 4 * c.gap_ps);
    return c;
}

START_TEST(summary_node_figures)
{
    /* under a placement: the node words bound the node-level bound from below (equal on
     * uniform patterns with even nodes), the rank-level words are those without placement,
     * and one rank per node gives the rank-level figures */
    uint64_t st = 0x70b0;
    for (int round = 0; round < 300; round++) {
        int p = 2 + (int)rm_below(&st, 15), k = 1 + (int)rm_below(&st, (uint64_t)p);
        rm_shape shape = (rm_shape)(round % RM_SHAPES);
        plan_matrix m;
        plan_topo t;
        plan_error err;
        ck_assert_int_eq(plan_matrix_init(&m, p, NULL), 0);
        random_matrix(&m, shape, 1 + rm_below(&st, 1u << 20), &st);
        ck_assert_int_eq(plan_topo_consecutive(&t, p, k, &err), 0);
        plan_cost_params c = draw_costs(&st);
        plan_summary s = summary_on(&m, &t, &c), r = summary_of(&m, 4096, &c);
        ck_assert_int_eq(s.nodes, t.n);
        ck_assert_int_eq(r.nodes, p);
        for (int w = 0; w < PLAN_SUMMARY_OFF_SENT; w++)
            ck_assert_uint_eq(s.max[w], r.max[w]);
        ck_assert_uint_eq(r.max[PLAN_SUMMARY_OFF_SENT], r.max[PLAN_SUMMARY_SENT]);
        ck_assert_uint_eq(r.max[PLAN_SUMMARY_LOCAL_FULL], 0);
        for (int d = 0; d < 2; d++) {
            plan_duplex duplex = d ? PLAN_DUPLEX_HALF : PLAN_DUPLEX_FULL;
            uint64_t lb = plan_summary_topo_bound(&s, duplex, &c);
            uint64_t exact = plan_cost_topo_bound(&m, &t, duplex, &c);
            ck_assert_uint_le(lb, exact);
            if (shape == RM_UNIFORM && p % k == 0)
                ck_assert_uint_eq(lb, exact);
            ck_assert_uint_eq(plan_summary_topo_bound(&r, duplex, &c),
                              plan_cost_topo_bound(&m, NULL, duplex, &c));
            /* one rank per node: a node family's figures are its base family's */
            ck_assert_uint_eq(plan_summary_optimistic(&r, PLAN_ALGO_NODE_TRANSPOSE, duplex, &c),
                              plan_summary_optimistic(&r, PLAN_ALGO_TRANSPOSE, duplex, &c));
            ck_assert_uint_eq(plan_summary_optimistic(&r, PLAN_ALGO_NODE_AGGREGATE, duplex, &c),
                              plan_summary_optimistic(&r, PLAN_ALGO_DIRECT, duplex, &c));
        }
        ck_assert_uint_eq(plan_summary_planning(&s, PLAN_ALGO_NODE_FORWARD, &c),
                          plan_summary_planning(&s, PLAN_ALGO_FORWARD, &c));
        free(s.block);
        free(r.block);
        plan_topo_free(&t);
        plan_matrix_free(&m);
    }
}
END_TEST

START_TEST(summary_node_optimistic_is_a_lower_bound)
{
    /* several ranks per node: no plan of a family, rank-level or node-level, is modeled
     * faster by the two-level model than the summary's optimistic time */
    uint64_t st = 0x20de;
    for (int round = 0; round < 80; round++) {
        int p = 3 + (int)rm_below(&st, 10), k = 2 + (int)rm_below(&st, 3);
        plan_matrix m;
        plan_topo t;
        plan_error err;
        ck_assert_int_eq(plan_matrix_init(&m, p, NULL), 0);
        random_matrix(&m, (rm_shape)(round % RM_SHAPES), 1 + rm_below(&st, 100000), &st);
        ck_assert_int_eq(plan_topo_consecutive(&t, p, k, &err), 0);
        plan_cost_params c = draw_costs(&st);
        plan_summary s = summary_on(&m, &t, &c);
        /* (transpose's 2 (P - 1) steps are not a bound at rank level either: its empty steps
         * are left out) */
        const plan_algo fam[] = {PLAN_ALGO_DIRECT,         PLAN_ALGO_STEPWISE,
                                 PLAN_ALGO_GREEDY,         PLAN_ALGO_FORWARD,
                                 PLAN_ALGO_NODE_DIRECT,    PLAN_ALGO_NODE_TRANSPOSE,
                                 PLAN_ALGO_NODE_FORWARD,   PLAN_ALGO_NODE_AGGREGATE};
        for (size_t f = 0; f < sizeof fam / sizeof fam[0]; f++) {
            plan_options o = {.grain_bytes = 64, .packet_bytes = 4096, .topo = &t};
            plan pl;
            ck_assert_msg(plan_build(fam[f], &m, &o, &pl, &err) == 0, "%s: %s",
                          plan_algo_name(fam[f]), err.text);
            ck_assert_msg(plan_summary_optimistic(&s, fam[f], PLAN_DUPLEX_FULL, &c) <=
                              plan_cost_topo_plan(&pl, &t, &c),
                          "%s p=%d k=%d", plan_algo_name(fam[f]), p, k);
            plan_free(&pl);
        }
        free(s.block);
        plan_topo_free(&t);
        plan_matrix_free(&m);
    }
}
END_TEST

START_TEST(learn_ratio_estimate_and_reach)
{
    plan_learner *l = calloc(1, sizeof *l);
    ck_assert_ptr_nonnull(l);
    uint32_t r;
    int key = plan_learn_key(PLAN_ALGO_DIRECT, 0);
    ck_assert_int_eq(plan_learn_ratio(l, key, 10, &r), PLAN_LEARN_UNKNOWN);
    ck_assert_uint_eq(r, PLAN_LEARN_ONE);
    /* one sample 30 times the model: the correction is 30 at once */
    plan_learn_record(l, key, 10, 3000, 100);
    ck_assert_int_eq(plan_learn_ratio(l, key, 10, &r), PLAN_LEARN_KNOWN);
    ck_assert_uint_eq(plan_learn_apply(100, r), 3000);
    /* it reaches two classes either way, no further */
    ck_assert_int_eq(plan_learn_ratio(l, key, 8, &r), PLAN_LEARN_KNOWN);
    ck_assert_int_eq(plan_learn_ratio(l, key, 12, &r), PLAN_LEARN_KNOWN);
    ck_assert_int_eq(plan_learn_ratio(l, key, 13, &r), PLAN_LEARN_UNKNOWN);
    ck_assert_int_eq(plan_learn_ratio(l, key, 7, &r), PLAN_LEARN_UNKNOWN);
    /* the nearest class wins, the lower one on ties */
    plan_learn_record(l, key, 12, 200, 100);
    ck_assert_int_eq(plan_learn_ratio(l, key, 11, &r), PLAN_LEARN_KNOWN);
    ck_assert_uint_eq(r, 30 * PLAN_LEARN_ONE);
    ck_assert_int_eq(plan_learn_ratio(l, key, 12, &r), PLAN_LEARN_KNOWN);
    ck_assert_uint_eq(r, 2 * PLAN_LEARN_ONE);
    /* the mean of the last PLAN_LEARN_RING samples but the largest: three at 1, an outlier at
     * 50 changes nothing; a second slow call (90) makes a slow mode that counts in proportion:
     * (1 + 1 + 1 + 50) / 4 */
    plan_learn_record(l, key, 20, 100, 100);
    plan_learn_record(l, key, 20, 100, 100);
    plan_learn_record(l, key, 20, 100, 100);
    plan_learn_record(l, key, 20, 5000, 100);
    plan_learn_ratio(l, key, 20, &r);
    ck_assert_uint_eq(r, PLAN_LEARN_ONE);
    plan_learn_record(l, key, 20, 9000, 100);
    plan_learn_ratio(l, key, 20, &r);
    ck_assert_uint_eq(r, 53 * PLAN_LEARN_ONE / 4);
    /* the ring forgets the oldest: three more slow ones (40) make it slow: (50 + 3 * 40) / 4 */
    for (int i = 0; i < 3; i++)
        plan_learn_record(l, key, 20, 4000, 100);
    plan_learn_ratio(l, key, 20, &r);
    ck_assert_uint_eq(r, 170 * PLAN_LEARN_ONE / 4);
    /* two samples: the smaller */
    plan_learn_record(l, key, 25, 100, 100);
    plan_learn_record(l, key, 25, 5000, 100);
    plan_learn_ratio(l, key, 25, &r);
    ck_assert_uint_eq(r, PLAN_LEARN_ONE);
    /* clamped to [1/256, 4096]; a zero model teaches nothing */
    plan_learn_record(l, key, 0, 1, 1000000);
    plan_learn_ratio(l, key, 0, &r);
    ck_assert_uint_eq(r, PLAN_LEARN_ONE / 256);
    plan_learn_record(l, key, 31, UINT64_MAX, 1);
    plan_learn_ratio(l, key, 31, &r);
    ck_assert_uint_eq(r, PLAN_LEARN_ONE * 4096u);
    plan_learn_record(l, PLAN_LEARN_HIT, 5, 100, 0);
    ck_assert_int_eq(plan_learn_ratio(l, PLAN_LEARN_HIT, 5, &r), PLAN_LEARN_UNKNOWN);
    ck_assert_uint_eq(plan_learn_apply(UINT64_MAX, 2 * PLAN_LEARN_ONE), UINT64_MAX);
    /* classes: log4 of the bytes */
    ck_assert_int_eq(plan_learn_class(0), 0);
    ck_assert_int_eq(plan_learn_class(3), 0);
    ck_assert_int_eq(plan_learn_class(4), 1);
    ck_assert_int_eq(plan_learn_class(65535), 7);
    ck_assert_int_eq(plan_learn_class(65536), 8);
    ck_assert_int_eq(plan_learn_class(UINT64_MAX), PLAN_LEARN_CLASSES - 1);
    /* keys: variants apart, native has one; every family's every variant (the small window, the
     * node's window, the optimistic time before gathering) a key of its own below the
     * overheads' */
    ck_assert_int_ne(plan_learn_key(PLAN_ALGO_DIRECT, 0), plan_learn_key(PLAN_ALGO_DIRECT, 1));
    ck_assert_int_lt(plan_learn_key(PLAN_ALGO_FORWARD, 1), PLAN_LEARN_HIT);
    int seen[PLAN_LEARN_HIT] = {0};
    for (int a = 0; a < PLAN_ALGO_COUNT; a++)
        for (int v = 0; v < PLAN_LEARN_VARIANTS; v++) {
            int k = plan_learn_key((plan_algo)a, v);
            ck_assert_int_ge(k, 0);
            ck_assert_int_lt(k, PLAN_LEARN_HIT);
            ck_assert_int_eq(seen[k]++, 0);
        }
    ck_assert_int_ne(PLAN_VARIANT_NODE_WINDOW, PLAN_LEARN_BEFORE);
    free(l);
}
END_TEST

/* A learner holds PLAN_LEARN_CELLS (key, class) pairs; one more replaces the pair sampled
 * longest ago, and only that one. */
START_TEST(learn_full_forgets_the_oldest)
{
    plan_learner *l = calloc(1, sizeof *l);
    ck_assert_ptr_nonnull(l);
    uint32_t r;
    /* every pair far enough apart in class that none reaches another: keys x classes 0, 5,
     * 10, .. 30 */
    int n = 0;
    for (int key = 0; key < PLAN_LEARN_KEYS && n < PLAN_LEARN_CELLS; key++)
        for (int cls = 0; cls < PLAN_LEARN_CLASSES && n < PLAN_LEARN_CELLS; cls += 5, n++) {
            plan_learn_record(l, key, cls, (uint64_t)(n + 2) * 100, 100);
            plan_learn_tick(l);
        }
    ck_assert_int_eq(n, PLAN_LEARN_CELLS);
    ck_assert_int_eq(l->used, PLAN_LEARN_CELLS);
    /* the first pair (key 0, class 0) is refreshed, so the second is now the oldest */
    plan_learn_record(l, 0, 0, 200, 100);
    int last = PLAN_LEARN_KEYS - 1;
    plan_learn_record(l, last, 15, 700, 100);
    ck_assert_int_eq(l->used, PLAN_LEARN_CELLS);
    ck_assert_int_eq(plan_learn_ratio(l, last, 15, &r), PLAN_LEARN_KNOWN);
    ck_assert_uint_eq(r, 7 * PLAN_LEARN_ONE);
    ck_assert_int_eq(plan_learn_ratio(l, 0, 5, &r), PLAN_LEARN_UNKNOWN);
    ck_assert_int_eq(plan_learn_ratio(l, 0, 0, &r), PLAN_LEARN_KNOWN);
    ck_assert_uint_eq(r, 2 * PLAN_LEARN_ONE);
    ck_assert_int_ne(plan_learn_ratio(l, 0, 10, &r), PLAN_LEARN_UNKNOWN); /* stale by now */
    ck_assert_uint_eq(r, 4 * PLAN_LEARN_ONE);
    /* a pair held already keeps its cell: no eviction */
    plan_learn_record(l, 0, 10, 400, 100);
    ck_assert_int_eq(plan_learn_ratio(l, 0, 0, &r), PLAN_LEARN_KNOWN);
    ck_assert_int_eq(plan_learn_ratio(l, last, 15, &r), PLAN_LEARN_KNOWN);
    free(l);
}
END_TEST

/* plan_learn_view_of reads, in one pass, what plan_learn_ratio and plan_learn_samples give key
 * by key: on learners filled at random (keys, classes, ratios, ticks, evictions), in every
 * class, and on no learner at all. */
START_TEST(learn_view_matches_lookups)
{
    uint64_t st = 0x5eed0000u + (uint64_t)_i;
    plan_learner *l = calloc(1, sizeof *l);
    ck_assert_ptr_nonnull(l);
    plan_learn_view v;
    plan_learn_view_of(NULL, 3, &v);
    for (int k = 0; k < PLAN_LEARN_KEYS; k++) {
        ck_assert_uint_eq(v.ratio[k], PLAN_LEARN_ONE);
        ck_assert_int_eq(v.state[k], PLAN_LEARN_UNKNOWN);
        ck_assert_int_eq(v.samples[k], 0);
    }
    for (int round = 0; round < 400; round++) {
        int key = (int)rm_below(&st, PLAN_LEARN_KEYS), cls = (int)rm_below(&st, 12);
        plan_learn_record(l, key, cls, 1 + rm_below(&st, 1u << 30), 1 + rm_below(&st, 1u << 20));
        for (uint64_t t = rm_below(&st, 40); t > 0; t--)
            plan_learn_tick(l);
        if (round % 10)
            continue;
        for (int c = 0; c < PLAN_LEARN_CLASSES; c++) {
            plan_learn_view_of(l, c, &v);
            for (int k = 0; k < PLAN_LEARN_KEYS; k++) {
                uint32_t r;
                ck_assert_int_eq(v.state[k], plan_learn_ratio(l, k, c, &r));
                ck_assert_uint_eq(v.ratio[k], r);
                ck_assert_int_eq(v.samples[k], plan_learn_samples(l, k, c));
            }
        }
    }
    free(l);
}
END_TEST

/* plan_learn_view_of's latest is the sample recorded last, through the ring's wrap, in the
 * class asked and in a class within reach. */
START_TEST(learn_view_latest)
{
    plan_learner *l = calloc(1, sizeof *l);
    ck_assert_ptr_nonnull(l);
    plan_learn_view v;
    uint64_t st = 99;
    for (int i = 0; i < 3 * PLAN_LEARN_RING; i++) {
        uint64_t measured = 1000 + rm_below(&st, 4000);
        plan_learn_record(l, 3, 5, measured, 1000);
        for (int c = 5; c <= 6; c++) {
            plan_learn_view_of(l, c, &v);
            ck_assert_uint_eq(v.latest[3], (uint32_t)(measured * PLAN_LEARN_ONE / 1000));
            ck_assert_uint_eq(v.latest[2], PLAN_LEARN_ONE);
        }
    }
    free(l);
}
END_TEST

START_TEST(learn_staleness_backs_off)
{
    plan_learner *l = calloc(1, sizeof *l);
    ck_assert_ptr_nonnull(l);
    uint32_t r;
    int key = plan_learn_key(PLAN_ALGO_NATIVE, 0);
    plan_learn_record(l, key, 4, 500, 100);
    l->now += PLAN_LEARN_STALE_MIN - 1;
    ck_assert_int_eq(plan_learn_ratio(l, key, 4, &r), PLAN_LEARN_KNOWN);
    l->now++;
    ck_assert_int_eq(plan_learn_ratio(l, key, 4, &r), PLAN_LEARN_STALE);
    ck_assert_uint_eq(r, 5 * PLAN_LEARN_ONE); /* still the old correction */
    /* measured again when stale: the old samples are forgotten, and it goes stale twice as
     * late */
    plan_learn_record(l, key, 4, 100, 100);
    plan_learn_ratio(l, key, 4, &r);
    ck_assert_uint_eq(r, PLAN_LEARN_ONE);
    l->now += 2 * PLAN_LEARN_STALE_MIN - 1;
    ck_assert_int_eq(plan_learn_ratio(l, key, 4, &r), PLAN_LEARN_KNOWN);
    l->now++;
    ck_assert_int_eq(plan_learn_ratio(l, key, 4, &r), PLAN_LEARN_STALE);
    /* the interval doubles up to PLAN_LEARN_STALE_MAX */
    for (int i = 0; i < 20; i++) {
        plan_learn_record(l, key, 4, 100, 100);
        l->now += PLAN_LEARN_STALE_MAX;
    }
    plan_learn_record(l, key, 4, 100, 100);
    l->now += PLAN_LEARN_STALE_MAX - 1;
    ck_assert_int_eq(plan_learn_ratio(l, key, 4, &r), PLAN_LEARN_KNOWN);
    /* measured while fresh (in use): back to the shortest interval */
    plan_learn_record(l, key, 4, 100, 100);
    l->now += PLAN_LEARN_STALE_MIN;
    ck_assert_int_eq(plan_learn_ratio(l, key, 4, &r), PLAN_LEARN_STALE);
    free(l);
}
END_TEST

/* A run's floor: the agreement at most a 128th of the run, rounded up, between 1 and 64
 * calls; unknown times give none. */
START_TEST(run_floor_shares_the_agreement)
{
    ck_assert_uint_eq(PLAN_RUN_SHARE, 128);
    ck_assert_uint_eq(plan_run_floor(0, 100), 0);
    ck_assert_uint_eq(plan_run_floor(100, 0), 0);
    ck_assert_uint_eq(plan_run_floor(1, 1000000), 1);    /* cheap agreement: one call */
    ck_assert_uint_eq(plan_run_floor(560, 2440), 30);    /* 29.4 -> 30 */
    ck_assert_uint_eq(plan_run_floor(1120, 2440), 59);   /* 16 hosts, 64 KiB: 58.8 -> 59 */
    ck_assert_uint_eq(plan_run_floor(1000, 128000), 1);  /* exactly a 128th */
    ck_assert_uint_eq(plan_run_floor(1001, 128000), 2);
    ck_assert_uint_eq(plan_run_floor(1000, 1000), PLAN_RUN_MAX); /* capped */
    ck_assert_uint_eq(plan_run_floor(UINT64_MAX, 1), PLAN_RUN_MAX);
    /* the agreement costs at most a 128th of the floor's calls, or the floor is the cap */
    for (uint64_t a = 1; a < 5000; a += 37)
        for (uint64_t n = 1; n < 9000; n += 101) {
            uint64_t f = plan_run_floor(a, n);
            ck_assert(f >= 1 && f <= PLAN_RUN_MAX);
            ck_assert(f == PLAN_RUN_MAX || a * PLAN_RUN_SHARE <= f * n);
            ck_assert(f == 1 || a * PLAN_RUN_SHARE > (f - 1) * n); /* the shortest */
        }
}
END_TEST

START_TEST(budget_arithmetic)
{
    plan_budget b = {0};
    ck_assert(plan_budget_allows(&b, 0, 2));
    ck_assert(!plan_budget_allows(&b, 1, 100));
    plan_budget_cost(&b, 1000, 900, 0, 0); /* a native call of 900 in a call of 1000 */
    ck_assert_uint_eq(b.total_ps, 1000);
    ck_assert_uint_eq(b.last_native_ps, 900);
    ck_assert_uint_eq(b.overhead_ps, 100); /* its agreement: the overhead of MPI's calls */
    plan_budget_unchecked(&b, 10); /* ten more at 900 */
    ck_assert_uint_eq(b.total_ps, 10000);
    ck_assert(plan_budget_allows(&b, 200, 2));
    ck_assert(!plan_budget_allows(&b, 201, 2));
    plan_budget_cost(&b, 1100, 0, 1, 1000); /* exploring: 100 over the best estimate */
    ck_assert_uint_eq(b.explore_ps, 100);
    ck_assert_uint_eq(b.total_ps, 11100);
    ck_assert(plan_budget_allows(&b, 122, 2));
    ck_assert(!plan_budget_allows(&b, 123, 2));
    plan_budget_cost(&b, 500, 0, 1, 1000); /* an exploration that won costs nothing */
    ck_assert_uint_eq(b.explore_ps, 100);
    ck_assert_uint_eq(b.overhead_ps, 100); /* a plan's calls are not MPI's overhead */
    ck_assert(!plan_budget_allows(&b, 0, 0));
    /* predicted: the difference, at least a tenth of the best */
    /* calls until the budget allows: 2 % of 1000 is 20; 50 needs 1500 more, 15 calls of 100 */
    plan_budget w = {.total_ps = 1000, .last_native_ps = 100};
    ck_assert_uint_eq(plan_budget_calls_until(&w, 20, 2), 0);
    ck_assert_uint_eq(plan_budget_calls_until(&w, 50, 2), 15);
    plan_budget_unchecked(&w, 14);
    ck_assert(!plan_budget_allows(&w, 50, 2));
    plan_budget_unchecked(&w, 1);
    ck_assert(plan_budget_allows(&w, 50, 2));
    ck_assert_uint_eq(plan_budget_calls_until(&w, 51, 0), UINT64_MAX);
    w.last_native_ps = 0;
    ck_assert_uint_eq(plan_budget_calls_until(&w, 1000, 2), UINT64_MAX);
    /* paying back: 10 % faster is not enough (the safety margin); 50 % faster pays back a
     * prediction of 100 once 4 calls of 100 were made (its saving counted over half of them)
     * and nothing was explored before */
    plan_budget p = {.total_ps = 400};
    ck_assert(!plan_budget_pays_back(&(plan_budget){.total_ps = 399}, 100, 100, 50));
    ck_assert(!plan_budget_pays_back(&p, 1, 100, 91));
    ck_assert(plan_budget_pays_back(&p, 100, 100, 50));
    /* exploring that pays back goes ahead (its risk within PLAN_FORECAST_RISK_PCT), but never
     * with a budget of 0 (HRELAY_EXPLORE_BUDGET=0: never explore) */
    plan_wait pw = {.pred_ps = 100, .best_ps = 100, .est_ps = 50};
    ck_assert(plan_wait_allows(&p, &pw, 2));
    ck_assert(!plan_wait_allows(&p, &pw, 0));
    ck_assert(!plan_budget_pays_back(&p, 101, 100, 50));
    p.explore_ps = 1; /* what was explored before counts too */
    ck_assert(!plan_budget_pays_back(&p, 100, 100, 50));
    p.total_ps = 0;
    ck_assert(!plan_budget_pays_back(&p, 0, 100, 50)); /* nothing made yet, 1 spent */
    /* calls until exploring may go ahead: by the budget (2 % of 1000 + 15 calls of 100 covers
     * 50), or earlier by the saving: est 50 of best 100 pays back 50 once the total is
     * 50 * 100 * 2 / 50 = 200, and a risk of 30 once it is 30 * 100 / 4 = 750 */
    plan_budget q = {.total_ps = 100, .last_native_ps = 100};
    plan_wait qw = {.pred_ps = 50, .best_ps = 100, .est_ps = 50};
    ck_assert_uint_eq(plan_wait_calls_until(&q, &qw, 2), 1);
    qw.risk_ps = 30;
    ck_assert_uint_eq(plan_wait_calls_until(&q, &qw, 2), 7);
    plan_budget_unchecked(&q, 6);
    ck_assert(!plan_wait_allows(&q, &qw, 2));
    plan_budget_unchecked(&q, 1);
    ck_assert(plan_wait_allows(&q, &qw, 2));
    ck_assert_uint_eq(plan_wait_calls_until(&q, &qw, 2), 0);
    /* what MPI's calls cost beyond their exchange counts against the risk: at a total of 800,
     * with 10 of overhead, 30 + 10 fits 4 % from a total of 1000 (two more calls of 100) */
    q.overhead_ps = 10;
    ck_assert(!plan_wait_allows(&q, &qw, 2));
    ck_assert_uint_eq(plan_wait_calls_until(&q, &qw, 2), 2);
    plan_budget_unchecked(&q, 1);
    ck_assert(!plan_wait_allows(&q, &qw, 2));
    plan_budget_unchecked(&q, 1);
    ck_assert(plan_wait_allows(&q, &qw, 2));
    q = (plan_budget){.total_ps = 100, .last_native_ps = 100};
    qw.est_ps = 91; /* within the safety margin: the budget alone, 2400 more at 100 per call */
    ck_assert_uint_eq(plan_wait_calls_until(&q, &qw, 2), 24);
    ck_assert_uint_eq(plan_wait_calls_until(&q, &qw, 0), UINT64_MAX); /* never explores */
    q.last_native_ps = 0; /* MPI's algorithm not measured: no count */
    ck_assert_uint_eq(plan_wait_calls_until(&q, &qw, 2), UINT64_MAX);
    ck_assert_uint_eq(plan_budget_predicted(150, 100), 50);
    ck_assert_uint_eq(plan_budget_predicted(101, 100), 10);
    ck_assert_uint_eq(plan_budget_predicted(50, 100), 10);
}
END_TEST

/* A drifting site: a history, the communicator's, a budget, and the inputs of a forecast. */
typedef struct site {
    plan_history *site, *comm;
    plan_budget budget;
    plan_cost_params c;
    plan_forecast_in in;
} site;

static void site_init(site *s)
{
    memset(s, 0, sizeof *s);
    s->site = calloc(1, sizeof *s->site);
    s->comm = calloc(1, sizeof *s->comm);
    ck_assert(s->site && s->comm);
    s->c = plan_cost_defaults();
    s->in = (plan_forecast_in){.kind = PLAN_NATIVE_ALLTOALLV,
                               .duplex = PLAN_DUPLEX_FULL,
                               .c = &s->c,
                               .families = (1u << PLAN_ALGO_DIRECT) | (1u << PLAN_ALGO_STEPWISE) |
                                           (1u << PLAN_ALGO_GREEDY) |
                                           (1u << PLAN_ALGO_TRANSPOSE) |
                                           (1u << PLAN_ALGO_FORWARD),
                               .site = s->site,
                               .comm = s->comm,
                               .budget = &s->budget,
                               .learn = 1,
                               .agree_ps = 30000000,
                               .gather_ps = 20000000,
                               .margin_pct = 50,
                               .budget_pct = 2,
                               .explore_min_ps = 20000000,
                               .explore_min_bytes = 4096};
}

static void site_free(site *s)
{
    free(s->site);
    free(s->comm);
}

/* Records a call of key in both histories (measured against model) and its cost. */
static void site_record(site *s, int key, int cls, uint64_t measured, uint64_t model,
                        int explored, uint64_t best)
{
    plan_learn_record(&s->site->learn, key, cls, measured, model);
    plan_learn_record(&s->comm->learn, key, cls, measured, model);
    plan_budget_cost(&s->budget, measured,
                     key == plan_learn_key(PLAN_ALGO_NATIVE, 0) ? measured : 0, explored, best);
}

/* A random dense matrix of 8 ranks with entries up to max_entry (a new pattern every call). */
static plan_summary drifting(uint64_t *st, uint64_t max_entry, const plan_cost_params *c)
{
    plan_matrix m;
    ck_assert_int_eq(plan_matrix_init(&m, 8, NULL), 0);
    random_matrix(&m, RM_DENSE, max_entry, st);
    plan_summary s = summary_of(&m, 65536, c);
    plan_matrix_free(&m);
    return s;
}

/* A site (site_init) whose model has native_pct and one random dense pattern of it (seed),
 * which s->in describes. The pattern's summary is the caller's to free. */
static plan_summary *site_with_pattern(site *s, uint32_t native_pct, uint64_t seed)
{
    site_init(s);
    s->c.native_pct = native_pct;
    plan_summary *sum = malloc(sizeof *sum);
    ck_assert(sum);
    *sum = drifting(&seed, 1 << 20, &s->c);
    s->in.s = sum;
    return sum;
}

/* One call of a drifting site whose true times are truth_native x native's model and
 * truth_plan x a family's optimistic model: forecasts, "runs" and records what ran, as the
 * shim does (the histories told how a gathered pattern ended and when MPI's algorithm was
 * measured). Returns the family that ran; *beside (if not NULL): MPI's algorithm ran measured
 * beside winning plans. */
static plan_algo drift_call_beside(site *s, const plan_summary *sum, uint32_t truth_native_pct,
                                   uint32_t truth_plan_pct, int *beside)
{
    plan_forecast f;
    s->in.s = sum;
    plan_history_calls(s->site, 1, 0);
    plan_history_calls(s->comm, 1, 0);
    plan_forecast_make(&s->in, &f);
    plan_algo ran = PLAN_ALGO_NATIVE;
    if (f.action == PLAN_FORECAST_GATHER) {
        uint64_t best = UINT64_MAX;
        for (int a = 1; a < PLAN_ALGO_COUNT; a++)
            if ((f.plan & (1u << a)) && f.est_ps[a] < best) {
                best = f.est_ps[a];
                ran = (plan_algo)a;
            }
        if (f.explore != PLAN_ALGO_NATIVE)
            ran = f.explore;
    }
    uint64_t model = ran == PLAN_ALGO_NATIVE
                         ? f.native_model
                         : plan_summary_optimistic(sum, ran, PLAN_DUPLEX_FULL, &s->c);
    uint32_t pct = ran == PLAN_ALGO_NATIVE ? truth_native_pct : truth_plan_pct;
    uint64_t measured = model * pct / 100;
    site_record(s, plan_learn_key(ran, ran == PLAN_ALGO_NATIVE ? 0 : PLAN_LEARN_BEFORE), f.cls,
                measured, model, f.exploring, f.best_ps);
    for (int h = 0; h < 2; h++) {
        plan_history *hist = h ? s->comm : s->site;
        if (f.action == PLAN_FORECAST_GATHER)
            plan_history_gather_result(hist, ran != PLAN_ALGO_NATIVE,
                                       f.explore != PLAN_ALGO_NATIVE);
        if (ran == PLAN_ALGO_NATIVE)
            plan_history_native_measured(hist, f.beside, measured, f.best_ps, s->in.budget_pct);
    }
    if (beside)
        *beside = f.beside;
    return ran;
}

/* drift_call_beside without asking whether MPI's algorithm ran beside plans. */
static plan_algo drift_call(site *s, const plan_summary *sum, uint32_t truth_native_pct,
                            uint32_t truth_plan_pct)
{
    return drift_call_beside(s, sum, truth_native_pct, truth_plan_pct, NULL);
}

START_TEST(forecast_corrects_30x_within_3_calls)
{
    /* the model says plans win (MPI's algorithm modeled with a large penalty for its
     * simultaneous flows), but every plan really takes 30 times its model: a plan not measured
     * yet is explored within the budget, and once measured no plan runs again (at most two
     * plan calls, the last within 3 calls of the first) */
    site s;
    site_init(&s);
    s.c.native_pct = 1000;
    uint64_t st = 30;
    int plans = 0, first_plan = -1, last = -1;
    for (int call = 0; call < 40; call++) {
        plan_summary sum = drifting(&st, 1 << 20, &s.c);
        if (drift_call(&s, &sum, 100, 3000) != PLAN_ALGO_NATIVE) {
            plans++;
            first_plan = first_plan < 0 ? call : first_plan;
            last = call;
        }
        free(sum.block);
    }
    ck_assert_int_ge(plans, 1); /* the model did say plans win */
    ck_assert_int_le(plans, 2);
    ck_assert_int_lt(last - first_plan, 3);
    site_free(&s);

    /* native really 30 times slower than its model: corrected by its first (measuring) call.
     * Families not measured yet are assumed as wrong as native (the model's common error), so
     * the first plan runs as an exploration (within the budget: after five calls' worth);
     * once measured, plans run on every call but those that measure MPI's algorithm beside
     * them (forecast_native_measured_beside_plans) */
    site_init(&s);
    s.c.native_pct = 0;
    st = 31;
    plans = 0;
    int first = -1;
    for (int call = 0; call < 12; call++) {
        plan_summary sum = drifting(&st, 1 << 20, &s.c);
        if (call == 1) {
            plan_forecast f;
            s.in.s = &sum;
            plan_forecast_make(&s.in, &f);
            ck_assert_uint_eq(f.native_ps / 30, f.native_model); /* within rounding */
        }
        int beside;
        int planned = drift_call_beside(&s, &sum, 3000, 100, &beside) != PLAN_ALGO_NATIVE;
        if (planned && first < 0)
            first = call;
        ck_assert(!(first >= 0 && !planned && !beside)); /* native again only beside plans */
        plans += planned;
        free(sum.block);
    }
    ck_assert_int_ge(first, 1);
    ck_assert_int_le(first, 6);
    site_free(&s);
}
END_TEST

/* A site of 8 ranks whose patterns never repeat and whose exploring never waits for the
 * budget (of budget_pct percent of an unbounded total), its calls run by drift_call_beside:
 * native_pct(call) x MPI's model for MPI's algorithm, plan_pct x its optimistic model for a
 * plan. Counts the calls that measured MPI's algorithm beside plans (with the plans run since
 * the previous one in gaps[]) and those that ran a plan. */
typedef struct beside_run {
    int besides, gaps[16], plans, first_win, last_win;
} beside_run;

static beside_run run_beside(uint64_t seed, int calls, uint32_t (*native_pct)(int call),
                             uint32_t plan_pct_of_native, uint32_t budget_pct)
{
    site s;
    site_init(&s);
    s.c.native_pct = 0;
    s.budget.total_ps = UINT64_MAX / 200;
    s.in.budget_pct = budget_pct;
    beside_run r = {.first_win = -1, .last_win = -1};
    int streak = 0;
    for (int call = 0; call < calls; call++) {
        plan_summary sum = drifting(&seed, 1 << 20, &s.c);
        s.in.s = &sum;
        plan_forecast f;
        plan_forecast_make(&s.in, &f);
        if (f.win) {
            r.first_win = r.first_win < 0 ? call : r.first_win;
            r.last_win = call;
        }
        uint64_t opt = plan_summary_optimistic(&sum, PLAN_ALGO_DIRECT, PLAN_DUPLEX_FULL, &s.c);
        uint32_t plan_pct = (uint32_t)(f.native_model * plan_pct_of_native / opt);
        int beside;
        plan_algo ran = drift_call_beside(&s, &sum, native_pct(call), plan_pct, &beside);
        free(sum.block);
        if (beside) {
            ck_assert_int_eq(ran, PLAN_ALGO_NATIVE);
            ck_assert_int_lt(r.besides, 16);
            r.gaps[r.besides++] = streak;
        }
        streak = ran != PLAN_ALGO_NATIVE ? streak + 1 : 0;
        r.plans += ran != PLAN_ALGO_NATIVE;
    }
    site_free(&s);
    return r;
}

/* MPI's calls at 3 or 5 times its model (disagreeing), in turn by call. */
static uint32_t native_3_or_5(int call)
{
    return call % 3 ? 300 : 500;
}

/* MPI's calls at 4 times its model, all alike. */
static uint32_t native_4(int call)
{
    (void)call;
    return 400;
}

/* MPI's calls bimodal, at 1 or 2 times its model: the first at 1, then an unlucky stretch at
 * 2 (calls 1 - 7: the families explored first, then MPI's algorithm measured twice), then
 * at 1. */
static uint32_t native_unlucky(int call)
{
    return call == 0 || call > 7 ? 100 : 200;
}

START_TEST(history_beside_interval)
{
    /* the plans before MPI's algorithm is measured beside them again, after each such measure
     * of it against the plans' estimate of 100 (budget 2 %): 10 % over the plans is paid by 5
     * plans' 2 % (from 2: at least 4, at most 8); 200 % over by 100 (4 times as many each
     * time: 20, 80, then the cap); no slower: back to 2; 1 % over: twice as many */
    plan_history h = {0};
    uint32_t pcts[] = {110, 300, 300, 300, 300, 100, 101, 99};
    enum { B = PLAN_HISTORY_BESIDE, M = PLAN_HISTORY_BESIDE_MAX };
    uint32_t gaps[] = {5, 20, 80, M, M, B, 4, B};
    for (int i = 0; i < 8; i++) {
        h.plan_streak = 7;
        plan_history_native_measured(&h, 1, pcts[i] * 1000000ull, 100000000ull, 2);
        ck_assert_uint_eq(h.plan_streak, 0);
        ck_assert_uint_eq(h.beside_gap, gaps[i]);
    }
    /* a call not measured beside plans leaves the interval as it is */
    plan_history_native_measured(&h, 0, 300000000ull, 100000000ull, 2);
    ck_assert_uint_eq(h.beside_gap, PLAN_HISTORY_BESIDE);
}
END_TEST

START_TEST(forecast_native_measured_beside_plans)
{
    /* patterns that never repeat, plans winning by their corrections (MPI's algorithm at 3 or
     * 5 x its model, direct at its own), a budget of 100 %: MPI's algorithm is measured again
     * beside them after 2 plans, then after twice as many each time it measures slower than
     * the plans' estimate (its excess, 2 - 4 x a plan, is paid by the saving of fewer plans) */
    beside_run r = run_beside(41, 60, native_3_or_5, 100, 100);
    ck_assert_int_ge(r.besides, 4);
    for (int i = 0; i < r.besides; i++) /* 2, 4, 8, 16 */
        ck_assert_int_eq(r.gaps[i], PLAN_HISTORY_BESIDE << i);
    ck_assert_int_ge(r.plans, 60 - 4 - r.besides); /* native's first calls, exploring, beside */

    /* the default budget of 2 %: such an excess would take hundreds of plans to pay, so the
     * interval grows four times each time (2, 8, then 32: later than the 60 calls) */
    r = run_beside(41, 60, native_3_or_5, 100, 2);
    ck_assert_int_eq(r.besides, 2);
    ck_assert_int_eq(r.gaps[0], PLAN_HISTORY_BESIDE);
    ck_assert_int_eq(r.gaps[1], 4 * PLAN_HISTORY_BESIDE);
    ck_assert_int_ge(r.plans, 60 - 4 - r.besides);

    /* MPI's calls alike (4 x its model): a call beside the plans would only cost */
    r = run_beside(41, 60, native_4, 100, 100);
    ck_assert_int_eq(r.besides, 0);
    ck_assert_int_ge(r.plans, 60 - 4);

    /* MPI's calls bimodal (1 or 2 x its model) and unlucky at first: its correction at 2 x,
     * direct (really 1.2 x MPI's model) wins by estimate; the calls of MPI's algorithm
     * measured beside it find it at 1 x, and within a few calls no plan wins any more
     * (without them its correction would stay at 2 x and direct win every later call) */
    for (int b = 0; b < 2; b++) { /* budgets of 100 % and 2 % alike */
        r = run_beside(43, 40, native_unlucky, 120, b ? 2 : 100);
        ck_assert_int_ge(r.first_win, 0);
        ck_assert_int_ge(r.besides, 1);
        ck_assert_int_lt(r.last_win, r.first_win + 10);
    }
}
END_TEST

START_TEST(forecast_outlier_does_not_flip)
{
    /* a site where direct wins by its measured correction (native 2x its model, direct 1x);
     * one call of direct measured 10 times slower leaves direct winning; the same outlier as
     * the only sample would not */
    uint64_t st = 77;
    for (int trial = 0; trial < 2; trial++) {
        site s;
        site_init(&s);
        s.c.native_pct = 0;
        for (int i = 0; i < 1000; i++) { /* a repeated pattern: set-up spread over 1000 */
            plan_history_calls(s.site, i == 0, 0);
            plan_history_calls(s.comm, i == 0, 0);
        }
        plan_summary sum = drifting(&st, 1 << 20, &s.c);
        s.in.s = &sum;
        plan_forecast f;
        plan_forecast_make(&s.in, &f);
        int cls = f.cls, nkey = plan_learn_key(PLAN_ALGO_NATIVE, 0),
            dkey = plan_learn_key(PLAN_ALGO_DIRECT, PLAN_LEARN_BEFORE);
        uint64_t opt = plan_summary_optimistic(&sum, PLAN_ALGO_DIRECT, PLAN_DUPLEX_FULL, &s.c);
        for (int i = 0; i < 3; i++)
            site_record(&s, nkey, cls, 2 * f.native_model, f.native_model, 0, 0);
        for (int i = 0; i < 3 && trial == 0; i++)
            site_record(&s, dkey, cls, opt, opt, 0, 0);
        site_record(&s, dkey, cls, 10 * opt, opt, 0, 0); /* the outlier */
        plan_forecast_make(&s.in, &f);
        ck_assert_int_eq(f.state[PLAN_ALGO_DIRECT], PLAN_LEARN_KNOWN);
        if (trial == 0) {
            ck_assert_int_eq(f.action, PLAN_FORECAST_GATHER);
            ck_assert(f.win & (1u << PLAN_ALGO_DIRECT));
        } else {
            ck_assert(!(f.win & (1u << PLAN_ALGO_DIRECT)));
        }
        free(sum.block);
        site_free(&s);
    }
}
END_TEST

START_TEST(forecast_tiny_never_explores)
{
    /* an MPI_Alltoall of one int per pair: MPI's algorithm is measured first (settled at
     * once: later calls may run unchecked), then runs with no plan gathered, planned or
     * explored, whatever the budget, even where the raw model says plans win */
    site s;
    site_init(&s);
    s.c.native_pct = 1000;
    s.c.alpha_ps = 1000000000; /* the model: MPI's call 1 ms per message */
    s.in.budget_pct = 100;
    s.budget.total_ps = UINT64_MAX / 200;
    plan_matrix m;
    ck_assert_int_eq(plan_matrix_init(&m, 8, NULL), 0);
    for (int i = 0; i < 64; i++)
        m.bytes[i] = 4;
    plan_summary sum = summary_of(&m, 65536, &s.c);
    s.in.s = &sum;
    s.in.kind = PLAN_NATIVE_ALLTOALL;
    plan_forecast f;
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.action, PLAN_FORECAST_NATIVE);
    ck_assert_int_eq(f.measure_native, 1);
    ck_assert_int_eq(f.settled, 1); /* too few bytes for plans whatever it measures */
    ck_assert_int_eq(f.tiny, 1);
    for (int call = 0; call < 50; call++) {
        site_record(&s, plan_learn_key(PLAN_ALGO_NATIVE, 0), f.cls, 2000000, f.native_model, 0,
                    0);
        plan_forecast_make(&s.in, &f);
        ck_assert_int_eq(f.action, PLAN_FORECAST_NATIVE);
        ck_assert_int_eq(f.exploring, 0);
        ck_assert_int_eq(f.settled, 1);
    }
    /* with learning off (HRELAY_TUNE=0) the raw model decides: plans gathered */
    s.in.learn = 0;
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.action, PLAN_FORECAST_GATHER);
    free(sum.block);
    plan_matrix_free(&m);
    site_free(&s);
}
END_TEST

START_TEST(forecast_explores_within_budget)
{
    /* native measured 20 % faster than direct's optimistic time; families not measured yet
     * are assumed as wrong as native, so they are modeled about as fast as native, not faster
     * by the safety margin: nothing wins, and with an empty budget nothing is explored; once
     * the site has run long enough (a tenth of a call is 2 % of five calls) the closest family
     * not measured yet is explored, and once measured (slower) it is not explored again until
     * it is stale */
    site s;
    site_init(&s);
    s.c.native_pct = 0;
    s.c.step_ps = 0;
    uint64_t st = 5;
    plan_summary sum = drifting(&st, 1 << 20, &s.c);
    s.in.s = &sum;
    s.in.agree_ps = s.in.gather_ps = 0;
    s.c.plan_ps = 0;
    plan_forecast f;
    plan_forecast_make(&s.in, &f);
    int nkey = plan_learn_key(PLAN_ALGO_NATIVE, 0);
    /* native measured 20 % faster than direct's optimistic time */
    uint64_t opt = plan_summary_optimistic(&sum, PLAN_ALGO_DIRECT, PLAN_DUPLEX_FULL, &s.c);
    uint64_t native_true = opt * 100 / 120;
    site_record(&s, nkey, f.cls, native_true, f.native_model, 0, 0);
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.action, PLAN_FORECAST_NATIVE);
    ck_assert_int_eq(f.exploring, 0);
    ck_assert_int_eq(f.settled, 1);
    for (int i = 0; i < 3; i++)
        plan_budget_cost(&s.budget, native_true, native_true, 0, 0);
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.exploring, 0);
    plan_budget_cost(&s.budget, native_true, native_true, 0, 0);
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.action, PLAN_FORECAST_GATHER);
    ck_assert_int_eq(f.exploring, 1);
    ck_assert_int_ne(f.explore, PLAN_ALGO_NATIVE);
    ck_assert_uint_eq(f.plan, 1u << f.explore);
    plan_algo first = f.explore;
    /* the same call right after a run its site's drifting calls' settlement on an earlier
     * communicator started: MPI's algorithm, nothing explored, with that reason */
    s.in.drift_settled = 1;
    plan_forecast f_settled;
    plan_forecast_make(&s.in, &f_settled);
    ck_assert_int_eq(f_settled.action, PLAN_FORECAST_NATIVE);
    ck_assert_int_eq(f_settled.exploring, 0);
    ck_assert_ptr_nonnull(strstr(f_settled.why, "drifting calls"));
    s.in.drift_settled = 0;
    /* it measured 50 % slower than native: spent, and known */
    uint64_t model = plan_summary_optimistic(&sum, first, PLAN_DUPLEX_FULL, &s.c);
    site_record(&s, plan_learn_key(first, PLAN_LEARN_BEFORE), f.cls, native_true * 3 / 2, model, 1,
                f.best_ps);
    ck_assert_uint_eq(s.budget.explore_ps, native_true * 3 / 2 - f.best_ps);
    plan_forecast_make(&s.in, &f);
    ck_assert(f.explore != first);
    ck_assert_int_eq(f.state[first], PLAN_LEARN_KNOWN);
    free(sum.block);
    site_free(&s);
}
END_TEST

START_TEST(forecast_explore_cost_counts_agreements)
{
    /* exploring a family costs the agreements of the calls that measure it against native
     * (2 trials of them, each a twentieth of native's call here): with trials = 3 the budget
     * must cover 0.3 native calls more than without, so exploring waits longer */
    site s;
    site_init(&s);
    s.c.native_pct = 0;
    s.c.step_ps = 0;
    s.c.plan_ps = 0;
    uint64_t st = 5;
    plan_summary sum = drifting(&st, 1 << 20, &s.c);
    s.in.s = &sum;
    s.in.gather_ps = 0;
    plan_forecast f;
    plan_forecast_make(&s.in, &f);
    uint64_t opt = plan_summary_optimistic(&sum, PLAN_ALGO_DIRECT, PLAN_DUPLEX_FULL, &s.c);
    uint64_t native_true = opt * 100 / 120;
    s.in.agree_ps = native_true / 20;
    site_record(&s, plan_learn_key(PLAN_ALGO_NATIVE, 0), f.cls, native_true, f.native_model,
                0, 0);
    s.budget.total_ps = 0;
    plan_forecast_make(&s.in, &f);
    uint64_t est = UINT64_MAX;
    for (int a = 1; a < PLAN_ALGO_COUNT; a++)
        est = f.est_ps[a] < est ? f.est_ps[a] : est;
    s.in.trials = 3;
    ck_assert_uint_eq(plan_forecast_explore_cost(&s.in, &f, PLAN_ALGO_DIRECT, est, f.native_ps),
                      plan_budget_predicted(est, f.native_ps) + 6 * (native_true / 20));
    for (int i = 0; i < 12; i++)
        plan_budget_cost(&s.budget, native_true, native_true, 0, 0);
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.exploring, 0);
    ck_assert_int_eq(f.waiting, 1);
    s.in.trials = 0;
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.exploring, 1);
    s.in.trials = 3;
    for (int i = 0; i < 30; i++)
        plan_budget_cost(&s.budget, native_true, native_true, 0, 0);
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.exploring, 1);
    free(sum.block);
    site_free(&s);
}
END_TEST

START_TEST(forecast_explore_cost_counts_the_setup)
{
    /* the exploring call pays the new pattern's whole set-up (agreement, gather, planning),
     * which a family's estimate spreads over the calls per pattern (10 here): the part spread
     * over later calls is added, corrected while no gather has been measured by the smaller
     * of the agreement's correction (measured twice the model) and MPI's exchange's (3 times),
     * then by the gather's own */
    site s;
    site_init(&s);
    s.c.plan_ps = 0;
    s.in.trials = 3;
    uint64_t st = 9;
    plan_summary sum = drifting(&st, 1 << 20, &s.c);
    s.in.s = &sum;
    for (int i = 0; i < 40; i++)
        plan_history_calls(s.site, i % 10 == 0, 0);
    plan_forecast f;
    plan_forecast_make(&s.in, &f);
    site_record(&s, plan_learn_key(PLAN_ALGO_NATIVE, 0), f.cls, 3 * f.native_model,
                f.native_model, 0, 0);
    site_record(&s, PLAN_LEARN_HIT, f.cls, 2 * s.in.agree_ps, s.in.agree_ps, 0, 0);
    plan_forecast_make(&s.in, &f);
    ck_assert_uint_eq(f.reuse, 10);
    ck_assert_uint_eq(f.ratio_hit, 2 * PLAN_LEARN_ONE);
    ck_assert_uint_eq(f.ratio_miss, f.ratio_hit);
    uint64_t est = f.est_ps[PLAN_ALGO_DIRECT];
    uint64_t setup = 2 * (s.in.agree_ps + s.in.gather_ps);
    ck_assert_uint_eq(plan_forecast_explore_cost(&s.in, &f, PLAN_ALGO_DIRECT, est, f.native_ps),
                      plan_budget_predicted(est, f.native_ps) + 6 * 2 * s.in.agree_ps +
                          setup * 9 / 10);
    /* MPI's exchange measured as modeled since: its correction (1) is the smaller */
    for (int i = 0; i < 2; i++)
        site_record(&s, plan_learn_key(PLAN_ALGO_NATIVE, 0), f.cls, f.native_model,
                    f.native_model, 0, 0);
    plan_forecast_make(&s.in, &f);
    ck_assert_uint_eq(f.ratio_miss, PLAN_LEARN_ONE);
    /* a gather measured at 5 times its model: its own correction */
    uint64_t model = s.in.agree_ps + s.in.gather_ps;
    site_record(&s, PLAN_LEARN_MISS, f.cls, 5 * model, model, 0, 0);
    plan_forecast_make(&s.in, &f);
    ck_assert_uint_eq(f.ratio_miss, 5 * PLAN_LEARN_ONE);
    est = f.est_ps[PLAN_ALGO_DIRECT];
    ck_assert_uint_eq(plan_forecast_explore_cost(&s.in, &f, PLAN_ALGO_DIRECT, est, f.native_ps),
                      plan_budget_predicted(est, f.native_ps) + 6 * 2 * s.in.agree_ps +
                          5 * model * 9 / 10);
    free(sum.block);
    site_free(&s);
}
END_TEST

START_TEST(forecast_corrects_the_optimistic_time)
{
    /* a family whose plans run as their plan model says but twice its most optimistic time
     * (the summary's, before gathering): the forecast corrects the optimistic time by what was
     * measured against it (key PLAN_LEARN_BEFORE), not by the plan model's correction, so it
     * does not gather for a plan that cannot beat native measured at 1.5 times that time; a
     * gathered plan is corrected by its own key */
    site s;
    site_init(&s);
    s.c.plan_ps = 0;
    uint64_t st = 7;
    plan_summary sum = drifting(&st, 1 << 20, &s.c);
    s.in.s = &sum;
    s.in.agree_ps = s.in.gather_ps = 0;
    s.in.families = 1u << PLAN_ALGO_DIRECT;
    plan_forecast f;
    plan_forecast_make(&s.in, &f);
    uint64_t opt = plan_summary_optimistic(&sum, PLAN_ALGO_DIRECT, PLAN_DUPLEX_FULL, &s.c);
    site_record(&s, plan_learn_key(PLAN_ALGO_NATIVE, 0), f.cls, 3 * opt / 2, f.native_model, 0,
                0);
    site_record(&s, plan_learn_key(PLAN_ALGO_DIRECT, 0), f.cls, 2 * opt, 2 * opt, 0, 0);
    site_record(&s, plan_learn_key(PLAN_ALGO_DIRECT, PLAN_LEARN_BEFORE), f.cls, 2 * opt, opt, 0,
                0);
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.state[PLAN_ALGO_DIRECT], PLAN_LEARN_KNOWN);
    ck_assert_uint_eq(f.ratio[PLAN_ALGO_DIRECT], 2 * PLAN_LEARN_ONE);
    ck_assert_uint_eq(f.ratio_plan[PLAN_ALGO_DIRECT], PLAN_LEARN_ONE);
    ck_assert_uint_ge(f.est_ps[PLAN_ALGO_DIRECT], 2 * opt);
    ck_assert_uint_eq(f.win, 0);
    ck_assert_int_eq(f.action, PLAN_FORECAST_NATIVE);
    ck_assert_uint_eq(plan_forecast_plan(&f, PLAN_ALGO_DIRECT, 0, 5 * opt, 0, 0, 0), 5 * opt);
    /* measured at its optimistic time, the same family wins */
    for (int i = 0; i < PLAN_LEARN_RING; i++)
        site_record(&s, plan_learn_key(PLAN_ALGO_DIRECT, PLAN_LEARN_BEFORE), f.cls, opt, opt, 0,
                    0);
    plan_forecast_make(&s.in, &f);
    ck_assert(f.win & (1u << PLAN_ALGO_DIRECT));
    free(sum.block);
    site_free(&s);
}
END_TEST

/* A gathered plan's time per variant: as configured by the family's plan correction, the
 * small window by its own, node-aggregate through the node's window by its own; borrowed (the
 * family's, with the safety margin) while that variant is not measured. */
START_TEST(forecast_corrects_each_variant)
{
    const plan_algo a = PLAN_ALGO_NODE_AGGREGATE;
    const uint64_t model = 1000000;
    plan_forecast f;
    memset(&f, 0, sizeof f);
    f.reuse = 1;
    f.ratio_plan[a] = PLAN_LEARN_ONE;
    f.state_plan[a] = PLAN_LEARN_KNOWN;
    f.ratio_small[a] = 3 * PLAN_LEARN_ONE;
    f.state_small[a] = PLAN_LEARN_KNOWN;
    f.ratio_node_window = 2 * PLAN_LEARN_ONE;
    f.state_node_window = PLAN_LEARN_KNOWN;
    ck_assert_uint_eq(plan_forecast_plan(&f, a, PLAN_VARIANT_BASE, model, 0, 0, 0), model);
    ck_assert_uint_eq(plan_forecast_plan(&f, a, PLAN_VARIANT_SMALL_WINDOW, model, 0, 0, 0),
                      3 * model);
    ck_assert_uint_eq(plan_forecast_plan(&f, a, PLAN_VARIANT_NODE_WINDOW, model, 0, 0, 0),
                      2 * model);
    ck_assert(!plan_forecast_borrowed(&f, a, PLAN_VARIANT_NODE_WINDOW));
    /* the node's window is node-aggregate's alone: another family's is its plan's, unmeasured */
    f.ratio_plan[PLAN_ALGO_NODE_DIRECT] = PLAN_LEARN_ONE;
    f.state_plan[PLAN_ALGO_NODE_DIRECT] = PLAN_LEARN_UNKNOWN;
    ck_assert_uint_eq(plan_forecast_plan(&f, PLAN_ALGO_NODE_DIRECT, PLAN_VARIANT_NODE_WINDOW, model,
                                         0, 0, 0),
                      model + model * PLAN_FORECAST_SAFETY / 100);
    f.state_node_window = PLAN_LEARN_UNKNOWN;
    ck_assert(!plan_forecast_borrowed(&f, a, PLAN_VARIANT_NODE_WINDOW)); /* its plan's is known */
    f.state_plan[a] = PLAN_LEARN_UNKNOWN;
    ck_assert(plan_forecast_borrowed(&f, a, PLAN_VARIANT_NODE_WINDOW));
    ck_assert_uint_eq(plan_forecast_plan(&f, a, PLAN_VARIANT_NODE_WINDOW, model, 0, 0, 0),
                      2 * model + 2 * model * PLAN_FORECAST_SAFETY / 100);
}
END_TEST

START_TEST(forecast_reexplores_stale_family)
{
    /* direct measured once 10 times slower than its model (an unlucky call) at a site where
     * native is measured: direct is not tried while that is fresh, nor explored (far beyond
     * the margin); once stale it is explored again when the budget allows, and a good
     * measurement then makes it win */
    site s;
    site_init(&s);
    s.c.native_pct = 0;
    s.in.families = 1u << PLAN_ALGO_DIRECT;
    uint64_t st = 12;
    plan_summary sum = drifting(&st, 1 << 20, &s.c);
    s.in.s = &sum;
    s.in.agree_ps = s.in.gather_ps = 0;
    s.c.plan_ps = 0;
    plan_forecast f;
    plan_forecast_make(&s.in, &f);
    int nkey = plan_learn_key(PLAN_ALGO_NATIVE, 0), dkey = plan_learn_key(PLAN_ALGO_DIRECT, PLAN_LEARN_BEFORE);
    uint64_t opt = plan_summary_optimistic(&sum, PLAN_ALGO_DIRECT, PLAN_DUPLEX_FULL, &s.c);
    uint64_t native_true = opt * 2; /* direct really wins by half */
    site_record(&s, nkey, f.cls, native_true, f.native_model, 0, 0);
    site_record(&s, dkey, f.cls, 10 * opt, opt, 0, 0); /* the unlucky call */
    s.budget.total_ps = 1000 * native_true;
    for (int i = 0; i < PLAN_LEARN_STALE_MIN - 1; i++) {
        plan_history_calls(s.site, 1, 0);
        plan_history_calls(s.comm, 1, 0);
        site_record(&s, nkey, f.cls, native_true, f.native_model, 0, 0);
        plan_forecast_make(&s.in, &f);
        ck_assert_int_eq(f.action, PLAN_FORECAST_NATIVE);
    }
    plan_history_calls(s.site, 1, 0);
    plan_history_calls(s.comm, 1, 0);
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.state[PLAN_ALGO_DIRECT], PLAN_LEARN_STALE);
    ck_assert_int_eq(f.action, PLAN_FORECAST_GATHER);
    ck_assert_int_eq(f.explore, PLAN_ALGO_DIRECT);
    site_record(&s, dkey, f.cls, opt, opt, 1, f.best_ps);
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.state[PLAN_ALGO_DIRECT], PLAN_LEARN_KNOWN);
    ck_assert(f.win & (1u << PLAN_ALGO_DIRECT));
    free(sum.block);
    site_free(&s);
}
END_TEST

START_TEST(forecast_measures_stale_native)
{
    /* a site where a plan wins: native measured long ago is measured again (once the budget
     * allows), which counts as exploring */
    site s;
    plan_summary *sum = site_with_pattern(&s, 500, 9);
    for (int i = 0; i < 100; i++) {
        plan_history_calls(s.site, i == 0, 0);
        plan_history_calls(s.comm, i == 0, 0);
    }
    plan_forecast f;
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.measure_native, 1);
    site_record(&s, plan_learn_key(PLAN_ALGO_NATIVE, 0), f.cls, f.native_model, f.native_model,
                0, 0);
    plan_forecast_make(&s.in, &f);
    /* direct not measured: no budget yet, but estimated so much faster than native (6 times)
     * that exploring it pays for itself within the one call made so far */
    ck_assert_int_eq(f.action, PLAN_FORECAST_GATHER);
    ck_assert_int_eq(f.exploring, 1);
    ck_assert_int_eq(f.explore, PLAN_ALGO_DIRECT);
    uint64_t direct = plan_summary_optimistic(sum, PLAN_ALGO_DIRECT, PLAN_DUPLEX_FULL, &s.c);
    site_record(&s, plan_learn_key(PLAN_ALGO_DIRECT, PLAN_LEARN_BEFORE), f.cls, direct, direct, 0, 0);
    plan_forecast_make(&s.in, &f); /* native measured once: once more, not exploring */
    ck_assert_int_eq(f.action, PLAN_FORECAST_NATIVE);
    ck_assert_int_eq(f.measure_native, 1);
    ck_assert_int_eq(f.exploring, 0);
    site_record(&s, plan_learn_key(PLAN_ALGO_NATIVE, 0), f.cls, f.native_model, f.native_model,
                0, 0);
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.action, PLAN_FORECAST_GATHER); /* measured: it wins */
    ck_assert_int_eq(f.measure_native, 0);
    s.site->learn.now += PLAN_LEARN_STALE_MIN;
    s.comm->learn.now += PLAN_LEARN_STALE_MIN;
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.native_state, PLAN_LEARN_STALE);
    ck_assert_int_eq(f.action, PLAN_FORECAST_GATHER); /* no budget yet */
    s.budget.total_ps = 1000 * f.native_ps;
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.action, PLAN_FORECAST_NATIVE);
    ck_assert_int_eq(f.measure_native, 1);
    ck_assert_int_eq(f.exploring, 1);
    free(sum->block);
    free(sum);
    site_free(&s);
}
END_TEST

START_TEST(forecast_explore_risk_waits)
{
    /* direct estimated 6 times faster than MPI's algorithm pays exploring back at once, but
     * where an agreement costs a fifth of MPI's call, what exploring costs whatever direct
     * saves (the measuring calls' agreements and the gather: about 1.4 calls) must first fit
     * within 4 % of the time so far: it waits about 35 calls, and explores as soon as that
     * fits; with agreements a thousandth of a call it explores at once */
    for (int dear = 1; dear >= 0; dear--) {
        site s;
        plan_summary *sum = site_with_pattern(&s, 500, 9);
        for (int i = 0; i < 100; i++) {
            plan_history_calls(s.site, i == 0, 0);
            plan_history_calls(s.comm, i == 0, 0);
        }
        s.c.plan_ps = 0;
        s.in.gather_ps = 0;
        s.in.trials = 3; /* HRELAY_TUNE's default */
        plan_forecast f;
        plan_forecast_make(&s.in, &f);
        site_record(&s, plan_learn_key(PLAN_ALGO_NATIVE, 0), f.cls, f.native_model, f.native_model,
                    0, 0);
        s.in.agree_ps = dear ? f.native_model / 5 : f.native_model / 1000;
        plan_forecast_make(&s.in, &f);
        uint64_t risk = plan_forecast_explore_risk(&s.in, &f, PLAN_ALGO_DIRECT);
        ck_assert_uint_ge(risk, dear ? f.native_ps * 7 / 5 : f.native_ps * 7 / 1000);
        int more = 0;
        while (f.action == PLAN_FORECAST_NATIVE && more < 100) {
            ck_assert_int_eq(f.waiting, 1);
            ck_assert(!plan_budget_allows(&s.budget, risk, PLAN_FORECAST_RISK_PCT));
            plan_budget_cost(&s.budget, f.native_ps, f.native_ps, 0, 0);
            more++;
            plan_forecast_make(&s.in, &f);
        }
        ck_assert_int_eq(f.action, PLAN_FORECAST_GATHER);
        ck_assert_int_eq(f.exploring, 1);
        ck_assert_int_eq(f.explore, PLAN_ALGO_DIRECT);
        if (dear) {
            ck_assert(plan_budget_allows(&s.budget, risk, PLAN_FORECAST_RISK_PCT));
            ck_assert_int_ge(more, 30);
            ck_assert_int_le(more, 40);
        } else {
            ck_assert_int_eq(more, 0);
        }
        free(sum->block);
        free(sum);
        site_free(&s);
    }
}
END_TEST

START_TEST(forecast_native_single_call_measured_again)
{
    /* MPI's algorithm's first call at a size took 4 times what it takes later (cold
     * connections); a plan measured at twice native's model wins against that one call, so
     * native is measured once more (not exploring); measured at its model, native wins: no
     * gather. The plan's win stands where native's second call confirms the first */
    for (int confirm = 0; confirm < 2; confirm++) {
        site s;
        plan_summary *sum = site_with_pattern(&s, 0, 21);
        plan_forecast f;
        plan_forecast_make(&s.in, &f);
        ck_assert_int_eq(f.measure_native, 1); /* not measured yet */
        uint64_t native = f.native_model;
        int key = plan_learn_key(PLAN_ALGO_NATIVE, 0);
        site_record(&s, key, f.cls, 4 * native, native, 0, 0);
        uint64_t direct = plan_summary_optimistic(sum, PLAN_ALGO_DIRECT, PLAN_DUPLEX_FULL, &s.c);
        site_record(&s, plan_learn_key(PLAN_ALGO_DIRECT, PLAN_LEARN_BEFORE), f.cls, 2 * native,
                    direct, 0, 0);
        plan_forecast_make(&s.in, &f);
        ck_assert_int_eq(f.action, PLAN_FORECAST_NATIVE);
        ck_assert_int_eq(f.measure_native, 1);
        ck_assert_int_eq(f.exploring, 0);
        site_record(&s, key, f.cls, confirm ? 4 * native : native, native, 0, 0);
        plan_forecast_make(&s.in, &f);
        ck_assert_int_eq(f.measure_native, 0);
        ck_assert_int_eq(f.action, confirm ? PLAN_FORECAST_GATHER : PLAN_FORECAST_NATIVE);
        ck_assert_uint_eq(f.native_ps, confirm ? 4 * native : native);
        free(sum->block);
        free(sum);
        site_free(&s);
    }
}
END_TEST

/* A small-window variant runs a new pattern's first call ahead of its family (small_first)
 * only where no pattern of the site has repeated so far and MPI's calls stall, or the family's
 * own (the samples of the correction disagree by more than 3/2): no later call of a pattern
 * could measure it there (16 emulated hosts, 5 ms switch buffers: a drifting sample sort's MPI
 * calls took 110 or 270 ms, `direct` with a window of 4 105 - 115 ms), also before the site
 * has met enough patterns to be called drifting (its first plan, with the large window,
 * stalled at 271 ms and held every family's estimate there), and where MPI's first calls were
 * alike but the family's, with the large window, took 110 or 280 ms. */
START_TEST(forecast_small_first_where_calls_stall)
{
    /* MPI's calls: 0: stall, drifting; 1: steady; 2: stall, repeating; 3: stall, two patterns
     * so far; 4: steady, direct's own calls stall, drifting */
    for (int c = 0; c < 5; c++) {
        site s;
        plan_summary *sum = site_with_pattern(&s, 0, 23);
        plan_forecast f;
        plan_forecast_make(&s.in, &f);
        ck_assert_int_eq(f.small_first, 0); /* nothing known */
        uint64_t native = f.native_model;
        int key = plan_learn_key(PLAN_ALGO_NATIVE, 0),
            dkey = plan_learn_key(PLAN_ALGO_DIRECT, PLAN_VARIANT_BASE);
        for (int k = 0; k < 4; k++) {
            if (c != 3 || k < 2) {
                plan_history_calls(s.site, 1, 0);
                plan_history_calls(s.comm, 1, 0);
            }
            if (c == 2)
                for (int again = 0; again < 3; again++) {
                    plan_history_calls(s.site, 0, 0);
                    plan_history_calls(s.comm, 0, 0);
                }
            uint64_t slow = k == 2 ? 5 * native / 2 : native;
            site_record(&s, key, f.cls, c == 1 || c == 4 ? native : slow, native, 0, 0);
            if (c == 4)
                site_record(&s, dkey, f.cls, slow, native, 0, 0);
        }
        plan_forecast_make(&s.in, &f);
        uint32_t families = ((1u << PLAN_ALGO_COUNT) - 1) & ~(1u << PLAN_ALGO_NATIVE);
        ck_assert_uint_eq(f.small_first, c == 0 || c == 3 ? families
                                         : c == 4         ? 1u << PLAN_ALGO_DIRECT
                                                          : 0u);
        free(sum->block);
        free(sum);
        site_free(&s);
    }
}
END_TEST

/* MPI's calls are steady (native_steady) once its correction rests on two calls that agree
 * within 5/4, no longer while a stalled call is among its last PLAN_LEARN_RING, whatever other
 * families' calls did, and never with learning off. */
START_TEST(forecast_native_steady)
{
    site s;
    plan_summary *sum = site_with_pattern(&s, 0, 31);
    plan_forecast f;
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.native_steady, 0); /* nothing measured */
    uint64_t native = f.native_model;
    int key = plan_learn_key(PLAN_ALGO_NATIVE, 0);
    site_record(&s, key, f.cls, 3 * native, native, 0, 0);
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.native_steady, 0); /* one call */
    site_record(&s, key, f.cls, 3 * native + 3 * native / 4, native, 0, 0);
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.native_steady, 1); /* two within 5/4 */
    site_record(&s, key, f.cls, 9 * native, native, 0, 0);
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.native_steady, 0); /* a stall among them */
    /* another family's calls say nothing of MPI's */
    for (int k = 0; k < PLAN_LEARN_RING; k++)
        site_record(&s, plan_learn_key(PLAN_ALGO_DIRECT, 0), f.cls, native, native, 0, 0);
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.native_steady, 0);
    /* the stall leaves the ring after PLAN_LEARN_RING steady calls */
    for (int k = 0; k < PLAN_LEARN_RING; k++)
        site_record(&s, key, f.cls, 3 * native, native, 0, 0);
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.native_steady, 1);
    s.in.learn = 0;
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.native_steady, 0);
    free(sum->block);
    free(sum);
    site_free(&s);
}
END_TEST

START_TEST(forecast_native_keys_with_nodes)
{
    /* several ranks per node: MPI's algorithm decided before gathering learns under its own
     * key (variant 1: the summary's rank-level model), the gathered pattern's two-level model
     * under (NATIVE, 0), which corrects it once measured (the forecast's until then) */
    site s;
    site_init(&s);
    s.c.native_pct = 500;
    s.in.native_variant = 1;
    uint64_t st = 11;
    plan_summary sum = drifting(&st, 1 << 20, &s.c);
    s.in.s = &sum;
    plan_forecast f;
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.measure_native, 1);
    ck_assert_int_eq(f.native_variant, 1);
    /* measured at the model under key 0: still not measured before gathering */
    site_record(&s, plan_learn_key(PLAN_ALGO_NATIVE, 0), f.cls, 3 * f.native_model,
                f.native_model, 0, 0);
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.measure_native, 1);
    site_record(&s, plan_learn_key(PLAN_ALGO_NATIVE, 1), f.cls, 2 * f.native_model,
                f.native_model, 0, 0);
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.measure_native, 0);
    ck_assert_uint_eq(f.native_ps, 2 * f.native_model);
    ck_assert_uint_eq(f.ratio_native_gathered, 3 * PLAN_LEARN_ONE);
    /* one rank per node: one key, the forecast's */
    s.in.native_variant = 0;
    plan_forecast_make(&s.in, &f);
    ck_assert_uint_eq(f.native_ps, 3 * f.native_model);
    ck_assert_uint_eq(f.ratio_native_gathered, 3 * PLAN_LEARN_ONE);
    /* learning off: no correction either way */
    s.in.native_variant = 1;
    s.in.learn = 0;
    plan_forecast_make(&s.in, &f);
    ck_assert_uint_eq(f.ratio_native_gathered, PLAN_LEARN_ONE);
    free(sum.block);
    site_free(&s);
}
END_TEST

START_TEST(forecast_node_families)
{
    /* several ranks per node: the node families are estimated from the node figures (one
     * step), the rank-level ones with their steps, so that on a uniform pattern node-direct
     * is estimated below direct and planned when it wins */
    site s;
    site_init(&s);
    s.c.native_pct = 1000;
    s.in.learn = 0;
    s.in.native_variant = 1;
    s.in.families |= (1u << PLAN_ALGO_NODE_DIRECT) | (1u << PLAN_ALGO_NODE_AGGREGATE);
    plan_matrix m;
    plan_topo t;
    plan_error err;
    ck_assert_int_eq(plan_matrix_init(&m, 8, NULL), 0);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++)
            m.bytes[i * 8 + j] = i == j ? 0 : 1 << 18;
    ck_assert_int_eq(plan_topo_consecutive(&t, 8, 4, &err), 0);
    plan_summary sum = summary_on(&m, &t, &s.c);
    s.in.s = &sum;
    plan_forecast f;
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.action, PLAN_FORECAST_GATHER);
    ck_assert_uint_lt(f.est_ps[PLAN_ALGO_NODE_DIRECT], f.est_ps[PLAN_ALGO_DIRECT]);
    ck_assert_uint_eq(f.est_ps[PLAN_ALGO_NODE_DIRECT], f.est_ps[PLAN_ALGO_NODE_AGGREGATE]);
    ck_assert(f.plan & (1u << PLAN_ALGO_NODE_DIRECT));
    ck_assert_uint_eq(f.est_ps[PLAN_ALGO_NODE_FORWARD], UINT64_MAX); /* not a family here */
    /* learning: native measured at its model, no family wins (the safety margin), every one
     * estimated below native is predicted to cost a tenth of it to explore: the lowest
     * estimate is explored, a node-level one */
    s.in.learn = 1;
    s.in.agree_ps = s.in.gather_ps = 0;
    s.c.plan_ps = 0;
    s.c.native_pct = 140; /* native modeled at 4.42 ms, node-direct at 4.196, direct 4.208 */
    s.budget.total_ps = UINT64_MAX / 2;
    free(sum.block);
    sum = summary_on(&m, &t, &s.c); /* its blocks under the new native_pct */
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.measure_native, 1);
    site_record(&s, plan_learn_key(PLAN_ALGO_NATIVE, 1), f.cls, f.native_model, f.native_model,
                0, 0);
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.measure_native, 0);
    ck_assert_uint_eq(f.win, 0);
    ck_assert_uint_lt(f.est_ps[PLAN_ALGO_NODE_DIRECT], f.native_ps);
    ck_assert_uint_lt(f.est_ps[PLAN_ALGO_DIRECT], f.native_ps);
    ck_assert_int_eq(f.action, PLAN_FORECAST_GATHER);
    ck_assert_int_eq(f.explore, PLAN_ALGO_NODE_DIRECT);
    /* the node-level bound: 4 ranks x 4 peers off-node x 256 KiB through each NIC */
    ck_assert_uint_eq(plan_summary_topo_bound(&sum, PLAN_DUPLEX_FULL, &s.c),
                      plan_cost_bytes(16u << 18, &s.c));
    free(sum.block);
    plan_topo_free(&t);
    plan_matrix_free(&m);
    site_free(&s);
}
END_TEST

/* A site (site_init) with the node-level families, MPI's model with native_pct, its
 * two-level key (native_variant 1), and no agreement, gather or planning cost. */
static void node_site_init(site *s, uint32_t native_pct)
{
    site_init(s);
    s->c.native_pct = native_pct;
    s->in.native_variant = 1;
    s->in.families |= (1u << PLAN_ALGO_NODE_DIRECT) | (1u << PLAN_ALGO_NODE_AGGREGATE);
    s->in.agree_ps = s->in.gather_ps = 0;
    s->c.plan_ps = 0;
}

/* A node-level forecast test's start: the site (node_site_init, native_pct 50), an empty
 * matrix of 8 ranks and their placement on 2 nodes of 4. */
static void node_case_init(site *s, plan_matrix *m, plan_topo *t)
{
    plan_error err;
    node_site_init(s, 50);
    ck_assert_int_eq(plan_matrix_init(m, 8, NULL), 0);
    ck_assert_int_eq(plan_topo_consecutive(t, 8, 4, &err), 0);
}

/* Frees what a node-level forecast test made: two summaries, the placement, the matrix and
 * the site. */
static void node_case_free(plan_summary *a, plan_summary *b, plan_topo *t, plan_matrix *m, site *s)
{
    free(a->block);
    free(b->block);
    plan_topo_free(t);
    plan_matrix_free(m);
    site_free(s);
}

START_TEST(forecast_native_sees_shared_nics)
{
    /* several ranks per node: MPI's algorithm before gathering is modeled at least at the
     * node-level bound (its rank-level blocks do not see 4 ranks sharing a NIC), so that a
     * correction learned from it (native measured at 2.5 times that) does not make every
     * node-level family, modeled on the shared NIC and assumed as wrong until measured, look
     * too slow to explore; and its all-at-once blocks send and receive at once over the NICs
     * (native_pct = 50 % of the smaller way more: 1.5 times the bound on a uniform exchange);
     * with one rank per node the model is the rank-level one */
    site s;
    plan_matrix m;
    plan_topo t;
    node_case_init(&s, &m, &t);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++)
            m.bytes[i * 8 + j] = i == j ? 0 : 1 << 18;
    plan_summary sum = summary_on(&m, &t, &s.c), flat = summary_on(&m, NULL, &s.c);
    uint64_t topo = plan_summary_topo_bound(&sum, PLAN_DUPLEX_FULL, &s.c);
    ck_assert_uint_gt(topo, plan_summary_native(&sum, PLAN_NATIVE_ALLTOALLV, &s.c));
    ck_assert_uint_eq(plan_summary_native_at(&sum, PLAN_NATIVE_ALLTOALLV, PLAN_DUPLEX_FULL, &s.c),
                      topo + topo / 2);
    ck_assert_uint_eq(plan_summary_native_at(&flat, PLAN_NATIVE_ALLTOALLV, PLAN_DUPLEX_FULL, &s.c),
                      plan_summary_native(&flat, PLAN_NATIVE_ALLTOALLV, &s.c));
    s.in.s = &sum;
    s.budget.total_ps = UINT64_MAX / 2;
    plan_forecast f;
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.measure_native, 1);
    ck_assert_uint_eq(f.native_model, topo + topo / 2);
    site_record(&s, plan_learn_key(PLAN_ALGO_NATIVE, 1), f.cls, 5 * f.native_model / 2,
                f.native_model, 0, 0);
    plan_forecast_make(&s.in, &f);
    ck_assert_uint_eq(f.win, 0); /* not measured: never wins */
    ck_assert_int_eq(f.action, PLAN_FORECAST_GATHER);
    ck_assert(plan_algo_is_node(f.explore));
    node_case_free(&sum, &flat, &t, &m, &s);
}
END_TEST

START_TEST(forecast_node_family_first_on_ties)
{
    /* several ranks per node, one message per rank, every one off its node (a permutation):
     * rank-level direct has one step as node-direct has, both are estimated at the NIC's
     * bound, and the node-level one is explored (its steps schedule the NICs, direct's put a
     * node's messages on its NIC together as MPI's algorithm does); with one rank per node
     * the same pattern explores direct, the lowest family of equal estimates as before */
    site s;
    plan_matrix m;
    plan_topo t;
    node_case_init(&s, &m, &t);
    for (int i = 0; i < 8; i++)
        m.bytes[i * 8 + (i + 5) % 8] = 1 << 18;
    plan_summary sum = summary_on(&m, &t, &s.c), flat = summary_on(&m, NULL, &s.c);
    s.budget.total_ps = UINT64_MAX / 2;
    const plan_summary *each[2] = {&sum, &flat};
    for (int k = 0; k < 2; k++) {
        s.in.s = each[k];
        plan_forecast f;
        plan_forecast_make(&s.in, &f);
        ck_assert_int_eq(f.measure_native, 1);
        site_record(&s, plan_learn_key(PLAN_ALGO_NATIVE, 1), f.cls, 2 * f.native_model,
                    f.native_model, 0, 0);
        plan_forecast_make(&s.in, &f);
        ck_assert_uint_eq(f.win, 0);
        ck_assert_uint_eq(f.est_ps[PLAN_ALGO_DIRECT], f.est_ps[PLAN_ALGO_NODE_DIRECT]);
        ck_assert_int_eq(f.action, PLAN_FORECAST_GATHER);
        ck_assert_int_eq(f.explore, k == 0 ? PLAN_ALGO_NODE_DIRECT : PLAN_ALGO_DIRECT);
        site_free(&s);
        node_site_init(&s, 50);
        s.budget.total_ps = UINT64_MAX / 2;
    }
    node_case_free(&sum, &flat, &t, &m, &s);
}
END_TEST

START_TEST(forecast_on_node_runs_native)
{
    /* 8 ranks on 3 nodes of uneven size, placed out of order, every byte within its node (an
     * FFT's transpose within the nodes): MPI's algorithm runs, settled from its first call on,
     * no family is estimated, explored or gathered for, even where the model (MPI's blocks
     * charged 10 times over, at the NIC's rate) says plans win by far and the budget is
     * unlimited, and with learning off; one byte more across a NIC, or the same bytes with one
     * rank per node, and a plan is explored */
    static const int32_t label[8] = {2, 0, 2, 1, 0, 2, 1, 2};
    site s;
    node_site_init(&s, 1000);
    s.budget.total_ps = UINT64_MAX / 2;
    plan_matrix m;
    plan_topo t;
    plan_error err;
    ck_assert_int_eq(plan_matrix_init(&m, 8, NULL), 0);
    ck_assert_int_eq(plan_topo_init(&t, 8, label, &err), 0);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++)
            m.bytes[i * 8 + j] = i != j && label[i] == label[j] ? (uint64_t)(i + 1) << 18 : 0;
    plan_summary sum = summary_on(&m, &t, &s.c), flat = summary_on(&m, NULL, &s.c);
    ck_assert(plan_summary_on_node(&sum));
    ck_assert(!plan_summary_on_node(&flat));
    s.in.s = &sum;
    plan_forecast f;
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.action, PLAN_FORECAST_NATIVE);
    ck_assert_int_eq(f.measure_native, 1);
    ck_assert_int_eq(f.settled, 1);
    ck_assert_int_eq(f.on_node, 1);
    for (int call = 0; call < 20; call++) {
        site_record(&s, plan_learn_key(PLAN_ALGO_NATIVE, 1), f.cls, 5 * f.native_model,
                    f.native_model, 0, 0);
        plan_forecast_make(&s.in, &f);
        ck_assert_int_eq(f.action, PLAN_FORECAST_NATIVE);
        ck_assert_int_eq(f.exploring, 0);
        ck_assert_int_eq(f.explore, PLAN_ALGO_NATIVE);
        ck_assert_int_eq(f.settled, 1);
        for (int a = 1; a < PLAN_ALGO_COUNT; a++)
            ck_assert_uint_eq(f.est_ps[a], UINT64_MAX);
    }
    s.in.learn = 0;
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.action, PLAN_FORECAST_NATIVE);
    s.in.learn = 1;
    /* the same bytes, one rank per node: families estimated from a NIC per rank, explored */
    s.in.s = &flat;
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.on_node, 0);
    ck_assert_int_eq(f.action, PLAN_FORECAST_GATHER);
    /* one byte across a NIC (rank 0 on node 2 to rank 1 on node 0) */
    m.bytes[0 * 8 + 1] = 1;
    free(sum.block);
    sum = summary_on(&m, &t, &s.c);
    ck_assert(!plan_summary_on_node(&sum));
    s.in.s = &sum;
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.on_node, 0);
    ck_assert_uint_lt(f.est_ps[PLAN_ALGO_NODE_DIRECT], f.native_ps);
    ck_assert_int_eq(f.action, PLAN_FORECAST_GATHER);
    node_case_free(&sum, &flat, &t, &m, &s);
}
END_TEST

START_TEST(forecast_node_path_at_scale)
{
    /* 1024 ranks on 8 nodes of 128: the P x P gather (8 MiB per rank) costs far more than
     * node-direct's node-level metadata (N (N + 1) + P words), so node-direct, its gather
     * modeled as that, is the family explored first, alone, on the node path; without the
     * node-level figure (or where it is not cheaper) the gather plans it as any family */
    enum { P = 1024, L = 128 };
    site s;
    site_init(&s);
    s.in.native_variant = 1;
    s.in.families |= (1u << PLAN_ALGO_NODE_DIRECT) | (1u << PLAN_ALGO_NODE_TRANSPOSE) |
                     (1u << PLAN_ALGO_NODE_FORWARD) | (1u << PLAN_ALGO_NODE_AGGREGATE);
    s.in.agree_ps = 0;
    s.in.gather_ps = plan_cost_gather(P, &s.c);
    s.in.node_gather_ps = plan_cost_node_gather(P, P / L, L, &s.c);
    ck_assert_uint_lt(s.in.node_gather_ps * 10, s.in.gather_ps);
    s.budget.total_ps = UINT64_MAX / 200;
    s.in.budget_pct = 100;
    plan_matrix m;
    plan_topo t;
    plan_error err;
    ck_assert_int_eq(plan_matrix_init(&m, P, NULL), 0);
    for (size_t k = 0; k < (size_t)P * P; k++)
        m.bytes[k] = k % (P + 1) ? 1 << 16 : 0;
    ck_assert_int_eq(plan_topo_consecutive(&t, P, L, &err), 0);
    plan_summary sum = summary_on(&m, &t, &s.c);
    s.in.s = &sum;
    plan_forecast f;
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.measure_native, 1);
    site_record(&s, plan_learn_key(PLAN_ALGO_NATIVE, 1), f.cls, 2 * f.native_model,
                f.native_model, 0, 0);
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.action, PLAN_FORECAST_GATHER);
    ck_assert_int_eq(f.explore, PLAN_ALGO_NODE_DIRECT);
    ck_assert_uint_eq(f.plan, 1u << PLAN_ALGO_NODE_DIRECT);
    ck_assert_int_eq(f.node_path, 1);
    s.in.node_gather_ps = s.in.gather_ps + 1; /* not cheaper: the gather */
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.node_path, 0);
    s.in.node_gather_ps = 0;
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.node_path, 0);
    free(sum.block);
    plan_topo_free(&t);
    plan_matrix_free(&m);
    site_free(&s);
}
END_TEST

START_TEST(forecast_futile_gather_explores)
{
    /* a site where a measured plan wins before gathering: it gathers; once a gathered pattern
     * ran MPI's algorithm after all, the next gather is exploring (none without budget: MPI's
     * algorithm runs, waiting, and later calls may go unchecked); a gathered pattern that ran
     * a plan ends that */
    site s;
    plan_summary *sum = site_with_pattern(&s, 500, 9);
    plan_forecast f;
    plan_forecast_make(&s.in, &f);
    for (int i = 0; i < 2; i++) /* native measured twice (once is measured again) */
        site_record(&s, plan_learn_key(PLAN_ALGO_NATIVE, 0), f.cls, f.native_model,
                    f.native_model, 0, 0);
    uint64_t direct = plan_summary_optimistic(sum, PLAN_ALGO_DIRECT, PLAN_DUPLEX_FULL, &s.c);
    site_record(&s, plan_learn_key(PLAN_ALGO_DIRECT, PLAN_LEARN_BEFORE), f.cls, direct, direct, 0, 0);
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.action, PLAN_FORECAST_GATHER);
    ck_assert_int_eq(f.exploring, 0);
    /* a gather that explored a family and ran MPI's algorithm is not futile */
    plan_history_gather_result(s.site, 0, 1);
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.action, PLAN_FORECAST_GATHER);
    ck_assert_int_eq(f.exploring, 0);
    plan_history_gather_result(s.site, 0, 0);
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.action, PLAN_FORECAST_NATIVE);
    ck_assert_int_eq(f.waiting, 1);
    ck_assert_int_eq(f.settled, 1);
    s.budget.total_ps = 1000 * f.native_ps;
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.action, PLAN_FORECAST_GATHER);
    ck_assert_int_eq(f.exploring, 1);
    ck_assert_uint_eq(f.best_ps, f.native_ps);
    plan_history_gather_result(s.site, 1, 0);
    s.budget.total_ps = 0;
    plan_forecast_make(&s.in, &f);
    ck_assert_int_eq(f.action, PLAN_FORECAST_GATHER);
    ck_assert_int_eq(f.exploring, 0);
    free(sum->block);
    free(sum);
    site_free(&s);
}
END_TEST

/* A site (site_with_pattern, native_pct 500, seed 9) whose MPI's algorithm was measured twice at
 * its model, and whose histories saw `calls` agreed calls of which `news` new patterns; its
 * forecast in *f. */
static plan_summary *measured_site(site *s, int calls, int news, plan_forecast *f)
{
    plan_summary *sum = site_with_pattern(s, 500, 9);
    for (int i = 0; i < calls; i++) {
        plan_history_calls(s->site, i < news, 0);
        plan_history_calls(s->comm, i < news, 0);
    }
    plan_forecast_make(&s->in, f);
    for (int i = 0; i < 2; i++)
        site_record(s, plan_learn_key(PLAN_ALGO_NATIVE, 0), f->cls, f->native_model,
                    f->native_model, 0, 0);
    plan_forecast_make(&s->in, f);
    return sum;
}

/* Records `direct`'s calls so that its estimate before gathering is pct percent of MPI's
 * algorithm's (f: the site's forecast), each of them measured at that, times spread_pct
 * percent for the last one; returns the forecast after. */
static void direct_at(site *s, const plan_summary *sum, plan_forecast *f, uint32_t pct, int n,
                      uint32_t spread_pct)
{
    uint64_t opt = plan_summary_optimistic(sum, PLAN_ALGO_DIRECT, PLAN_DUPLEX_FULL, &s->c);
    uint64_t extras = f->est_ps[PLAN_ALGO_DIRECT] -
                      plan_learn_apply(opt, f->ratio[PLAN_ALGO_DIRECT]);
    uint64_t run = f->native_ps * pct / 100 - extras;
    for (int i = 0; i < n; i++)
        site_record(s, plan_learn_key(PLAN_ALGO_DIRECT, PLAN_LEARN_BEFORE), f->cls,
                    i == n - 1 ? run * spread_pct / 100 : run, opt, 0, 0);
    plan_forecast_make(&s->in, f);
}

START_TEST(forecast_drifting_measured_plan_wins_by_edge)
{
    /* patterns that do not repeat: a family measured twice alike, estimated 6 % below MPI's
     * algorithm, wins (the edge of a round's measured candidates); not where patterns repeat
     * (the safety margin), nor where its calls disagree by more than 5/4, nor on one call, nor
     * where MPI's last call was faster than its correction says */
    struct {
        int calls, news, n;
        uint32_t spread_pct;
        int wins;
    } cases[] = {{4, 4, 2, 100, 1},
                 {8, 1, 2, 100, 0},
                 {4, 4, 3, 140, 0},
                 {4, 4, 1, 100, 0},
                 {6, 4, 2, 120, 1}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        site s;
        plan_forecast f;
        plan_summary *sum = measured_site(&s, cases[k].calls, cases[k].news, &f);
        ck_assert_int_eq(f.native_state, PLAN_LEARN_KNOWN);
        direct_at(&s, sum, &f, 94, cases[k].n, cases[k].spread_pct);
        ck_assert_uint_lt(f.est_ps[PLAN_ALGO_DIRECT], f.native_ps);
        ck_assert_uint_gt(f.est_ps[PLAN_ALGO_DIRECT] * 110 / 100, f.native_ps);
        ck_assert_int_eq(!!(f.win & (1u << PLAN_ALGO_DIRECT)), cases[k].wins);
        if (cases[k].wins) {
            ck_assert_int_eq(f.action, PLAN_FORECAST_GATHER);
            ck_assert_uint_eq(f.plan, 1u << PLAN_ALGO_DIRECT);
        }
        free(sum->block);
        free(sum);
        site_free(&s);
    }
    /* MPI's calls at 1, 1, 2, 1, 2 or 1, 1, 2, 2, 1 times its model (a correction of 1.25):
     * the edge where its last call was no faster than that, not where it was (the correction
     * still holds older, slower calls) */
    for (int last_fast = 0; last_fast < 2; last_fast++) {
        site s;
        plan_forecast f;
        plan_summary *sum = measured_site(&s, 4, 4, &f);
        uint32_t pct[3] = {200, last_fast ? 200 : 100, last_fast ? 100 : 200};
        for (int i = 0; i < 3; i++)
            site_record(&s, plan_learn_key(PLAN_ALGO_NATIVE, 0), f.cls,
                        f.native_model * pct[i] / 100, f.native_model, 0, 0);
        plan_forecast_make(&s.in, &f);
        ck_assert_uint_eq(f.ratio[PLAN_ALGO_NATIVE], PLAN_LEARN_ONE * 5 / 4);
        direct_at(&s, sum, &f, 94, 2, 100);
        ck_assert_int_eq(!!(f.win & (1u << PLAN_ALGO_DIRECT)), !last_fast);
        free(sum->block);
        free(sum);
        site_free(&s);
    }
}
END_TEST

START_TEST(forecast_explore_plans_measured_family_below_native)
{
    /* a gather that explores a family also plans the measured family estimated below MPI's
     * algorithm (by less than the margin), so that the pattern need not run MPI's algorithm
     * if the explored one turns out slower; not one estimated above it */
    for (int below = 0; below < 2; below++) {
        site s;
        plan_forecast f;
        plan_summary *sum = measured_site(&s, 8, 1, &f);
        direct_at(&s, sum, &f, below ? 94 : 104, 2, 100);
        s.budget.total_ps = 1000 * f.native_ps;
        plan_forecast_make(&s.in, &f);
        ck_assert_uint_eq(f.win, 0);
        ck_assert_int_eq(f.action, PLAN_FORECAST_GATHER);
        ck_assert_int_ne(f.explore, PLAN_ALGO_NATIVE);
        ck_assert_int_ne(f.explore, PLAN_ALGO_DIRECT);
        ck_assert_uint_eq(f.plan, (1u << f.explore) | (below ? 1u << PLAN_ALGO_DIRECT : 0));
        free(sum->block);
        free(sum);
        site_free(&s);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("learn");
    TCase *basic = tcase_create("basic"), *props = tcase_create("properties");
    tcase_add_test(basic, learn_ratio_estimate_and_reach);
    tcase_add_test(basic, learn_full_forgets_the_oldest);
    tcase_add_loop_test(basic, learn_view_matches_lookups, 0, 4);
    tcase_add_test(basic, learn_staleness_backs_off);
    tcase_add_test(basic, learn_view_latest);
    tcase_add_test(basic, budget_arithmetic);
    tcase_add_test(basic, run_floor_shares_the_agreement);
    tcase_add_test(basic, forecast_corrects_30x_within_3_calls);
    tcase_add_test(basic, forecast_outlier_does_not_flip);
    tcase_add_test(basic, history_beside_interval);
    tcase_add_test(basic, forecast_native_measured_beside_plans);
    tcase_add_test(basic, forecast_tiny_never_explores);
    tcase_add_test(basic, forecast_explores_within_budget);
    tcase_add_test(basic, forecast_reexplores_stale_family);
    tcase_add_test(basic, forecast_measures_stale_native);
    tcase_add_test(basic, forecast_explore_risk_waits);
    tcase_add_test(basic, forecast_native_single_call_measured_again);
    tcase_add_test(basic, forecast_small_first_where_calls_stall);
    tcase_add_test(basic, forecast_native_steady);
    tcase_add_test(basic, forecast_native_keys_with_nodes);
    tcase_add_test(basic, forecast_node_family_first_on_ties);
    tcase_add_test(basic, forecast_node_families);
    tcase_add_test(props, summary_equals_matrix);
    tcase_add_test(props, forecast_futile_gather_explores);
    tcase_add_test(props, forecast_drifting_measured_plan_wins_by_edge);
    tcase_add_test(props, forecast_explore_plans_measured_family_below_native);
    tcase_add_test(props, forecast_native_sees_shared_nics);
    tcase_add_test(props, forecast_on_node_runs_native);
    tcase_add_test(props, forecast_explore_cost_counts_agreements);
    tcase_add_test(props, forecast_explore_cost_counts_the_setup);
    tcase_add_test(props, forecast_corrects_the_optimistic_time);
    tcase_add_test(props, forecast_corrects_each_variant);
    tcase_add_test(props, summary_optimistic_is_a_lower_bound);
    tcase_add_test(props, summary_finds_mismatched_receives);
    tcase_add_test(props, summary_node_figures);
    tcase_add_test(props, forecast_node_path_at_scale);
    tcase_add_test(props, summary_node_optimistic_is_a_lower_bound);
    tcase_set_timeout(props, 120);
    suite_add_tcase(s, basic);
    suite_add_tcase(s, props);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
