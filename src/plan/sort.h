/* Sorting for the planners (pure C, no MPI). */
#ifndef HRELAY_PLAN_SORT_H
#define HRELAY_PLAN_SORT_H

#include <stddef.h>
#include <stdint.h>

/* A list of items being sorted: item k is id[k] with key key[k]; tmp_id and tmp_key are
 * scratch of the same length. */
typedef struct plan_sort_list {
    uint32_t *id, *tmp_id;
    uint64_t *key, *tmp_key;
    size_t n;
} plan_sort_list;

/* Sorts the n items by key, largest first, keeping their order among equal keys (an LSD radix
 * sort with as many 11-bit passes as the largest key needs: O(n) per pass). The sorted items
 * may end up in the scratch buffers: the list's pointers are swapped accordingly. Returns 0,
 * or -1 (out of memory; the list is then in some order of its items). */
int plan_sort_largest_first(plan_sort_list *l);

#endif
