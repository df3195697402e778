/* Call sites for the report: merged over ranks and named "file:line function". */
#ifndef HRELAY_SHIM_SITE_REPORT_H
#define HRELAY_SHIM_SITE_REPORT_H

#include <stddef.h>

#include "shim/site.h"
#include "shim/stats.h"

/* One call site of the program, over all ranks. */
typedef struct shim_site_report {
    char name[512]; /* "file:line function", deeper frames joined by " < " */
    shim_stats st;
} shim_site_report;

/* Collective over MPI_COMM_WORLD: gathers every rank's sites on rank 0 and merges them, sites
 * being equal when their frames are at the same places of the same files (addresses differ
 * between processes). *out (rank 0) receives one entry per site: calls, cache figures and
 * times the largest over ranks, bytes summed, families by the largest count; names are
 * resolved to "file:line function" (addr2line, else the symbol) joined by " < " for deeper
 * frames. Returns an MPI error code, the same on every rank. */
int shim_sites_gather(const shim_sites *mine, shim_site_report **out, size_t *n);

#endif
