/* The cost model hrelay decides with: modeled times of the MPI library's own exchange and of
 * a plan, from machine parameters that hrelay-calibrate measures. Pure C, no MPI. Every
 * quantity is an integer (times in picoseconds, per-byte costs in femtoseconds), so that every
 * rank computes the same numbers from the same inputs and takes the same decision. */
#ifndef HRELAY_PLAN_COST_H
#define HRELAY_PLAN_COST_H

#include <stdint.h>
#include <stdio.h>

#include "plan/error.h"
#include "plan/matrix.h"
#include "plan/plan.h"
#include "plan/topo.h"

/* Machine parameters. The calibration file (plan_cost_write / plan_cost_parse) holds them in
 * seconds; here they are integers. */
typedef struct plan_cost_params {
    uint64_t alpha_ps;   /* latency of one small message (half a ping-pong round trip) */
    uint64_t gap_ps;     /* cost of each further message of a burst a rank posts at once */
    uint64_t beta_fs;    /* per byte of a long one-way transfer (1e15 / bytes per second) */
    uint32_t duplex_pct; /* a rank sending and receiving b bytes at once needs
                            duplex_pct / 100 of the time of b one way: 100 = full duplex,
                            200 = the two directions share the link */
    uint64_t step_ps;    /* cost of one step of a plan run by hrelay's executor beyond its
                            bytes: pairing, matching, skew (measured with the executor's
                            window, so overlap between steps is included) */
    uint32_t native_pct; /* the MPI library's all-at-once exchange: extra time, in percent of
                            the smaller of what a rank sends and receives in a block, caused by
                            many simultaneous flows */
    uint32_t throttle;   /* peers per block of MPICH's scattered algorithm (its
                            MPIR_CVAR_ALLTOALL_THROTTLE, 32) */
    uint64_t plan_ps;    /* planning time per unit of planner work (a matrix entry or a
                            segment of the plan) */
    /* On-node transfers (ranks of one node, through shared memory): not free; a node's memory
     * moves about 10 times a NIC's bytes per second. Calibration files without them get
     * local_alpha = alpha / 5 and local_beta = beta / 10 (plan_cost_parse). */
    uint64_t local_alpha_ps; /* per on-node message */
    uint64_t local_beta_fs;  /* per byte of an on-node message */
    /* Making a node's shared-memory window (HRELAY_NODE_SHM): what exploring node-aggregate
     * through it is charged before one was made on a communicator (not calibrated: on one
     * machine, 2 ranks of MPICH, making one took 7.0 ms for 20 KiB, 8.4 ms for 363 KiB and
     * 53 ms for 9.4 MiB, its pages written and read included). */
    uint64_t window_make_ps; /* per window */
    uint64_t window_make_fs; /* per byte of the window */
} plan_cost_params;

/* Which MPI call the native model describes: MPICH picks different algorithms. */
typedef enum plan_native_kind {
    PLAN_NATIVE_ALLTOALLV = 0, /* scattered: blocks of `throttle` peers, all at once */
    PLAN_NATIVE_ALLTOALL,      /* Bruck for short, scattered for medium, pairwise for long */
    PLAN_NATIVE_INPLACE        /* MPI_IN_PLACE: pairwise MPI_Sendrecv_replace, pair by pair */
} plan_native_kind;

/* Built-in parameters for a machine nobody calibrated: alpha 5 us, gap 1 us, beta 1 ns per
 * byte (1 GB/s), full duplex, 2 us per step, native penalty 50 %, throttle 32, 10 ns per unit
 * of planning; on-node 1 us per message and 0.1 ns per byte (10 GB/s); a node's window 5 ms and
 * 4 ns per byte. */
plan_cost_params plan_cost_defaults(void);

/* Modeled time in picoseconds of the MPI library's own algorithm (MPICH 4) on m. Alltoallv:
 * for each block of `throttle` peer offsets, every rank posts its receives and sends at once
 * and waits for all; a block costs the slowest rank's alpha + gap per further message + beta
 * times (the larger of its block's sent and received bytes + native_pct % of the smaller);
 * blocks add up. Alltoall (uniform m): Bruck's log2 p rounds when each message is at most 256
 * bytes and p >= 8, the Alltoallv model up to 32768 bytes, above that p - 1 pairwise steps of
 * alpha + duplex-weighted beta per message. In place: the pairs one after another along the
 * longest chain of dependent exchanges (2p - 3 of them). Saturates at UINT64_MAX. */
uint64_t plan_cost_native(const plan_matrix *m, plan_native_kind kind,
                          const plan_cost_params *c);

/* Blocks of MPICH's scattered algorithm on p ranks: ceil(p / throttle). */
size_t plan_cost_native_blocks(int p, const plan_cost_params *c);

/* One rank's part of the scattered model, known before anything is exchanged: into block[b]
 * (b < plan_cost_native_blocks) the modeled time of block b for rank `rank`, from the bytes it
 * sends to each rank (row) and receives from each rank (col). The maximum over ranks of each
 * block, summed over blocks, is plan_cost_native's scattered model of the matrix whose rows
 * are the ranks' rows and whose columns their cols. */
void plan_cost_native_rank(int p, int rank, const uint64_t *row, const uint64_t *col,
                           const plan_cost_params *c, uint64_t *block);

/* plan_cost_native from figures of the matrix instead of the matrix: `uniform` the bytes of
 * every off-diagonal entry if they are all equal and not zero, else 0; `largest` the largest
 * off-diagonal entry; block[0 .. nblocks) the scattered model's blocks, each the maximum over
 * ranks of plan_cost_native_rank. Equal to plan_cost_native for every matrix. */
uint64_t plan_cost_native_figures(int p, plan_native_kind kind, uint64_t uniform,
                                  uint64_t largest, const uint64_t *block, size_t nblocks,
                                  const plan_cost_params *c);

/* Picoseconds for moving `bytes` one way at the calibrated rate (beta). */
uint64_t plan_cost_bytes(uint64_t bytes, const plan_cost_params *c);

/* Modeled time in picoseconds of running pl with hrelay's executor: per step step_ps plus
 * beta times its largest transfer, weighted by duplex_pct in full-duplex plans where some
 * rank both sends and receives in the step. A half-duplex plan on links with duplex_pct < 200
 * (both directions at once, at least in part) may take less: the executor's window lets a
 * rank's sends and receives of neighbouring steps run together, so its time is the smaller of
 * that sum and the busiest rank's time: the larger of its bytes sent and received over the
 * plan plus duplex_pct - 100 percent of the smaller, times beta, plus step_ps per step.
 * Saturates at UINT64_MAX. */
uint64_t plan_cost_plan(const plan *pl, const plan_cost_params *c);

/* A lower bound in picoseconds of plan_cost_plan for every half-duplex plan of m: the busiest
 * rank's bytes sent and received combined as there (plan_matrix_shared_load with
 * min(duplex_pct, 200) - 100 percent of the smaller), times beta; steps not counted. */
uint64_t plan_cost_overlap_bound(const plan_matrix *m, const plan_cost_params *c);

/* The lower bound in picoseconds: beta times plan_matrix_lower_bound(m, duplex). */
uint64_t plan_cost_bound(const plan_matrix *m, plan_duplex duplex, const plan_cost_params *c);

/* Modeled planning time in picoseconds of a plan with nsegments segments for m (plan_ps per
 * matrix entry and per segment). */
uint64_t plan_cost_planning(const plan_matrix *m, size_t nsegments, const plan_cost_params *c);

/* Planner work per packet of forward's messages, in units of plan_ps (a matrix entry or a
 * segment of the direct planner). Measured with bench/plan_time on dense matrices (entries
 * uniform in [1, 1 MiB], packets of 64 KiB, about four transfers per packet): 80 - 170 units
 * per packet at P = 16, 64 and 128 (the direct planner at 6 - 7 ns per unit, forward at
 * 0.5 - 1.1 us per packet); docs/planning-time.md has 1.9 and 2.7 us per packet at P = 256
 * and 1024. An estimate from above where many messages have equal sizes: the planner then
 * moves many packets per step at once. */
enum { PLAN_COST_FORWARD_UNITS = 128 };

/* Modeled planning time in picoseconds of forward's plan for m with packets of packet_bytes
 * (> 0): plan_ps per matrix entry and PLAN_COST_FORWARD_UNITS per packet (each message
 * counted in whole packets, the last one possibly short). Known before planning, so that a
 * plan too expensive to build for the calls it would serve is not built. */
uint64_t plan_cost_planning_forward(const plan_matrix *m, uint64_t packet_bytes,
                                    const plan_cost_params *c);

/* Modeled time in picoseconds of a barrier over p ranks (a dissemination barrier: ceil(log2 p)
 * rounds of one small message each), what each step of a plan run in synchronised steps
 * (exec_opts.sync_steps) adds. */
uint64_t plan_cost_barrier(int p, const plan_cost_params *c);

/* Modeled time in picoseconds of exchanging the p x p matrix (an allgather of p 8-byte words
 * per rank: ceil(log2 p) latencies plus the bytes every rank receives). */
uint64_t plan_cost_gather(int p, const plan_cost_params *c);

/* Modeled time in picoseconds of node-direct's node-level metadata of a new pattern on p ranks
 * in n nodes of at most l ranks (shim/node_gather.c): a reduction of n + 1 words on each node,
 * an allgather of as many per node between the nodes' first ranks, a broadcast of n (n + 1)
 * words on each node and an alltoall of one word per pair: 2 ceil(log2 l) + ceil(log2 n) +
 * ceil(log2 p) latencies plus the n (n + 1) + p words a rank receives. */
uint64_t plan_cost_node_gather(int p, int n, int l, const plan_cost_params *c);

/* Reads a calibration file: lines "name = value" (seconds for times, seconds per byte for
 * beta, plain numbers for the rest), '#' comments, blank lines; names as plan_cost_write
 * writes them. Names not present keep their value in *c, except the on-node figures of a file
 * that sets alpha_s or beta_s_per_byte but not local_alpha_s or local_beta_s_per_byte: those
 * become plan_cost_local_alpha / plan_cost_local_beta of the file's values. An unknown name, a
 * malformed or out-of-range value fails with err->line set. Returns 0, or -1 with err set. */
int plan_cost_parse(FILE *in, plan_cost_params *c, plan_error *err);

/* The i-th parameter of c as the calibration file names it and its value in the file's unit
 * (seconds, seconds per byte, percent or count): returns 1, or 0 when i is past the last. */
int plan_cost_field(const plan_cost_params *c, int i, const char **name, double *value);

/* Writes c in the calibration file format (one "name = value" line each, values in seconds
 * with enough digits to read back the same integers). Returns 0, or -1 on a write error. */
int plan_cost_write(FILE *out, const plan_cost_params *c);

/* The on-node latency assumed when only the NIC's alpha is known: alpha / 5. */
uint64_t plan_cost_local_alpha(uint64_t alpha_ps);

/* The on-node cost per byte assumed when only the NIC's beta is known: beta / 10 (at least 1). */
uint64_t plan_cost_local_beta(uint64_t beta_fs);

/* Node level (plan/cost_topo.c). A topology t NULL means one rank per node (for
 * plan_cost_topo_plan: the plan's own placement if it records one); with one rank per node
 * every function gives exactly its rank-level counterpart's time. */

/* The node-level lower bound in picoseconds: the larger of beta times plan_topo_nic_bound and
 * local_beta times plan_topo_local_bound (NICs and memory work at the same time). */
uint64_t plan_cost_topo_bound(const plan_matrix *m, const plan_topo *t, plan_duplex duplex,
                              const plan_cost_params *c);

/* Modeled time in picoseconds of running any plan pl on ranks placed by t. Steps run one after
 * another (the executor's window overlapping neighbouring steps is not counted, as in
 * plan_cost_plan); within a step the NICs and the on-node copies work at the same time: a step
 * costs step_ps plus the larger of (1) beta times the largest NIC load of the step, a node's
 * load being the larger of the bytes its ranks send to and receive from other nodes, weighted
 * by duplex_pct when some node does both in a full-duplex plan, and (2) the busiest rank's
 * own work: gap_ps per message beyond the first it sends (or receives, the larger count),
 * local_alpha per on-node message (the larger count) and local_beta per byte of the larger of
 * its on-node bytes sent and received (half-duplex plans: of their sum). A half-duplex plan on links with duplex_pct < 200 may take the
 * overlapped time instead, as plan_cost_plan: the busiest NIC's bytes over the whole plan
 * (sent and received combined by duplex_pct) or the busiest rank's on-node work, whichever is
 * larger, plus step_ps per step. Saturates at UINT64_MAX (also when memory runs out). */
uint64_t plan_cost_topo_plan(const plan *pl, const plan_topo *t, const plan_cost_params *c);

/* Modeled time in picoseconds of the MPI library's own algorithm on ranks placed by t. The
 * alltoallv model of plan_cost_native (blocks of `throttle` peers, all at once) where a rank's
 * bytes to other nodes share its node's NIC: in a block, a rank with messages costs alpha, gap
 * per further message, and the larger of its NIC's time, if it has off-node messages (beta
 * times the larger of the node's off-node bytes sent and received in the block plus
 * native_pct percent of the smaller: many flows), and its on-node time (the same at
 * local_beta over its own on-node bytes). Alltoall's Bruck and pairwise rounds: per round
 * alpha plus the larger of the busiest NIC's and the on-node bytes (duplex-weighted). In place:
 * plan_cost_native's chain (one pair at a time shares no NIC). Saturates at UINT64_MAX. */
uint64_t plan_cost_topo_native(const plan_matrix *m, plan_native_kind kind, const plan_topo *t,
                               const plan_cost_params *c);

/* The display model (seconds as doubles) of the JSON, text and SVG writers for c. */
plan_model plan_cost_display(const plan_cost_params *c);

#endif
