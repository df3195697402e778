/**
 * \file hrelay.h
 * \brief hrelay: a PMPI shim that reschedules MPI_Alltoall / MPI_Alltoallv.
 *
 * An application needs no header to use hrelay: preload libhrelay.so (or run under
 * hrelay-run). This header only tells programs which hrelay they were built against.
 */
#ifndef HRELAY_H
#define HRELAY_H

#define HRELAY_VERSION_MAJOR 0
#define HRELAY_VERSION_MINOR 1
#define HRELAY_VERSION_PATCH 0
#define HRELAY_VERSION_STRING "0.1.0"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief The version of the hrelay library that is loaded.
 * \return a static string such as "0.1.0"; never NULL.
 */
const char *hrelay_version(void);

#ifdef __cplusplus
}
#endif

#endif
