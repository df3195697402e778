/* A call's description: its arguments checked as MPI checks them and normalised into exec's
 * form (describe.c). */
#ifndef HRELAY_SHIM_DESCRIBE_H
#define HRELAY_SHIM_DESCRIBE_H

#include <stdint.h>

#include "exec/exec.h"
#include "shim/args.h"
#include "shim/comm.h"

/* Normalises and validates this rank's arguments into x (its count and displacement arrays
 * are rec's) and writes the bytes it sends to each rank into row. With MPI_IN_PLACE the send
 * side is left for exec_stage and the row comes from the receive side. Returns MPI_SUCCESS,
 * the MPI error class MPI would report (checked in MPICH's order: send side, aliasing,
 * receive side) or SHIM_STATUS_NATIVE (validate.h). */
int shim_describe(const shim_args *a, shim_comm *rec, exec_exchange *x, uint64_t *row);

/* The bytes this rank receives from each rank in described call x into col (x->p words). */
void shim_describe_col(const exec_exchange *x, uint64_t *col);

/* This rank's type facts of a described call: 2 * gcd(send type size, receive type size) +
 * (both types dense). */
uint64_t shim_type_facts(const exec_exchange *x, int inplace);

/* This rank's part of the call's bound from its arguments alone, without a record (p ranks,
 * this one `rank`): the larger of the bytes it sends to and receives from the other ranks, their
 * sum if half (plan_summary_bound's word of this rank, as shim_describe and plan_summary_rank
 * would give it); UINT64_MAX where shim_describe would find an argument erroneous (so that
 * the call is agreed and its error raised as hrelay raises it) or the bytes overflow. node
 * (NULL: none) gives each rank's node; *off (unless NULL) is then the bytes this rank sends to
 * and receives from ranks of other nodes, UINT64_MAX where the load is. */
uint64_t shim_args_load(const shim_args *a, int p, int rank, int half, const int32_t *node,
                        uint64_t *off);

/* Bytes this rank sends in a call that already succeeded (its types are valid), p ranks. */
uint64_t shim_local_bytes(const shim_args *a, int p);

#endif
