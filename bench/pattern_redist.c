/* The block-cyclic redistribution patterns. An array of global elements is dealt out in
 * blocks: cyclic(r) on P ranks puts block b (elements b r .. b r + r - 1) on rank b mod P. */
#include <stdlib.h>

#include "bench/bench.h"

/* walker-otto: cyclic(r) -> cyclic(K r) on the same P ranks (Walker and Otto). In units of
 * blocks of r elements: rank p holds blocks B = P b + p of each cycle of P K blocks, and block
 * B goes to rank floor(B / K) mod P; every block of the whole array is `unit` elements of the
 * message (the blocks of all cycles together). Entry (p, q) is unit times the number of p's
 * K blocks per cycle that go to q -- exactly the matrices hrelay's walker-otto recogniser
 * (src/plan/walker_otto.c) accepts. Each rank sends K * unit = elems rounded down to a
 * multiple of K. */
int bench_pattern_walker_otto(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap)
{
    int p = in->p, k = in->opts->wo_k, kmax = 4 * p < 4096 ? 4 * p : 4096;
    uint64_t unit = in->elems / (uint64_t)k;
    if (k > kmax) {
        snprintf(why, cap, "K = %d is more than hrelay recognises at P = %d (%d)", k, p, kmax);
        return 1;
    }
    if (unit == 0) {
        snprintf(why, cap, "fewer than K = %d elements per rank", k);
        return 1;
    }
    for (int q = 0; q < p; q++)
        for (int b = 0; b < k; b++) {
            uint64_t dest = (((uint64_t)p * (uint64_t)b + (uint64_t)q) / (uint64_t)k) % (uint64_t)p;
            m[(size_t)q * p + dest] += unit;
        }
    return 0;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Adds to m, for the global elements [0, n), one per element: source (g / r) mod p, target
 * (g / s) mod q. Walks runs of elements whose source and target stay the same. */
static void count_range(uint64_t *m, int p, uint64_t n, uint64_t r, uint64_t s, int q,
                        uint64_t times)
{
    for (uint64_t g = 0; g < n;) {
        uint64_t a = (g / r + 1) * r, b = (g / s + 1) * s, e = a < b ? a : b;
        if (e > n)
            e = n;
        m[(size_t)((g / r) % (uint64_t)p) * p + (g / s) % (uint64_t)q] += (e - g) * times;
        g = e;
    }
}

/* cyclic-pq: cyclic(R) on all P ranks -> cyclic(S) on the first Q ranks (Desprez et al.), of a
 * global array of P * elems elements; ranks Q .. P - 1 receive nothing. The counts repeat with
 * period lcm(R P, S Q), so one period is counted and multiplied. */
int bench_pattern_cyclic_pq(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap)
{
    int p = in->p, q = in->opts->redist_q ? in->opts->redist_q : p - p / 4;
    uint64_t r = (uint64_t)in->opts->redist_r, s = (uint64_t)in->opts->redist_s;
    if (q > p) {
        snprintf(why, cap, "Q = %d is more than the %d ranks", q, p);
        return 1;
    }
    if (q == p && r == s) {
        snprintf(why, cap, "cyclic(%llu) to cyclic(%llu) on the same ranks moves nothing",
                 (unsigned long long)r, (unsigned long long)s);
        return 1;
    }
    uint64_t n = (uint64_t)p * in->elems, rp = r * (uint64_t)p, sq = s * (uint64_t)q;
    uint64_t g = gcd(rp, sq), period = rp / g;
    if (period > n / sq) { /* no whole period: count every run */
        count_range(m, p, n, r, s, q, 1);
        return 0;
    }
    period *= sq;
    count_range(m, p, period, r, s, q, n / period);
    count_range(m, p, n % period, r, s, q, 1);
    return 0;
}
