/* One hash for the whole library: 64-bit FNV-1a. Pure C, no MPI. Used where a value names
 * something that must be equal on every rank and in every process of one build (a pattern in
 * the plan cache, a plan file of HRELAY_DUMP, the HRELAY_* environment); never for security. */
#ifndef HRELAY_PLAN_HASH_H
#define HRELAY_PLAN_HASH_H

#include <stddef.h>
#include <stdint.h>

/* The start of every hash. (The standard FNV-1a offset basis is 14695981039346656037; hrelay
 * has always started from this value, one digit shorter, and keeps it so that the plan files
 * of HRELAY_DUMP keep their names. Any odd start works as well for FNV.) */
#define PLAN_HASH_START 1469598103934665603ULL

/* The FNV-1a prime of 64 bits. */
#define PLAN_HASH_PRIME 1099511628211ULL

/* The hash h continued over n bytes at p. */
static inline uint64_t plan_hash_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= PLAN_HASH_PRIME;
    }
    return h;
}

/* The hash h continued over n 64-bit words, each taken as its 8 bytes from the least
 * significant up (the same on every byte order). */
static inline uint64_t plan_hash_words(uint64_t h, const uint64_t *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < 8; b++) {
            h ^= (w[i] >> (8 * b)) & 0xff;
            h *= PLAN_HASH_PRIME;
        }
    return h;
}

#endif
