/* Erroneous calls: MPI's argument checks repeated before anything moves, and errors raised
 * through the communicator's error handler. */
#ifndef HRELAY_SHIM_VALIDATE_H
#define HRELAY_SHIM_VALIDATE_H

#include <mpi.h>

#include "exec/exec.h"
#include "shim/args.h"

/* Status of a rank's arguments that are not erroneous but that hrelay does not execute itself
 * (a displacement whose byte offset overflows MPI_Aint; with an MPI library without the MPI-4
 * large-count functions, a message over INT_MAX bytes): every rank then runs the call through
 * PMPI unchanged. Not an MPI error class. */
enum { SHIM_STATUS_NATIVE = -1 };

/* MPI_SUCCESS if type is a valid, committed datatype, else the class MPI reports for it
 * (MPI_ERR_TYPE; MPI_DATATYPE_NULL included). priv is a communicator whose error handler
 * returns (the check may call the MPI library on it). O(1); no message is sent. */
int shim_check_type(MPI_Datatype type, MPI_Comm priv);

/* Whether t is one of the common predefined datatypes: always valid and committed, accepted
 * without asking the MPI library, and its layout the same for the whole run. */
int shim_type_common(MPI_Datatype t);

/* The MPI error class MPICH's parameter checking gives message j of one side (recv: 1 for the
 * receive side) of a, with `count` elements of type t: MPI_ERR_BUFFER for MPI_IN_PLACE as
 * receive buffer with count > 0, MPI_ERR_COUNT for a negative count, MPI_ERR_BUFFER for a NULL
 * buffer with count > 0 and a type with data at offset 0 (for the v variants only where the
 * displacement is 0); else MPI_SUCCESS. */
int shim_check_message(const shim_args *a, int recv, int j, MPI_Count count, const exec_type *t);

/* MPI_ERR_BUFFER if a passes the same buffer as send and receive buffer in the cases MPICH
 * rejects (same type and the same counts: the same count for MPI_Alltoall(_c), not 0; the same
 * counts array for MPI_Alltoallv(_c)); else MPI_SUCCESS. */
int shim_check_alias(const shim_args *a);

/* Raises code (an MPI error code or class) through the error handler of a->comm and returns
 * it. If that handler aborts the job (MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT), first prints
 * "hrelay: error in <call> on rank R of the communicator: <MPI's error string> ..." on stderr,
 * so the abort names hrelay and the call. */
int shim_raise(const shim_args *a, int code);

/* A call in which some rank's receive region is smaller than a message to it (every rank calls
 * this, after agreeing on it before any data moved). MPICH ABI family: returns what the MPI
 * library's own exchange returns on this rank (it reports MPI_ERR_TRUNCATE on the truncated
 * ranks and completes elsewhere, without hanging); if `here` (this rank is truncated) and the
 * error handler aborts, aborts through shim_raise instead, naming hrelay. Open MPI (whose own
 * MPI_Alltoall leaves the other ranks waiting forever): MPI_ERR_TRUNCATE on every rank through
 * shim_raise, nothing written. */
int shim_truncated_call(const shim_args *a, int here);

#endif
