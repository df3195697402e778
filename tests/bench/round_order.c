/* tests/bench/round_order: the candidates' order in the benchmark's rounds (bench_round_order).
 * Every order is a permutation and the same for the same inputs; run 0 keeps the order of a
 * single-run bench; and over a bench's runs a round is not made in one order every time: each
 * candidate takes at least two positions in every round over 12 runs, and no run repeats the
 * previous one's orders in all rounds; bench_call_order is that order in turns, and in blocks
 * one order per run for all its rounds. Exits 0 when all hold, 1 with a message otherwise. */
#include <stdio.h>
#include <string.h>

#include "bench/bench.h"

enum { MAXN = 13, ROUNDS = 40, RUNS = 12 };

static int failures;

static void fail(const char *what, int n, int run, int round)
{
    fprintf(stderr, "round_order: %s (n %d, run %d, round %d)\n", what, n, run, round);
    failures++;
}

/* Whether order[0 .. n) holds every index of 0 .. n) once. */
static int is_permutation(const int *order, int n)
{
    int seen[MAXN] = {0};
    for (int k = 0; k < n; k++) {
        if (order[k] < 0 || order[k] >= n || seen[order[k]])
            return 0;
        seen[order[k]] = 1;
    }
    return 1;
}

int main(void)
{
    const uint64_t seeds[] = {1, 2, 0x1234567890abcdefull};
    for (size_t s = 0; s < sizeof seeds / sizeof *seeds; s++)
        for (int n = 1; n <= MAXN; n++)
            for (int run = 0; run < RUNS; run++)
                for (int r = 0; r < ROUNDS; r++) {
                    int a[MAXN], b[MAXN];
                    bench_round_order(seeds[s], run, r, a, n);
                    bench_round_order(seeds[s], run, r, b, n);
                    if (!is_permutation(a, n))
                        fail("not a permutation", n, run, r);
                    if (memcmp(a, b, sizeof(int) * (size_t)n))
                        fail("not the same for the same inputs", n, run, r);
                }
    /* Three candidates, as in pmpi,native,auto: the position of each in round r over the runs. */
    for (size_t s = 0; s < sizeof seeds / sizeof *seeds; s++) {
        int n = 3, same_as_previous = 0;
        for (int r = 0; r < ROUNDS; r++) {
            int positions[3] = {0}; /* bit p set: the candidate was at position p in some run */
            int o[3], prev[3];
            for (int run = 0; run < RUNS; run++) {
                bench_round_order(seeds[s], run, r, o, n);
                for (int k = 0; k < n; k++)
                    positions[o[k]] |= 1 << k;
                same_as_previous += run > 0 && !memcmp(o, prev, sizeof o);
                memcpy(prev, o, sizeof o);
            }
            for (int c = 0; c < n; c++)
                if (positions[c] == 1 || positions[c] == 2 || positions[c] == 4)
                    fail("a candidate has the same position in every run", n, -1, r);
        }
        if (same_as_previous == ROUNDS * (RUNS - 1))
            fail("every run repeats the orders of the run before", n, -1, -1);
    }
    /* Run 0 is what a bench of one run draws: seed ^ golden * (round + 1), Fisher-Yates. */
    for (int r = 0; r < ROUNDS; r++) {
        int o[5], e[5];
        uint64_t st = 1 ^ (0x9e3779b97f4a7c15ull * (uint64_t)(r + 1));
        for (int k = 0; k < 5; k++)
            e[k] = k;
        for (int k = 4; k > 0; k--) {
            int j = (int)(bench_random(&st) % (uint64_t)(k + 1)), t = e[k];
            e[k] = e[j];
            e[j] = t;
        }
        bench_round_order(1, 0, r, o, 5);
        if (memcmp(o, e, sizeof o))
            fail("run 0 differs from a single-run bench's order", 5, 0, r);
    }
    /* bench_call_order: in turns (the default) round r's order; in blocks (--order blocks) the
     * run's one order, the same in every round, and another run's may differ */
    for (size_t s = 0; s < sizeof seeds / sizeof *seeds; s++) {
        bench_opts turns = {.seed = seeds[s]}, blocks = {.seed = seeds[s], .blocks = 1};
        int differs = 0, first[5];
        for (int run = 0; run < RUNS; run++)
            for (int r = 0; r < ROUNDS; r++) {
                int o[5], e[5];
                bench_call_order(&turns, run, r, o, 5);
                bench_round_order(seeds[s], run, r, e, 5);
                if (memcmp(o, e, sizeof o))
                    fail("in turns, not the round's order", 5, run, r);
                bench_call_order(&blocks, run, r, o, 5);
                if (!is_permutation(o, 5))
                    fail("in blocks, not a permutation", 5, run, r);
                if (r == 0 && run == 0)
                    memcpy(first, o, sizeof o);
                bench_call_order(&blocks, run, 0, e, 5);
                if (memcmp(o, e, sizeof o))
                    fail("in blocks, the order changes between rounds", 5, run, r);
                differs |= memcmp(o, first, sizeof o) != 0;
            }
        if (!differs)
            fail("in blocks, every run has the same order", 5, -1, -1);
    }
    if (!failures)
        printf("round_order: every check passed\n");
    return failures ? 1 : 0;
}
