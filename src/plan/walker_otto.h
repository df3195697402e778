/* Walker and Otto's closed-form schedule for cyclic(r) -> cyclic(K r) redistribution on P
 * processes. Pure C, no MPI. Block indices follow the paper: global block B lives on process
 * B mod P before and goes to process floor(B / K) mod P. */
#ifndef HRELAY_PLAN_WALKER_OTTO_H
#define HRELAY_PLAN_WALKER_OTTO_H

#include <stdint.h>

#include "plan/plan.h"

/* The largest expansion factor K the recogniser tries (besides K <= 4P). */
#define PLAN_WO_MAX_K 4096

/* B(k, p): the global block process p sends in step k (0 <= k < K) of the optimal schedule
 * (Eqs. 7-10, layout of Fig. 7(a)); its local index is B / P, its destination
 * plan_wo_send_process. Every step's destinations form a permutation of the processes. */
uint64_t plan_wo_send_block(int P, int K, int k, int p);

/* C(k, q): the global block process q receives in step k (Eq. 11); it comes from process
 * C mod P and fills slot C mod K of q's block. */
uint64_t plan_wo_recv_block(int P, int K, int k, int q);

/* The process p sends to in step k: floor(B(k, p) / K) mod P. */
int plan_wo_send_process(int P, int K, int k, int p);

/* Whether m (diagonal included) is a cyclic(r) -> cyclic(K r) redistribution: every entry
 * (p, q) is unit times the number of p's K blocks per cycle that go to q, for some K in
 * [2, min(4P, PLAN_WO_MAX_K)]. Sets *K and *unit (bytes of one block over all cycles) to the
 * smallest such K. Returns 1 if recognised, 0 if not. O(P) per K rejected on row 0. */
int plan_wo_recognise(const plan_matrix *m, int *K, uint64_t *unit);

#endif
