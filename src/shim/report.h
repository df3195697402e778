/* The JSON report rank 0 writes at MPI_Finalize (HRELAY_REPORT; report.c). */
#ifndef HRELAY_SHIM_REPORT_H
#define HRELAY_SHIM_REPORT_H

#include <stddef.h>

#include "shim/comm_summary.h"
#include "shim/settings.h"
#include "shim/site_report.h"

/* Writes the JSON report (README "The report": the settings in effect, the communicators'
 * topologies, one entry per call site and the total) to path. Returns 0, or -1 with errno
 * set. */
int shim_report_write(const char *path, const shim_config *cfg, const shim_comm_summaries *comms,
                      const shim_site_report *sites, size_t nsites, int ranks);

#endif
