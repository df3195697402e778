/* The transfer matrix and its load figures. */
#include <stdlib.h>

#include "plan/matrix.h"

int plan_matrix_init(plan_matrix *m, int p, plan_error *err)
{
    m->p = 0;
    m->bytes = NULL;
    if (p < 1)
        return plan_error_set(err, 0, "matrix size %d: need at least one rank", p);
    m->bytes = calloc((size_t)p * (size_t)p, sizeof *m->bytes);
    if (!m->bytes)
        return plan_error_set(err, 0, "out of memory for a %d x %d matrix", p, p);
    m->p = p;
    return 0;
}

void plan_matrix_free(plan_matrix *m)
{
    free(m->bytes);
    m->bytes = NULL;
    m->p = 0;
}

uint64_t plan_matrix_sent(const plan_matrix *m, int i)
{
    uint64_t s = 0;
    for (int j = 0; j < m->p; j++)
        if (j != i)
            s += plan_matrix_at(m, i, j);
    return s;
}

uint64_t plan_matrix_received(const plan_matrix *m, int j)
{
    uint64_t s = 0;
    for (int i = 0; i < m->p; i++)
        if (i != j)
            s += plan_matrix_at(m, i, j);
    return s;
}

/* The load of a rank that sends s and receives r bytes: the larger plus share_pct percent of
 * the smaller (rounded down). */
static uint64_t load_of(uint64_t s, uint64_t r, uint32_t share_pct)
{
    uint64_t big = s > r ? s : r, small = s > r ? r : s;
    return big + (uint64_t)((unsigned __int128)small * share_pct / 100);
}

uint64_t plan_matrix_shared_load(const plan_matrix *m, uint32_t share_pct)
{
    int p = m->p;
    uint64_t best = 0, *sums = calloc(2 * (size_t)p, sizeof *sums); /* sent, then received */
    if (!sums) { /* column by column: slower, needs no memory */
        for (int i = 0; i < p; i++) {
            uint64_t load =
                load_of(plan_matrix_sent(m, i), plan_matrix_received(m, i), share_pct);
            best = load > best ? load : best;
        }
        return best;
    }
    for (int i = 0; i < p; i++) { /* one pass in memory order */
        const uint64_t *row = m->bytes + (size_t)i * (size_t)p;
        for (int j = 0; j < p; j++) {
            uint64_t v = j == i ? 0 : row[j];
            sums[i] += v;
            sums[p + j] += v;
        }
    }
    for (int i = 0; i < p; i++) {
        uint64_t load = load_of(sums[i], sums[p + i], share_pct);
        best = load > best ? load : best;
    }
    free(sums);
    return best;
}

uint64_t plan_matrix_lower_bound(const plan_matrix *m, plan_duplex duplex)
{
    return plan_matrix_shared_load(m, duplex == PLAN_DUPLEX_HALF ? 100 : 0);
}

size_t plan_matrix_max_degree(const plan_matrix *m, plan_duplex duplex)
{
    size_t best = 0;
    for (int i = 0; i < m->p; i++) {
        size_t out = 0, in = 0;
        for (int j = 0; j < m->p; j++) {
            if (j == i)
                continue;
            out += plan_matrix_at(m, i, j) != 0;
            in += plan_matrix_at(m, j, i) != 0;
        }
        size_t d = duplex == PLAN_DUPLEX_HALF ? out + in : (out > in ? out : in);
        if (d > best)
            best = d;
    }
    return best;
}

uint64_t plan_gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

size_t plan_matrix_messages(const plan_matrix *m)
{
    size_t n = 0;
    for (int i = 0; i < m->p; i++)
        for (int j = 0; j < m->p; j++)
            if (i != j && plan_matrix_at(m, i, j) != 0)
                n++;
    return n;
}

int plan_matrix_is_uniform(const plan_matrix *m, uint64_t *bytes)
{
    if (m->p < 2)
        return 0;
    uint64_t first = plan_matrix_at(m, 0, 1);
    for (int i = 0; i < m->p; i++)
        for (int j = 0; j < m->p; j++)
            if (i != j && plan_matrix_at(m, i, j) != first)
                return 0;
    if (bytes)
        *bytes = first;
    return first > 0;
}
