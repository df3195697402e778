/* Walker and Otto's contention-free schedule for redistributing cyclic(r) to cyclic(K r) on P
 * processes (Eqs. 7-11 of their paper), and its recognition from a transfer matrix. */
#include <stdlib.h>

#include "plan/families.h"
#include "plan/plan.h"
#include "plan/walker_otto.h"

/* The B' in [0, P'K') with B' = k' (mod K') and B' = p' (mod P'), P' and K' coprime (Eq. 7). */
static uint64_t reduced_block(uint64_t pr, uint64_t kr, uint64_t p1, uint64_t k1)
{
    for (uint64_t q1 = 0; q1 < pr; q1++) /* B' = q' K' + k' for the q' that fits p' */
        if ((q1 * kr + k1) % pr == p1)
            return q1 * kr + k1;
    return 0; /* unreachable: a solution exists because gcd(P', K') = 1 */
}

uint64_t plan_wo_send_block(int P, int K, int k, int p)
{
    uint64_t g = plan_gcd((uint64_t)P, (uint64_t)K), pr = (uint64_t)P / g, kr = (uint64_t)K / g;
    uint64_t alpha = (uint64_t)p % g, gamma = (uint64_t)k % g;
    uint64_t beta = (alpha + g - gamma) % g;
    uint64_t b1 = reduced_block(pr, kr, (uint64_t)p / g, (uint64_t)k / g);
    return g * b1 + (uint64_t)P * kr * beta + alpha; /* Eq. 8 with layout 7(a), Eqs. 9-10 */
}

uint64_t plan_wo_recv_block(int P, int K, int k, int q)
{
    uint64_t g = plan_gcd((uint64_t)P, (uint64_t)K), pr = (uint64_t)P / g;
    return (uint64_t)K * (uint64_t)q + g * ((uint64_t)k / g) +
           (((uint64_t)q / pr + (uint64_t)k % g) % g); /* Eq. 11 */
}

int plan_wo_send_process(int P, int K, int k, int p)
{
    return (int)((plan_wo_send_block(P, K, k, p) / (uint64_t)K) % (uint64_t)P);
}

/* How many of process p's K blocks of one cycle go to process q: counts[q] for all q. */
static void row_pattern(int P, int K, int p, uint64_t *counts)
{
    for (int q = 0; q < P; q++)
        counts[q] = 0;
    for (int b = 0; b < K; b++)
        counts[(((uint64_t)P * (uint64_t)b + (uint64_t)p) / (uint64_t)K) % (uint64_t)P]++;
}

/* Whether row p of m is counts * unit for the unit of row 0. */
static int row_matches(const plan_matrix *m, int p, const uint64_t *counts, uint64_t unit)
{
    for (int q = 0; q < m->p; q++)
        if (plan_matrix_at(m, p, q) != counts[q] * unit)
            return 0;
    return 1;
}

int plan_wo_recognise(const plan_matrix *m, int *K_out, uint64_t *unit_out)
{
    int P = m->p;
    uint64_t *counts = malloc((size_t)P * sizeof *counts);
    if (!counts)
        return 0;
    int found = 0;
    uint64_t row0 = 0;
    if (P < 2) {
        free(counts);
        return 0;
    }
    for (int q = 0; q < P; q++)
        row0 += plan_matrix_at(m, 0, q);
    int kmax = 4 * P < PLAN_WO_MAX_K ? 4 * P : PLAN_WO_MAX_K;
    for (int K = 2; K <= kmax && !found && row0 > 0; K++) {
        if (row0 % (uint64_t)K)
            continue;
        uint64_t unit = row0 / (uint64_t)K;
        int ok = 1;
        for (int p = 0; p < P && ok; p++) { /* row 0 rejects almost every K at O(K + P) */
            row_pattern(P, K, p, counts);
            ok = row_matches(m, p, counts, unit);
        }
        if (ok) {
            *K_out = K;
            *unit_out = unit;
            found = 1;
        }
    }
    free(counts);
    return found;
}

int plan_walker_otto(const plan_matrix *m, plan *pl, plan_error *err)
{
    int P = m->p, K;
    uint64_t unit;
    if (!plan_wo_recognise(m, &K, &unit))
        return plan_error_set(err, 0, "not a cyclic(r) -> cyclic(Kr) redistribution");
    /* blocks of message p -> q already scheduled, so each step takes the next unit bytes */
    uint32_t *done = calloc((size_t)P * (size_t)P, sizeof *done);
    if (!done)
        return plan_error_set(err, 0, "out of memory planning %d ranks", P);
    int rc = plan_init(pl, P, PLAN_ALGO_WALKER_OTTO, PLAN_DUPLEX_FULL, err);
    for (int k = 0; k < K && rc == 0; k++) {
        rc = plan_begin_step(pl, err);
        for (int p = 0; p < P && rc == 0; p++) {
            int q = plan_wo_send_process(P, K, k, p);
            if (q == p) /* the block stays: a local copy, p idles in this step */
                continue;
            uint32_t *n = &done[(size_t)p * P + q];
            rc = plan_add_transfer(pl, p, q, err) ||
                 plan_add_segment(pl, p, q, (uint64_t)*n * unit, unit, err);
            ++*n;
        }
        plan_end_step(pl);
    }
    free(done);
    if (rc) {
        plan_free(pl);
        return -1;
    }
    return 0;
}
