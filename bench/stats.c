/* Quantiles of repeated timings, the interval their median lies in, and the CPU time they are
 * set against. */
#include <math.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "bench/bench.h"

/* qsort order of doubles. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile of sorted t[0 .. n): linear interpolation between order statistics. */
static double quantile(const double *t, int n, double q)
{
    double pos = q * (n - 1);
    int lo = (int)pos;
    if (lo >= n - 1)
        return t[n - 1];
    return t[lo] + (pos - lo) * (t[lo + 1] - t[lo]);
}

bench_quantiles bench_quantiles_of(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return (bench_quantiles){.min = t[0], .q1 = quantile(t, n, 0.25),
                             .median = quantile(t, n, 0.5), .q3 = quantile(t, n, 0.75),
                             .max = t[n - 1]};
}

/* P(Bin(n, 1/2) < k): the chance that fewer than k of n draws fall below the median. */
static double binomial_half_below(int n, int k)
{
    double term = ldexp(1.0, -n), sum = 0; /* C(n, 0) / 2^n */
    for (int i = 0; i < k; i++) {
        sum += term;
        term = term * (n - i) / (i + 1);
    }
    return sum;
}

double bench_median_interval(double *x, int n, double level, double *lo, double *hi)
{
    *lo = *hi = NAN;
    int k = 0;
    double reached = 0;
    for (int j = 1; 2 * j <= n; j++) {
        double cover = 1 - 2 * binomial_half_below(n, j);
        if (cover < level)
            break;
        k = j;
        reached = cover;
    }
    if (k == 0)
        return 0;
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    *lo = x[k - 1];
    *hi = x[n - k];
    return reached;
}

double bench_cpu_seconds(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru))
        return 0;
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

double bench_cpu_now(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
        return 0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
