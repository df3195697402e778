/* Call sites: which line of the program made an intercepted call, and its statistics. */
#ifndef HRELAY_SHIM_SITE_H
#define HRELAY_SHIM_SITE_H

#include <stddef.h>
#include <stdint.h>

#include "shim/settings.h"
#include "shim/stats.h"

/* Patterns a site remembers to tell a repeated pattern from a new one. */
enum { SHIM_SITE_RECENT = 4 };

/* One call site of one rank: the return addresses that name it, and its statistics. */
typedef struct shim_site {
    uintptr_t key;                      /* hash of the frames (the frame itself if one) */
    int nframes;
    uintptr_t frames[SHIM_SITE_FRAMES]; /* call addresses, innermost first */
    shim_stats st;
    uint64_t recent[SHIM_SITE_RECENT]; /* this rank's part of the patterns of the site's
                                          last agreed calls (hashes; 0: none) */
    uint64_t unchecked_mark; /* st.unchecked at the site's last agreed call (the calls run
                                here without agreement since then are the difference) */
} shim_site;

/* The sites of one communicator (or, merged, of the process): a growing array with an index
 * from the caller's return address (the site of most calls is found without unwinding). */
typedef struct shim_sites {
    shim_site *site;
    size_t n, cap;
    struct shim_ra *ra; /* direct-mapped index: return address -> site (or "unwind") */
    uintptr_t last_ra;  /* the last return address that named a site without unwinding */
    size_t last_site;   /* and that site's index */
} shim_sites;

/* The site of a call whose entry point was called from return address ra, created on first
 * use; NULL when out of memory. With depth 1 and ra outside the MPI library's modules, the site
 * is ra itself, found without unwinding; from MPI's Fortran bindings (a module named libmpi*,
 * libpmpi* or libfmpich*), or with depth > 1, libunwind walks the stack past hrelay's and MPI's
 * frames and the next `depth` frames name the site. */
shim_site *shim_site_of(shim_sites *s, uintptr_t ra, int depth);

/* Finds the modules whose frames never name a call site (hrelay's, the MPI library's); once,
 * at MPI_Init, before any call is intercepted. */
void shim_site_init(void);

/* Releases a site table; s may be zero-initialised. */
void shim_sites_free(shim_sites *s);

/* Adds every site of from into to (matched by frames). Returns 0, or -1 when out of memory. */
int shim_sites_merge(shim_sites *to, const shim_sites *from);

#endif
