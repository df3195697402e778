/* tests/bench/median_interval: the interval a median of runs lies in (bench_median_interval).
 * Fewer than 5 values give none at 90 %; 5 give min - max at 15/16 and 10 the 2nd - 9th at
 * 1 - 22/1024; for every n up to 60 (at 90 % and 95 %) there is none where even min - max
 * falls short, else the pair reached holds the median with at least the level
 * asked and the next narrower pair would not (against binomial coefficients from Pascal's
 * triangle); and 4000 samples drawn from a skewed distribution hold its true median about as
 * often as the level says. Exits 0 when all hold, 1 with a message otherwise. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "bench/bench.h"

enum { MAXN = 60, TRIALS = 4000 };

static int failures;

static void fail(const char *what, int n, double got, double want)
{
    fprintf(stderr, "median_interval: %s (n %d): got %.9g, want %.9g\n", what, n, got, want);
    failures++;
}

/* P(fewer than k of n fair coins come up heads), from Pascal's triangle. */
static double below(int n, int k)
{
    double row[MAXN + 1] = {1};
    for (int i = 1; i <= n; i++)
        for (int j = i; j > 0; j--)
            row[j] += row[j - 1];
    double sum = 0;
    for (int j = 0; j < k; j++)
        sum += row[j];
    return sum / pow(2, n);
}

/* A uniform draw in (0, 1) from state s (xorshift64*). */
static double uniform(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return ((double)((*s * 2685821657736338717ull) >> 11) + 0.5) / 9007199254740992.0;
}

/* The fixed cases: too few values, 5 and 10. */
static void check_known(void)
{
    double x[10] = {3, 1, 4, 1.5, 9, 2.6, 5, 3.5, 8, 7}, lo, hi;
    for (int n = 0; n < 5; n++) {
        double level = bench_median_interval(x, n, 0.90, &lo, &hi);
        if (level != 0 || !isnan(lo) || !isnan(hi))
            fail("fewer than 5 values give an interval", n, level, 0);
    }
    double five[5] = {3, 1, 4, 1.5, 9};
    double level = bench_median_interval(five, 5, 0.90, &lo, &hi);
    if (lo != 1 || hi != 9 || fabs(level - 15.0 / 16) > 1e-12)
        fail("5 values: not min - max at 15/16", 5, level, 15.0 / 16);
    level = bench_median_interval(x, 10, 0.90, &lo, &hi);
    if (lo != 1.5 || hi != 8 || fabs(level - (1 - 22.0 / 1024)) > 1e-12)
        fail("10 values: not 2nd - 9th at 1 - 22/1024", 10, level, 1 - 22.0 / 1024);
    for (int k = 1; k < 10; k++)
        if (x[k] < x[k - 1])
            fail("values not sorted", 10, x[k], x[k - 1]);
}

/* For every n: the pair reached is the narrowest that holds the median at the level. */
static void check_levels(double want)
{
    double x[MAXN], lo, hi;
    for (int n = 5; n <= MAXN; n++) {
        for (int i = 0; i < n; i++)
            x[i] = n - i;
        double level = bench_median_interval(x, n, want, &lo, &hi);
        if (1 - 2 * below(n, 1) < want) { /* even min - max falls short */
            if (level != 0 || !isnan(lo))
                fail("an interval where min - max falls short of the level", n, level, 0);
            continue;
        }
        int k = (int)lo; /* x sorted is 1 .. n, so x(k) = k */
        if (!(level >= want) || hi != n + 1 - k)
            fail("no symmetric pair at the level", n, level, want);
        if (fabs(level - (1 - 2 * below(n, k))) > 1e-9)
            fail("level not the binomial's", n, level, 1 - 2 * below(n, k));
        if (2 * (k + 1) <= n && 1 - 2 * below(n, k + 1) >= want)
            fail("a narrower pair holds the level too", n, 1 - 2 * below(n, k + 1), want);
    }
}

/* Samples of an exponential distribution (median ln 2): how often the interval holds it. */
static void check_coverage(int n)
{
    uint64_t s = 0x9e3779b97f4a7c15ull + (uint64_t)n;
    double x[MAXN], lo, hi, level = 0;
    int held = 0;
    for (int t = 0; t < TRIALS; t++) {
        for (int i = 0; i < n; i++)
            x[i] = -log(uniform(&s));
        level = bench_median_interval(x, n, 0.90, &lo, &hi);
        held += lo <= log(2) && log(2) <= hi;
    }
    double got = (double)held / TRIALS, sd = sqrt(level * (1 - level) / TRIALS);
    if (fabs(got - level) > 4 * sd + 1e-3)
        fail("coverage of the true median far from the level", n, got, level);
}

int main(void)
{
    check_known();
    check_levels(0.90);
    check_levels(0.95);
    for (int n = 5; n <= 20; n += 5)
        check_coverage(n);
    if (failures)
        return 1;
    printf("median_interval: all checks passed\n");
    return 0;
}
