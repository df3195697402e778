/* Saturating integer arithmetic of the cost model (internal to plan/). Pure C. */
#ifndef HRELAY_PLAN_COST_MATH_H
#define HRELAY_PLAN_COST_MATH_H

#include <stdint.h>

/* a + b, saturating at UINT64_MAX. */
static inline uint64_t sat_add(uint64_t a, uint64_t b)
{
    uint64_t s;
    return __builtin_add_overflow(a, b, &s) ? UINT64_MAX : s;
}

/* t * (100 + pct) / 100, saturating at UINT64_MAX. */
static inline uint64_t plus_pct(uint64_t t, uint32_t pct)
{
    unsigned __int128 v = (unsigned __int128)t * (100u + pct) / 100u;
    return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

/* a * b, saturating at UINT64_MAX. */
static inline uint64_t sat_mul(uint64_t a, uint64_t b)
{
    uint64_t s;
    return __builtin_mul_overflow(a, b, &s) ? UINT64_MAX : s;
}

/* Picoseconds for `bytes` at beta_fs femtoseconds per byte, scaled by pct / 100. */
static inline uint64_t bytes_ps(uint64_t bytes, uint64_t beta_fs, uint32_t pct)
{
    unsigned __int128 v = (unsigned __int128)bytes * beta_fs * pct / 100000u;
    return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

/* Picoseconds for a rank that sends `a` and receives `b` bytes at once: the larger one way,
 * plus pct - 100 percent of the smaller (pct = 100: full duplex; 200: the two share the link). */
static inline uint64_t both_ways_ps(uint64_t a, uint64_t b, uint64_t beta_fs, uint32_t pct)
{
    uint64_t big = a > b ? a : b, small = a > b ? b : a;
    return sat_add(bytes_ps(big, beta_fs, 100), bytes_ps(small, beta_fs, pct - 100));
}

#endif
