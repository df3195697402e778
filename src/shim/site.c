/* Call sites: which line of the program made an intercepted call. The entry points pass the
 * return address they were called from; that address names the site of almost every call for
 * free. Calls that come through the MPI library's Fortran bindings (and every call when
 * HRELAY_SITE_DEPTH > 1) are unwound instead, past hrelay's and MPI's own frames (as mpiP's
 * record_stack.c does), keeping call addresses (return address - 1): with libunwind, or in a
 * build configured without it with glibc's backtrace() (the same frames). Names are resolved
 * only when the report is written: per rank to (file, address in the file), which means the
 * same in every process, then on rank 0 to "file:line function". */
#include "config.h"

#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#ifdef HRELAY_HAVE_LIBUNWIND
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#else
#include <execinfo.h>
#endif

#include "plan/hash.h"
#include "shim/site.h"

/* Entries of the return-address index (a power of two). */
enum { RA_SLOTS = 256, UNWIND = -2 };

/* One entry of the index: a return address and its site, or UNWIND. */
struct shim_ra {
    uintptr_t ra;
    int32_t site;
};

/* Address ranges (executable segments) of the modules whose frames are not call sites:
 * hrelay itself and the MPI library's (libmpi*, libpmpi*, libmpich*). Filled once by
 * shim_site_init at MPI_Init, read-only afterwards. */
enum { MAX_RANGES = 32 };
static struct {
    uintptr_t lo, hi;
} skip[MAX_RANGES];
static int nskip;

/* Whether a module file name is the MPI library's (C or Fortran bindings). */
static int mpi_module(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return !strncmp(base, "libmpi", 6) || !strncmp(base, "libpmpi", 7) ||
           !strncmp(base, "libfmpich", 9);
}

/* dl_iterate_phdr callback: records the executable segments of skipped modules; data is the
 * path of hrelay's own module. */
static int note_module(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    const char *self = data;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    if (!(mpi_module(name) || (self && *name && !strcmp(name, self))))
        return 0;
    for (int i = 0; i < info->dlpi_phnum && nskip < MAX_RANGES; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            skip[nskip].lo = info->dlpi_addr + ph->p_vaddr;
            skip[nskip].hi = skip[nskip].lo + ph->p_memsz;
            nskip++;
        }
    }
    return 0;
}

/* Finds the modules whose frames are skipped (see site.h's shim_site_of); at MPI_Init. */
void shim_site_init(void)
{
    Dl_info self;
    nskip = 0;
    const char *path = dladdr((void *)shim_site_init, &self) ? self.dli_fname : NULL;
    dl_iterate_phdr(note_module, (void *)path);
}

/* Whether address a lies in a skipped module. */
static int skipped(uintptr_t a)
{
    for (int i = 0; i < nskip; i++)
        if (a >= skip[i].lo && a < skip[i].hi)
            return 1;
    return 0;
}

/* The site with these frames, appended if new; NULL when out of memory. */
static shim_site *find_or_add(shim_sites *s, const uintptr_t *frames, int n)
{
    uint64_t key =
        n == 1 ? frames[0] : plan_hash_words(PLAN_HASH_START, (const uint64_t *)frames, (size_t)n);
    for (size_t i = 0; i < s->n; i++)
        if (s->site[i].key == key && s->site[i].nframes == n &&
            !memcmp(s->site[i].frames, frames, sizeof *frames * (size_t)n))
            return &s->site[i];
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 8;
        shim_site *g = realloc(s->site, cap * sizeof *g);
        if (!g)
            return NULL;
        s->site = g;
        s->cap = cap;
    }
    shim_site *site = &s->site[s->n++];
    memset(site, 0, sizeof *site);
    site->key = key;
    site->nframes = n;
    memcpy(site->frames, frames, sizeof *frames * (size_t)n);
    return site;
}

/* Fills buf with up to max return addresses of the calling thread's stack, innermost first;
 * returns how many. */
static int stack_addresses(void **buf, int max)
{
#ifdef HRELAY_HAVE_LIBUNWIND
    return unw_backtrace(buf, max);
#else
    return backtrace(buf, max);
#endif
}

/* The site named by unwinding the stack (see shim_site_of). */
static shim_site *unwound(shim_sites *s, int depth)
{
    void *buf[32 + SHIM_SITE_FRAMES];
    int n = stack_addresses(buf, (int)(sizeof buf / sizeof buf[0])), i = 0, k = 0;
    uintptr_t frames[SHIM_SITE_FRAMES];
    while (i < n && skipped((uintptr_t)buf[i]))
        i++;
    for (; i < n && k < depth; i++)
        frames[k++] = (uintptr_t)buf[i] - 1;
    if (k == 0)
        frames[k++] = 0; /* nothing outside hrelay and MPI: an "unknown" site */
    return find_or_add(s, frames, k);
}

shim_site *shim_site_of(shim_sites *s, uintptr_t ra, int depth)
{
    if (ra == s->last_ra && depth == 1) /* the common case: the same line as last time */
        return &s->site[s->last_site];
    if (!s->ra && !(s->ra = calloc(RA_SLOTS, sizeof *s->ra)))
        return NULL;
    if (depth > 1)
        return unwound(s, depth);
    struct shim_ra *e = &s->ra[(ra >> 4 ^ ra >> 12) & (RA_SLOTS - 1)];
    if (e->ra == ra && e->site != UNWIND && (size_t)e->site < s->n) {
        s->last_ra = ra;
        s->last_site = (size_t)e->site;
        return &s->site[e->site];
    }
    if (e->ra == ra && e->site == UNWIND)
        return unwound(s, 1);
    if (skipped(ra)) {
        *e = (struct shim_ra){ra, UNWIND};
        return unwound(s, 1);
    }
    uintptr_t call = ra - 1;
    shim_site *site = find_or_add(s, &call, 1);
    if (site) {
        *e = (struct shim_ra){ra, (int32_t)(site - s->site)};
        s->last_ra = ra;
        s->last_site = (size_t)(site - s->site);
    }
    return site;
}

void shim_sites_free(shim_sites *s)
{
    free(s->site);
    free(s->ra);
    memset(s, 0, sizeof *s);
}

int shim_sites_merge(shim_sites *to, const shim_sites *from)
{
    for (size_t i = 0; i < from->n; i++) {
        const shim_site *f = &from->site[i];
        shim_site *t = find_or_add(to, f->frames, f->nframes);
        if (!t)
            return -1;
        shim_stats_fold(&t->st, &f->st);
    }
    return 0;
}
