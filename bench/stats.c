/* Quantiles of repeated timings, and the CPU time they are set against. */
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
