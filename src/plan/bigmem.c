/* Large planner arrays with transparent huge pages (see bigmem.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#include "plan/bigmem.h"

enum { HUGE_FROM = 2 << 20 };

/* Asks for huge pages on the whole pages inside [ptr, ptr + bytes) when the block is large.
 * Only advice: a kernel that refuses it leaves the block as it is. */
static void advise(void *ptr, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    long page = sysconf(_SC_PAGESIZE);
    if (!ptr || bytes < HUGE_FROM || page <= 0)
        return;
    uintptr_t lo = ((uintptr_t)ptr + (uintptr_t)page - 1) / (uintptr_t)page * (uintptr_t)page;
    uintptr_t hi = ((uintptr_t)ptr + bytes) / (uintptr_t)page * (uintptr_t)page;
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)ptr;
    (void)bytes;
#endif
}

void *plan_big_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    advise(p, bytes);
    return p;
}

void *plan_big_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    /* advised before the zeroing touches the pages */
    void *p = plan_big_alloc(n * size);
    if (p)
        memset(p, 0, n * size);
    return p;
}

void *plan_big_realloc(void *ptr, size_t bytes)
{
    void *p = realloc(ptr, bytes ? bytes : 1);
    advise(p, bytes);
    return p;
}
