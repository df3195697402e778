/**
 * \file hrelay.h
 * \brief hrelay: a PMPI shim that reschedules MPI_Alltoall / MPI_Alltoallv.
 *
 * An application needs no header to use hrelay: preload libhrelay.so (or run under
 * hrelay-run). This header tells programs which hrelay they were built against, and gives
 * tools such as benchmarks a way to steer and observe hrelay per communicator. Programs that
 * must also run without hrelay look the functions up with dlsym(RTLD_DEFAULT, "hrelay_...").
 */
#ifndef HRELAY_H
#define HRELAY_H

#define HRELAY_VERSION_MAJOR 0
#define HRELAY_VERSION_MINOR 1
#define HRELAY_VERSION_PATCH 0
#define HRELAY_VERSION_STRING "0.1.0"

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * \brief The version of the hrelay library that is loaded.
 * \return a static string such as "0.1.0"; never NULL.
 */
const char *hrelay_version(void);

/**
 * \brief Chooses the schedule family of the following MPI_Alltoall(v) calls on \p comm,
 *        overriding HRELAY_ALGO for that communicator.
 *
 * Collective over \p comm: every rank must call it with the same \p name between the same two
 * collective calls (hrelay does not check the names agree). It does not communicate: before
 * the first intercepted call on \p comm the request waits on the communicator for that call,
 * which makes hrelay's record of it. Calls on other communicators, including duplicates of
 * \p comm, keep their own setting.
 * \param comm an intracommunicator
 * \param name an HRELAY_ALGO value ("auto", "native", "direct", ...), or NULL to return to
 *        the value of HRELAY_ALGO
 * \return 0, or -1 if \p name is not a family hrelay knows, \p comm is not an
 *         intracommunicator, or hrelay is not active (disabled, or MPI not initialised)
 */
int hrelay_set_algorithm(MPI_Comm comm, const char *name);

/**
 * \brief The family that executed the most recent intercepted call on \p comm.
 * \return an HRELAY_ALGO name such as "native" or "direct" (a static string; the same on
 *         every rank of \p comm), or NULL if no call on \p comm was intercepted yet or hrelay
 *         is not active. Local: no communication.
 */
const char *hrelay_last_algorithm(MPI_Comm comm);

/**
 * \brief What executed the most recent intercepted call on \p comm: its family and the
 *        variant `auto` chose for it.
 * \return hrelay_last_algorithm's name, followed by "/window 4" where the plan ran with its
 *         small window of operations in flight, or by "/shared memory" where node-aggregate's
 *         transfers within the node went through the node's shared-memory window as a variant
 *         `auto` measured (HRELAY_NODE_SHM=auto), e.g. "direct/window 4"; the same on every
 *         rank of \p comm. NULL as for hrelay_last_algorithm. The string stays valid until the
 *         next call of this function or intercepted call on \p comm, or until \p comm is
 *         freed. Local: no communication.
 */
const char *hrelay_last_run(MPI_Comm comm);

#ifdef __cplusplus
}
#endif

#endif
