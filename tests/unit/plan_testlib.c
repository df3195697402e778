/* Helpers shared by the Check unit tests of plan/ (see plan_testlib.h). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "plan/families.h"
#include "plan_testlib.h"
#include "random_matrix.h"

int tl_draw_p(uint64_t *st, int large_percent)
{
    uint64_t r = rm_below(st, 100);
    if (r < 70)
        return 1 + (int)rm_below(st, 16);
    if (r < 100 - (uint64_t)large_percent)
        return 17 + (int)rm_below(st, 24);
    return 41 + (int)rm_below(st, 24);
}

uint64_t tl_draw_max(uint64_t *st)
{
    static const uint64_t caps[] = {2, 3, 11, 1000, 1u << 20, (uint64_t)1 << 40};
    return caps[rm_below(st, sizeof caps / sizeof *caps)];
}

plan tl_build_checked(plan_algo algo, const plan_matrix *m, const plan_options *o)
{
    plan pl;
    plan_error err = {0};
    ck_assert_msg(plan_build(algo, m, o, &pl, &err) == 0, "%s p=%d: %s", plan_algo_name(algo),
                  m->p, err.text);
    ck_assert_msg(plan_verify(m, &pl, &err) == 0, "%s p=%d verify: %s", plan_algo_name(algo),
                  m->p, err.text);
    return pl;
}

/* Whether transfers x and y are the same, field by field. */
static int same_transfer(const plan_transfer *x, const plan_transfer *y)
{
    return x->src == y->src && x->dst == y->dst && x->nsegs == y->nsegs &&
           x->seg_begin == y->seg_begin && x->bytes == y->bytes;
}

int tl_plans_equal(const plan *a, const plan *b)
{
    if (a->p != b->p || a->algo != b->algo || a->duplex != b->duplex || a->nsteps != b->nsteps ||
        a->ntransfers != b->ntransfers || a->nsegments != b->nsegments ||
        memcmp(a->step_begin, b->step_begin, (a->nsteps + 1) * sizeof *a->step_begin) != 0 ||
        (a->nsegments &&
         memcmp(a->segments, b->segments, a->nsegments * sizeof *a->segments) != 0))
        return 0;
    for (size_t t = 0; t < a->ntransfers; t++)
        if (!same_transfer(&a->transfers[t], &b->transfers[t]))
            return 0;
    return 1;
}

void tl_check_deterministic(plan_algo algo, uint64_t seed, int n, int large_percent, int max_p,
                            plan_options (*draw_options)(uint64_t *st))
{
    uint64_t st = seed;
    for (int k = 0; k < n; k++) {
        int p = tl_draw_p(&st, large_percent);
        plan_matrix m;
        ck_assert_int_eq(plan_matrix_init(&m, p > max_p ? max_p : p, NULL), 0);
        random_matrix(&m, (rm_shape)(k % RM_SHAPES), tl_draw_max(&st), &st);
        plan_options o = draw_options ? draw_options(&st) : (plan_options){0};
        plan a = tl_build_checked(algo, &m, &o), b = tl_build_checked(algo, &m, &o);
        ck_assert_msg(tl_plans_equal(&a, &b), "%s #%d: two plans of one matrix differ",
                      plan_algo_name(algo), k);
        plan_free(&a);
        plan_free(&b);
        plan_matrix_free(&m);
    }
}

int tl_run(Suite *s, TCase *basic, TCase *props)
{
    tcase_set_timeout(props, 600);
    suite_add_tcase(s, basic);
    suite_add_tcase(s, props);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

void tl_check_segment_limit(plan_algo algo, const plan_matrix *m, const plan_options *o)
{
    plan full = tl_build_checked(algo, m, o), pl;
    ck_assert_uint_gt(full.nsegments, 1);
    plan_options capped = *o;
    capped.max_segments = full.nsegments - 1; /* one segment short: fails, every time */
    plan_error first = {0}, again = {0};
    ck_assert_int_eq(plan_build(algo, m, &capped, &pl, &first), -1);
    ck_assert_ptr_nonnull(strstr(first.text, "exceed"));
    ck_assert_int_eq(plan_build(algo, m, &capped, &pl, &again), -1);
    ck_assert_str_eq(first.text, again.text);
    capped.max_segments = full.nsegments;
    pl = tl_build_checked(algo, m, &capped);
    ck_assert(tl_plans_equal(&full, &pl));
    plan_free(&pl);
    plan_free(&full);
}

size_t tl_max_degree(const plan_matrix *m, plan_duplex duplex)
{
    size_t best = 0;
    for (int v = 0; v < m->p; v++) {
        size_t out = 0, in = 0;
        for (int u = 0; u < m->p; u++) {
            out += u != v && plan_matrix_at(m, v, u) != 0;
            in += u != v && plan_matrix_at(m, u, v) != 0;
        }
        size_t d = duplex == PLAN_DUPLEX_HALF ? out + in : out > in ? out : in;
        best = d > best ? d : best;
    }
    return best;
}

int tl_whole_messages(const plan_matrix *m, const plan *pl)
{
    if (pl->nsegments != plan_matrix_messages(m) || pl->ntransfers != pl->nsegments)
        return 0;
    for (size_t t = 0; t < pl->ntransfers; t++)
        if (pl->transfers[t].nsegs != 1 ||
            pl->transfers[t].bytes != plan_matrix_at(m, pl->transfers[t].src, pl->transfers[t].dst))
            return 0;
    return 1;
}

long tl_uneven_step(const plan *pl)
{
    for (size_t s = 0; s < pl->nsteps; s++)
        for (size_t t = pl->step_begin[s] + 1; t < pl->step_begin[s + 1]; t++)
            if (pl->transfers[t].bytes != pl->transfers[pl->step_begin[s]].bytes)
                return (long)s;
    return -1;
}

long tl_non_maximal_step(const plan *pl)
{
    /* busy[v]: v sends in the step, busy[p + v]: v receives; half duplex uses one mark */
    int p = pl->p, half = pl->duplex == PLAN_DUPLEX_HALF;
    int *busy = calloc(2 * (size_t)p, sizeof *busy);
    long bad = -1;
    ck_assert_ptr_nonnull(busy);
    for (size_t s = 0; s < pl->nsteps && bad < 0; s++) {
        for (int v = 0; v < 2 * p; v++)
            busy[v] = 0;
        for (size_t t = pl->step_begin[s]; t < pl->step_begin[s + 1]; t++)
            busy[pl->transfers[t].src] = busy[(half ? 0 : p) + pl->transfers[t].dst] = 1;
        for (size_t t = pl->step_begin[s + 1]; t < pl->ntransfers && bad < 0; t++)
            if (!busy[pl->transfers[t].src] && !busy[(half ? 0 : p) + pl->transfers[t].dst])
                bad = (long)s;
    }
    free(busy);
    return bad;
}

/* Units of u bytes in message i -> j (0 on the diagonal). */
static uint64_t units(const plan_matrix *m, int i, int j, uint64_t u)
{
    return i == j ? 0 : (plan_matrix_at(m, i, j) + u - 1) / u;
}

uint64_t tl_h_packets(const plan_matrix *m, uint64_t S)
{
    uint64_t h = 0;
    for (int i = 0; i < m->p; i++) {
        uint64_t x = 0;
        for (int j = 0; j < m->p; j++)
            x += units(m, i, j, S) + units(m, j, i, S);
        h = x > h ? x : h;
    }
    return h;
}

int tl_transpose_bins_ok(const plan_matrix *m, uint64_t g)
{
    int p = m->p;
    for (int a = 0; a < p; a++) {
        uint64_t sent = 0, recvd = 0;
        for (int b = 0; b < p; b++) {
            sent += units(m, a, b, g);
            recvd += units(m, b, a, g);
        }
        for (int k = 0; k < p; k++) {
            uint64_t bin1 = 0, bin2 = 0; /* rank a's bin k; intermediate k's bin for a */
            for (int x = 0; x < p; x++) {
                bin1 += plan_transpose_share(units(m, a, x, g), p, a, x, k);
                bin2 += plan_transpose_share(units(m, x, a, g), p, x, a, k);
            }
            if (2 * (uint64_t)p * bin1 > 2 * sent + (uint64_t)p * p ||
                2 * (uint64_t)p * bin2 > 2 * recvd + (uint64_t)p * p)
                return 0;
        }
    }
    return 1;
}
