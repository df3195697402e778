/* The benchmark's deterministic generator (splitmix64) and what is drawn from it: the states of
 * the patterns' rows and calls, weighted draws, and the candidates' order in each round. The
 * same inputs give the same values on every rank. */
#include "bench/bench.h"

uint64_t bench_random(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double bench_uniform(uint64_t *s)
{
    return (double)(bench_random(s) >> 11) * 0x1p-53;
}

uint64_t bench_state(uint64_t seed, uint64_t tag, int call, int i)
{
    uint64_t s = seed ^ (tag << 48) ^ ((uint64_t)(i + 1) << 20);
    s = bench_random(&s) ^ (0xd1b54a32d192ed03ull * (uint64_t)call);
    return bench_random(&s);
}

int bench_draw(const double *cum, int n, uint64_t *s)
{
    double u = bench_uniform(s) * cum[n - 1];
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (cum[mid] <= u)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void bench_round_order(uint64_t seed, int run, int round, int *order, int n)
{
    uint64_t s = seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(round + 1)) ^
                 (0xd1b54a32d192ed03ull * (uint64_t)run);
    for (int k = 0; k < n; k++)
        order[k] = k;
    for (int k = n - 1; k > 0; k--) { /* Fisher-Yates */
        int j = (int)(bench_random(&s) % (uint64_t)(k + 1)), tmp = order[k];
        order[k] = order[j];
        order[j] = tmp;
    }
}

void bench_call_order(const bench_opts *o, int run, int round, int *order, int n)
{
    bench_round_order(o->seed, run, o->blocks ? -1 : round, order, n);
}
