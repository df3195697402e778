/* libfail_alloc.so: hrelay out of memory, reproducibly (tests/mpi/oom.sh). Preloaded ahead of
 * libhrelay.so, it makes malloc, calloc and realloc return NULL for one call in
 * HRELAY_TEST_FAIL_EVERY (default 7) of those made from libhrelay.so's own code (plan/, exec/
 * and shim/ alike), counted per process from an offset that depends on the rank (PMI_RANK, or
 * Open MPI's OMPI_COMM_WORLD_RANK) and HRELAY_TEST_FAIL_SEED, so that ranks run out of memory
 * at different points: a rank that cannot make a record, a plan, a staging buffer or a
 * statistics entry while its peers can.
 * Calls from elsewhere (MPI, libc, the test program) are never failed. The number of
 * allocations failed is printed to standard error at exit ("fail_alloc: rank R: F of N
 * allocations of libhrelay.so failed"), so a test can check that some were. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);

static uintptr_t lo, hi;        /* libhrelay.so's mapped range, [lo, hi) once found */
static int looked;              /* 1: searched (found or not) */
static __thread int inside;     /* this thread is in the search (dl_iterate_phdr may allocate) */
static unsigned long every = 7; /* fail one call in this many */
static unsigned long counter, failed, seen;
static int rank = -1;

/* dl_iterate_phdr's callback: records the range of the object whose name ends in
 * libhrelay.so. */
static int find_hrelay(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    const char *name = info->dlpi_name;
    size_t n = name ? strlen(name) : 0;
    if (n < 12 || strcmp(name + n - 12, "libhrelay.so") != 0)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr, b = a + ph->p_memsz;
        if (!lo || a < lo)
            lo = a;
        if (b > hi)
            hi = b;
    }
    return 1;
}

/* Prints the count at exit. */
static void report(void)
{
    if (looked && lo)
        fprintf(stderr, "fail_alloc: rank %d: %lu of %lu allocations of libhrelay.so failed\n",
                rank, failed, seen);
}

/* Whether the allocation called from ra fails. */
static int fails(const void *ra)
{
    if (inside)
        return 0;
    if (!looked) {
        inside = 1;
        dl_iterate_phdr(find_hrelay, NULL);
        const char *e = getenv("HRELAY_TEST_FAIL_EVERY"), *s = getenv("HRELAY_TEST_FAIL_SEED"),
                   *r = getenv("PMI_RANK") ? getenv("PMI_RANK") : getenv("OMPI_COMM_WORLD_RANK");
        if (e && atol(e) > 0)
            every = (unsigned long)atol(e);
        rank = r ? atoi(r) : 0;
        counter = (unsigned long)(rank * 3 + (s ? atoi(s) : 0));
        looked = 1;
        atexit(report);
        inside = 0;
    }
    uintptr_t a = (uintptr_t)ra;
    if (!lo || a < lo || a >= hi)
        return 0;
    seen++;
    if (++counter % every)
        return 0;
    failed++;
    return 1;
}

__attribute__((visibility("default"))) void *malloc(size_t size)
{
    return fails(__builtin_return_address(0)) ? NULL : __libc_malloc(size);
}

__attribute__((visibility("default"))) void *calloc(size_t n, size_t size)
{
    return fails(__builtin_return_address(0)) ? NULL : __libc_calloc(n, size);
}

__attribute__((visibility("default"))) void *realloc(void *p, size_t size)
{
    return fails(__builtin_return_address(0)) ? NULL : __libc_realloc(p, size);
}
