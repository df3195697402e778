/* Every family, in both duplex modes, on matrix classes the planners were not tuned on, up to
 * P = 256: block-cyclic redistributions (cyclic(r) -> cyclic(Kr) on P ranks, Walker and Otto;
 * cyclic(r) on P -> cyclic(s) on Q, Desprez et al.), hot spots, heavy-tailed sizes (sparse and
 * dense), disjoint 3-cycles (Sanders and Solis-Oba's lower-bound instance). Each plan must pass
 * the independent verifier and meet its paper's bound. MPI-free; run by Check. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "matrix_classes.h"
#include "plan/plan.h"
#include "plan/walker_otto.h"
#include "plan_testlib.h"
#include "random_matrix.h"

/* The matrix classes. */
typedef enum mclass {
    MC_BLOCK_CYCLIC,
    MC_REDISTRIBUTION,
    MC_HOT_SPOTS,
    MC_HEAVY_SPARSE,
    MC_HEAVY_DENSE,
    MC_THREE_CYCLES,
    MC_COUNT
} mclass;

static const char *const class_names[MC_COUNT] = {
    "block-cyclic", "redistribution", "hot-spots", "heavy-tailed-sparse", "heavy-tailed-dense",
    "3-cycles"};

/* A matrix of class c on p ranks; *K is set to the block-cyclic K (0 for the others). */
static plan_matrix make(mclass c, int p, uint64_t *st, int *K)
{
    plan_matrix m;
    ck_assert_int_eq(plan_matrix_init(&m, p, NULL), 0);
    *K = 0;
    switch (c) {
    case MC_BLOCK_CYCLIC:
        *K = 2 + (int)rm_below(st, 2 * (uint64_t)p);
        mc_block_cyclic(&m, *K, 1 + rm_below(st, 1 << 16), 1 + (int)rm_below(st, 2));
        break;
    case MC_REDISTRIBUTION: {
        /* one of the two processor sets spans all p ranks */
        int other = 1 + (int)rm_below(st, (uint64_t)p), P = p, Q = other;
        if (rm_below(st, 2)) {
            P = other;
            Q = p;
        }
        uint64_t r = 1 + rm_below(st, 16), s = 1 + rm_below(st, 16);
        static const uint64_t elem[] = {1, 4, 8, 24};
        mc_redistribution(&m, P, r, Q, s, (uint64_t)p * (r > s ? r : s) * (8 + rm_below(st, 64)),
                          elem[rm_below(st, 4)]);
        break;
    }
    case MC_HOT_SPOTS:
        mc_hot_spots(&m, 1 + (int)rm_below(st, 1 + (uint64_t)p / 16), 1 << 20, 1 << 10, st);
        break;
    case MC_HEAVY_SPARSE:
        mc_pareto(&m, p > 16 ? 1 + 400 / p : 30, 100, st);
        break;
    case MC_HEAVY_DENSE:
        mc_pareto(&m, 90, 1000, st);
        break;
    default:
        mc_cycles(&m, 3, 1 + rm_below(st, 1 << 20));
        break;
    }
    return m;
}

/* 3 ceil(x / 2). */
static uint64_t three_halves(uint64_t x)
{
    return 3 * ((x + 1) / 2);
}

/* Checks the plan of family algo in mode duplex for m against its paper's bound; `what` names
 * the case in failure messages. */
static void check_family(plan_algo algo, plan_duplex duplex, const plan_matrix *m, int K,
                         const char *what)
{
    int p = m->p, half = duplex == PLAN_DUPLEX_HALF, dense = plan_matrix_messages(m) > 24 * (size_t)p;
    uint64_t lb = plan_matrix_lower_bound(m, duplex);
    size_t D = tl_max_degree(m, duplex), nnz = plan_matrix_messages(m);
    plan_options o = {.duplex = duplex};
    /* exact direct plans of dense matrices grow as p^3: the library's automatic step there */
    if (algo == PLAN_ALGO_DIRECT && dense && p > 48)
        o.min_step_bytes = PLAN_MIN_STEP_AUTO;
    /* transpose: a grain small against the messages, but not so small that p^3 segments result */
    uint64_t biggest = 1;
    for (size_t e = 0; e < (size_t)p * p; e++)
        biggest = m->bytes[e] > biggest ? m->bytes[e] : biggest;
    o.grain_bytes = dense && p > 32 ? biggest / 8 + 1 : 1 + biggest / 4096;
    /* forward: packets of a multiple of 5 bytes, about 300 per rank */
    o.packet_bytes = 5 * (plan_matrix_lower_bound(m, PLAN_DUPLEX_HALF) / 1500 + 1);

    if (algo == PLAN_ALGO_WALKER_OTTO && !K) {
        int k;
        uint64_t unit;
        if (!plan_wo_recognise(m, &k, &unit)) { /* not a cyclic(r) -> cyclic(Kr) pattern */
            plan pl;
            plan_error err = {0};
            ck_assert_msg(plan_build(algo, m, &o, &pl, &err) == -1, "%s: walker-otto planned", what);
            return;
        }
        K = k;
    }
    plan pl = tl_build_checked(algo, m, &o);
    uint64_t bw = plan_bandwidth_term(&pl), slack = 0;
    if (o.min_step_bytes)
        slack = pl.min_step_bytes * pl.nsteps;
    ck_assert_msg(algo == PLAN_ALGO_FORWARD || pl.duplex == duplex, "%s: duplex", what);
    ck_assert_msg(bw >= plan_matrix_lower_bound(m, pl.duplex), "%s: below the bound", what);
    switch (algo) {
    case PLAN_ALGO_DIRECT:
        if (!half && !o.min_step_bytes)
            ck_assert_msg(bw == lb && pl.nsteps <= nnz + 2 * (size_t)p,
                          "%s: direct %llu vs bound %llu, %zu steps", what,
                          (unsigned long long)bw, (unsigned long long)lb, pl.nsteps);
        else
            ck_assert_msg(bw <= (half ? three_halves(lb) : lb) + slack,
                          "%s: direct %llu above %llu + %llu", what, (unsigned long long)bw,
                          (unsigned long long)(half ? three_halves(lb) : lb),
                          (unsigned long long)slack);
        break;
    case PLAN_ALGO_STEPWISE:
        ck_assert_msg(tl_whole_messages(m, &pl), "%s: stepwise splits a message", what);
        ck_assert_msg(half ? pl.nsteps >= D && pl.nsteps <= three_halves(D) : pl.nsteps == D,
                      "%s: stepwise NS %zu, max degree %zu", what, pl.nsteps, D);
        break;
    case PLAN_ALGO_GREEDY:
        ck_assert_msg(tl_whole_messages(m, &pl), "%s: greedy splits a message", what);
        ck_assert_msg(pl.nsteps >= D && (D == 0 || pl.nsteps <= 2 * D - 1),
                      "%s: greedy NS %zu, max degree %zu", what, pl.nsteps, D);
        ck_assert_msg(tl_non_maximal_step(&pl) < 0, "%s: greedy step not maximal", what);
        break;
    case PLAN_ALGO_WALKER_OTTO:
        ck_assert_msg(pl.nsteps <= (half ? 3 : 1) * (size_t)K, "%s: %zu steps for K = %d", what,
                      pl.nsteps, K);
        ck_assert_msg(half || tl_uneven_step(&pl) < 0, "%s: unequal blocks in a step", what);
        break;
    case PLAN_ALGO_TRANSPOSE: {
        size_t rounds = p % 2 ? (size_t)p : (size_t)p - 1;
        ck_assert_msg(pl.nsteps <= (half ? 4 * rounds : 2 * (size_t)(p - 1)), "%s: %zu steps",
                      what, pl.nsteps);
        ck_assert_msg(tl_transpose_bins_ok(m, o.grain_bytes), "%s: a bin above the bound", what);
        break;
    }
    default: { /* forward: 5 p T <= (6 p + 10 [p odd]) (h + 1) S (Theorem 1) */
        uint64_t S = o.packet_bytes, h = tl_h_packets(m, S);
        unsigned __int128 lhs = (unsigned __int128)5 * (unsigned)p * bw;
        unsigned __int128 rhs = (unsigned __int128)(6 * (uint64_t)p + (p % 2 ? 10 : 0)) * (h + 1) * S;
        ck_assert_msg(lhs <= rhs, "%s: forward %.4f (h + 1) packets", what,
                      (double)bw / (double)S / (double)(h + 1));
        break;
    }
    }
    plan_free(&pl);
}

/* Every class at every rank count, every family, both duplex modes. */
static void run_class(mclass c, uint64_t seed)
{
    static const int ps[] = {2, 3, 5, 8, 16, 31, 64, 127, 256};
    uint64_t st = seed;
    for (size_t k = 0; k < sizeof ps / sizeof *ps; k++) {
        int p = ps[k], K;
        plan_matrix m = make(c, p, &st, &K);
        for (int a = PLAN_ALGO_DIRECT; a < PLAN_ALGO_NODE_DIRECT; a++) /* node families: test_node */
            for (int d = 0; d < 2; d++) {
                char what[128];
                snprintf(what, sizeof what, "%s p=%d %s %s", class_names[c], p,
                         plan_algo_name((plan_algo)a), d ? "half" : "full");
                check_family((plan_algo)a, (plan_duplex)d, &m, K, what);
            }
        plan_matrix_free(&m);
    }
}

START_TEST(block_cyclic) { run_class(MC_BLOCK_CYCLIC, 0x4e1d0001); }
END_TEST
START_TEST(redistribution) { run_class(MC_REDISTRIBUTION, 0x4e1d0002); }
END_TEST
START_TEST(hot_spots) { run_class(MC_HOT_SPOTS, 0x4e1d0003); }
END_TEST
START_TEST(heavy_sparse) { run_class(MC_HEAVY_SPARSE, 0x4e1d0004); }
END_TEST
START_TEST(heavy_dense) { run_class(MC_HEAVY_DENSE, 0x4e1d0005); }
END_TEST
START_TEST(three_cycles) { run_class(MC_THREE_CYCLES, 0x4e1d0006); }
END_TEST

/* The redistribution generator itself, on a case worked by hand: 12 elements of 1 byte from
 * cyclic(2) on 3 ranks to cyclic(3) on 2 ranks (element x: rank x/2 mod 3 -> rank x/3 mod 2). */
START_TEST(redistribution_by_hand)
{
    plan_matrix m;
    ck_assert_int_eq(plan_matrix_init(&m, 3, NULL), 0);
    mc_redistribution(&m, 3, 2, 2, 3, 12, 1);
    /* x: 0 1 2 3 4 5 6 7 8 9 10 11; from 0 0 1 1 2 2 0 0 1 1 2 2; to 0 0 0 1 1 1 0 0 0 1 1 1 */
    const uint64_t want[9] = {4, 0, 0, /**/ 2, 2, 0, /**/ 0, 4, 0};
    for (int e = 0; e < 9; e++)
        ck_assert_uint_eq(m.bytes[e], want[e]);
    plan_matrix_free(&m);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("heldout");
    TCase *basic = tcase_create("basic"), *props = tcase_create("classes");
    tcase_add_test(basic, redistribution_by_hand);
    tcase_add_test(props, block_cyclic);
    tcase_add_test(props, redistribution);
    tcase_add_test(props, hot_spots);
    tcase_add_test(props, heavy_sparse);
    tcase_add_test(props, heavy_dense);
    tcase_add_test(props, three_cycles);
    return tl_run(s, basic, props);
}
