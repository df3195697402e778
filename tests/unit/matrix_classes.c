/* Structured transfer matrices for the property tests (see matrix_classes.h). */
#include <math.h>

#include "matrix_classes.h"
#include "random_matrix.h"

/* Sets every entry of m to zero. */
static void clear(plan_matrix *m)
{
    for (size_t e = 0; e < (size_t)m->p * (size_t)m->p; e++)
        m->bytes[e] = 0;
}

void mc_block_cyclic(plan_matrix *m, int K, uint64_t block, int cycles)
{
    int P = m->p;
    clear(m);
    for (uint64_t B = 0; B < (uint64_t)P * (uint64_t)K * (uint64_t)cycles; B++)
        m->bytes[(B % (uint64_t)P) * (uint64_t)P + (B / (uint64_t)K) % (uint64_t)P] += block;
}

void mc_redistribution(plan_matrix *m, int P, uint64_t r, int Q, uint64_t s, uint64_t elements,
                       uint64_t elem_bytes)
{
    clear(m);
    /* walk the array in runs on which both owners stay the same */
    for (uint64_t x = 0; x < elements;) {
        uint64_t end = (x / r + 1) * r, other = (x / s + 1) * s;
        end = other < end ? other : end;
        end = elements < end ? elements : end;
        uint64_t from = (x / r) % (uint64_t)P, to = (x / s) % (uint64_t)Q;
        m->bytes[from * (uint64_t)m->p + to] += (end - x) * elem_bytes;
        x = end;
    }
}

void mc_hot_spots(plan_matrix *m, int hot, uint64_t big, uint64_t small, uint64_t *state)
{
    int p = m->p;
    char is_hot[1024] = {0};
    for (int k = 0; k < hot && k < p; k++)
        is_hot[rm_below(state, (uint64_t)p)] = 1;
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++) {
            uint64_t v = 0;
            if (is_hot[j] || (is_hot[i] && rm_below(state, 4) == 0))
                v = 1 + rm_below(state, big);
            else if (rm_below(state, 4) == 0)
                v = rm_below(state, small);
            m->bytes[(size_t)i * p + j] = v;
        }
}

void mc_pareto(plan_matrix *m, int density_percent, uint64_t scale, uint64_t *state)
{
    int p = m->p;
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++) {
            uint64_t v = 0;
            if ((int)rm_below(state, 100) < density_percent) {
                double u = ((double)rm_below(state, 1u << 30) + 1) / (double)(1u << 30);
                double x = (double)scale * pow(u, -1 / 1.2);
                v = x > 1099511627776.0 ? (uint64_t)1 << 40 : (uint64_t)x;
            }
            m->bytes[(size_t)i * p + j] = v;
        }
}

void mc_cycles(plan_matrix *m, int len, uint64_t bytes)
{
    int p = m->p;
    clear(m);
    for (int i = 0; i < p / len * len; i++) {
        int base = i / len * len;
        m->bytes[(size_t)i * p + base + (i - base + 1) % len] = bytes;
    }
}
