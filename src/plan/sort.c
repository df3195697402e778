/* Sorting for the planners (see sort.h). */
#include <stdlib.h>
#include <string.h>

#include "plan/sort.h"

enum { RADIX_BITS = 11, RADIX = 1 << RADIX_BITS };

int plan_sort_largest_first(plan_sort_list *l)
{
    uint64_t most = 0;
    for (size_t k = 0; k < l->n; k++)
        most = l->key[k] > most ? l->key[k] : most;
    int bits = most ? 64 - __builtin_clzll(most) : 0;
    size_t *count = malloc(RADIX * sizeof *count);
    if (!count)
        return -1;
    for (int shift = 0; shift < bits; shift += RADIX_BITS) {
        memset(count, 0, RADIX * sizeof *count);
        for (size_t k = 0; k < l->n; k++)
            count[l->key[k] >> shift & (RADIX - 1)]++;
        /* positions from the largest digit down: a stable pass in decreasing digit order */
        size_t at = 0;
        for (int d = RADIX - 1; d >= 0; d--) {
            size_t c = count[d];
            count[d] = at;
            at += c;
        }
        for (size_t k = 0; k < l->n; k++) {
            size_t to = count[l->key[k] >> shift & (RADIX - 1)]++;
            l->tmp_id[to] = l->id[k];
            l->tmp_key[to] = l->key[k];
        }
        uint32_t *id = l->id;
        uint64_t *key = l->key;
        l->id = l->tmp_id;
        l->key = l->tmp_key;
        l->tmp_id = id;
        l->tmp_key = key;
    }
    free(count);
    return 0;
}
