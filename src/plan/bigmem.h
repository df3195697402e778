/* Memory for the planners' large arrays (pure C, no MPI). Planning a dense exchange of a few
 * hundred ranks fills tens to hundreds of MiB once; on Linux these functions ask for
 * transparent huge pages for blocks of 2 MiB or more (madvise MADV_HUGEPAGE, honoured when
 * /sys/kernel/mm/transparent_hugepage/enabled is "always" or "madvise"), so filling them takes
 * up to 512 times fewer page faults. Memory from them is released with free(). */
#ifndef HRELAY_PLAN_BIGMEM_H
#define HRELAY_PLAN_BIGMEM_H

#include <stddef.h>

/* malloc(bytes) (NULL when out of memory), huge pages asked for when large. */
void *plan_big_alloc(size_t bytes);

/* calloc(n, size) (NULL when out of memory or on overflow), huge pages asked for when large. */
void *plan_big_calloc(size_t n, size_t size);

/* realloc(ptr, bytes) (NULL when out of memory, ptr then unchanged), huge pages asked for
 * when large. */
void *plan_big_realloc(void *ptr, size_t bytes);

#endif
