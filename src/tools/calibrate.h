/* What hrelay-calibrate's files share (hrelay_calibrate.c: the command line and main;
 * calibrate_measure.c: the measurements; calibrate_output.c: what rank 0 writes): its options,
 * who measures what, the figures of one calibration, and the steps main runs. */
#ifndef HRELAY_TOOLS_CALIBRATE_H
#define HRELAY_TOOLS_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>

#include "plan/topo.h"

/* The program's name in its messages. */
static const char *const prog = "hrelay-calibrate";

/* Options. */
typedef struct options {
    const char *output;
    long size;
    int reps;
    int node_size; /* 0: auto (the shared-memory nodes), else K ranks per node */
} options;

/* Who measures what (the same kinds on every rank). */
typedef struct pairs {
    int nic;        /* partner for the NIC's bytes: lane l of the paired node, -1: none */
    int nic_first;  /* partner for latency and bursts: the same on first lanes only */
    int lanes;      /* lanes of this rank's node pair measuring at once (bytes per NIC) */
    int local;      /* partner on this node: lanes 2k and 2k + 1, -1: none */
    int have_nic;   /* several nodes: NIC pairs exist */
    int have_local; /* some node holds two ranks: on-node pairs exist */
} pairs;

/* The figures of one calibration. */
typedef struct figures {
    double alpha, big, beta, both, duplex, gap, local_alpha, local_beta, step, native, native_pct,
        plan_unit;
    double window_make, window_per_byte;           /* s, s per byte of the window */
    double window_first, window_small, window_big; /* measured making (s) ... */
    uint64_t window_small_bytes, window_big_bytes; /* ... of windows of these sizes */
    int local_measured;
    int window_why; /* 0: measured; 1: one rank per node; 2: a node could not make one */
    long throttle;
} figures;

/* ---- the measurements (calibrate_measure.c) ---- */

/* Returns where ok; else says on stderr that `what` failed and aborts every rank. */
void calibrate_need(int ok, const char *what);

/* Sets t to the node of every rank of MPI_COMM_WORLD: consecutive groups of node_size ranks,
 * or (0) the shared-memory nodes MPI finds; the same on every rank. Collective. */
void calibrate_find_topology(int node_size, int rank, int p, plan_topo *t);

/* This rank's pairs under t (pairs: NIC pairs between nodes, on-node pairs within one; with a
 * single node its on-node pairs take the NIC's place); the same kinds on every rank. */
pairs calibrate_find_pairs(const plan_topo *t, int rank);

/* Sets f's NIC figures (alpha, big, beta, both, duplex, gap), the slowest pair's, the same on
 * every rank; sbuf and rbuf hold o->size bytes. Collective. */
void calibrate_measure_nic(const pairs *q, const options *o, char *sbuf, char *rbuf, int rank,
                           figures *f);

/* Sets f's on-node figures (local_alpha, local_beta, local_measured) from f's NIC figures or the
 * on-node pairs; the same on every rank. Collective. */
void calibrate_measure_local(const pairs *q, const options *o, char *sbuf, int rank, figures *f);

/* Sets f's figures of a node window's making (window_make, window_per_byte, window_why and what
 * measured them), the built-in values where not measured; the same on every rank. Collective. */
void calibrate_measure_window(const plan_topo *t, const pairs *q, const options *o, int rank,
                              figures *f);

/* The slowest rank's time (s) per step of hrelay's executor on a plan of 8-byte steps whose
 * partners change every step, median of reps. Collective. */
double calibrate_executor_step(int p, int rank, int reps);

/* Sets f->native and f->native_pct from a uniform MPI_Alltoallv (f's alpha, beta and gap set
 * before); the same on every rank. Collective. */
void calibrate_measure_native(const plan_topo *t, const pairs *q, const options *o, int p,
                              figures *f);

/* This rank's planning time (s) per unit (matrix entry or segment) of plan_direct on a random
 * p x p matrix (at least 64 x 64). */
double calibrate_planning_unit(int p);

/* ---- what rank 0 writes (calibrate_output.c) ---- */

/* Writes into buf (cap bytes, terminated) the pairs of one kind, every rank's partner given in
 * `partner` (p entries): "0-2 1-3" (the first 8, then how many in all), or "none". */
void calibrate_pair_list(const int *partner, int p, char *buf, size_t cap);

/* Writes the calibration file o->output: the figures f as plan_cost_write writes them, and in
 * its comments what measured them. Returns 0, or 1 (said on stderr) when it cannot be
 * written. */
int calibrate_write_file(const options *o, const figures *f, const char *nic_pairs,
                         const char *local_pairs, int p, int nodes);

/* Prints the figures f and the pairs on standard output. */
void calibrate_print_figures(const options *o, const figures *f, const char *nic_pairs,
                             const char *local_pairs, int p, int nodes);

#endif
