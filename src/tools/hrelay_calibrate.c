/* hrelay-calibrate: measures the machine parameters of hrelay's cost model (plan/cost.h) on
 * the ranks it runs on and writes the calibration file HRELAY_CONFIG reads. An MPI program:
 * run it like the application (same hosts, same ranks per host), with plain mpiexec or
 * hrelay-run; it calls the MPI library through PMPI and hrelay's executor directly, so a
 * preloaded libhrelay.so does not change what it measures.
 *
 * Two levels (README "Calibration"): the ranks' nodes (--node-size, as HRELAY_NODE_SIZE: the
 * shared-memory nodes, or consecutive groups of K ranks) give two kinds of pairs. NIC pairs:
 * lane l of node 2m with lane l of node 2m + 1 (all lanes of a node pair at once share its
 * NIC); on-node pairs: lanes 2k and 2k + 1 of one node. Every figure is the median of --reps
 * repetitions, pairs of a kind measure at the same time, and the slowest pair counts:
 *   alpha_s          half the round trip of an 8-byte ping-pong (NIC pairs of first lanes)
 *   beta_s_per_byte  (half the round trip of a --size ping-pong - alpha) / the bytes the NIC
 *                    carries one way (every lane of the node pair at once: lanes x size)
 *   duplex_percent   a --size exchange in both directions at once (MPI_Sendrecv, every lane)
 *                    against one way
 *   gap_s            per further message of a burst of 32 small nonblocking sends (first
 *                    lanes)
 *   local_alpha_s, local_beta_s_per_byte   the same ping-pongs between on-node pairs
 *   window_make_s, window_make_s_per_byte  making a node's shared-memory window as
 *                    node-aggregate does (exec/node_window.h), on every node at once: per
 *                    byte between 64 KiB and --size x the most ranks per node (median of at
 *                    most WINDOW_REPS each), fixed the process's first window beyond that
 * With one node, its on-node pairs measure every figure (there is no NIC); with one rank per
 * node, the on-node figures are not measured (alpha / 5, beta / 10), nor the window's (the
 * built-in values; also where a node's ranks share no memory or its window could not be
 * allocated). Then, on all ranks:
 *   step_s           per step of hrelay's executor running a plan of 8-byte steps whose
 *                    partners change every step (window EXEC_DEFAULT_WINDOW)
 *   native_percent   MPI_Alltoallv of --size bytes per rank, uniform, against the model's
 *                    bandwidth term: the extra percent of the busiest NIC's off-node volume
 *                    it takes (one node: of a rank's received volume)
 *   plan_s_per_unit  plan_direct on a random P x P matrix (rank 0), per matrix entry + segment
 *   throttle         MPIR_CVAR_ALLTOALL_THROTTLE if set, else MPICH's 32
 *
 * This file holds the command line (options, usage) and main, which runs the measurements
 * (calibrate_measure.c) in order and writes what they found (calibrate_output.c); the three
 * share calibrate.h. */
#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hrelay.h"
#include "plan/topo.h"
#include "tools/calibrate.h"

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: mpiexec -n RANKS %s [--output FILE] [--size BYTES] [--reps N] [--quick]\n"
            "                         [--node-size auto|K]\n"
            "\n"
            "Measures the cost-model parameters of hrelay on the ranks it runs on (at least 2;\n"
            "run it with the hosts and ranks per host of the application) and writes them to\n"
            "FILE for HRELAY_CONFIG (or hrelay-run --config). Rank 0 prints the figures and the\n"
            "pairs of ranks that measured them.\n"
            "\n"
            "  -o, --output FILE  calibration file to write (default hrelay-calibration.conf)\n"
            "  -s, --size BYTES   message size of the bandwidth measurements (default 4194304)\n"
            "  -r, --reps N       repetitions per figure, the median counts (default 15)\n"
            "  -q, --quick        --size 262144 --reps 5: a rough calibration in seconds\n"
            "  -n, --node-size auto|K  the nodes, as HRELAY_NODE_SIZE (default: its value, else\n"
            "                     auto): auto, the shared-memory nodes MPI finds; K, consecutive\n"
            "                     groups of K ranks. The NIC figures are measured between ranks\n"
            "                     of different nodes, the on-node ones between ranks of one node\n"
            "  -h, --help         print this help and exit\n"
            "      --version      print the version and exit\n"
            "\n"
            "The file holds: alpha_s, gap_s, beta_s_per_byte, duplex_percent, step_s,\n"
            "native_percent, throttle, plan_s_per_unit, local_alpha_s, local_beta_s_per_byte,\n"
            "window_make_s, window_make_s_per_byte (see README \"Calibration\"). With one rank\n"
            "per node the on-node figures are not measured (alpha / 5, beta / 10), nor the\n"
            "window's making (the built-in values; also where a node's ranks share no memory\n"
            "or its window could not be allocated).\n"
            "Exit status: 0 on success, 1 if measuring or writing failed, 2 for usage errors.\n",
            prog);
}

/* Parses a node size: "auto" (0) or K in 1..2^20. Returns 0, or -1. */
static int parse_node_size(const char *s, int *k)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!strcmp(s, "auto")) {
        *k = 0;
        return 0;
    }
    if (end == s || *end || v < 1 || v > (1L << 20))
        return -1;
    *k = (int)v;
    return 0;
}

/* Parses the options; exits on --help, --version or a usage error (rank 0 prints). */
static void parse(int argc, char **argv, options *o, int rank)
{
    static const struct option longs[] = {{"output", required_argument, NULL, 'o'},
                                          {"size", required_argument, NULL, 's'},
                                          {"reps", required_argument, NULL, 'r'},
                                          {"quick", no_argument, NULL, 'q'},
                                          {"node-size", required_argument, NULL, 'n'},
                                          {"help", no_argument, NULL, 'h'},
                                          {"version", no_argument, NULL, 'V'},
                                          {NULL, 0, NULL, 0}};
    *o = (options){.output = "hrelay-calibration.conf", .size = 4 << 20, .reps = 15};
    int c, bad = 0, stop = 0;
    char *end;
    const char *env = getenv("HRELAY_NODE_SIZE");
    bad |= env && *env && parse_node_size(env, &o->node_size) != 0;
    opterr = rank == 0;
    while ((c = getopt_long(argc, argv, "o:s:r:qn:h", longs, NULL)) != -1) {
        switch (c) {
        case 'n': bad |= parse_node_size(optarg, &o->node_size) != 0; break;
        case 'o': o->output = optarg; break;
        case 's':
            o->size = strtol(optarg, &end, 10);
            bad |= *end || o->size < 1024 || o->size > (1L << 30);
            break;
        case 'r':
            o->reps = (int)strtol(optarg, &end, 10);
            bad |= *end || o->reps < 1 || o->reps > 1000;
            break;
        case 'q':
            o->size = 256 << 10;
            o->reps = 5;
            break;
        case 'h':
            if (rank == 0)
                usage(stdout);
            stop = 1;
            break;
        case 'V':
            if (rank == 0)
                printf("%s (hrelay) %s\n", prog, HRELAY_VERSION_STRING);
            stop = 1;
            break;
        default: bad = 1;
        }
    }
    bad |= optind != argc;
    if (bad && rank == 0) {
        fprintf(stderr,
                "%s: bad arguments (--size 1024..1073741824, --reps 1..1000, --node-size and "
                "HRELAY_NODE_SIZE auto or 1..1048576)\n",
                prog);
        usage(stderr);
    }
    if (bad || stop) {
        MPI_Finalize();
        exit(bad ? 2 : 0);
    }
}

int main(int argc, char **argv)
{
    int rank, p;
    options o;
    PMPI_Init(&argc, &argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &p);
    parse(argc, argv, &o, rank);
    if (p < 2) {
        if (rank == 0)
            fprintf(stderr, "%s: needs at least 2 ranks (mpiexec -n 2 or more)\n", prog);
        PMPI_Finalize();
        return 2;
    }
    plan_topo t;
    calibrate_find_topology(o.node_size, rank, p, &t);
    pairs q = calibrate_find_pairs(&t, rank);
    char *sbuf = calloc((size_t)o.size, 1), *rbuf = calloc((size_t)o.size, 1);
    int *partner = calloc((size_t)p * 2, sizeof *partner);
    calibrate_need(sbuf && rbuf && partner, "malloc");
    int mine[2] = {q.have_nic ? q.nic : -1, q.have_nic ? q.local : q.nic};
    PMPI_Gather(mine, 2, MPI_INT, partner, 2, MPI_INT, 0, MPI_COMM_WORLD);

    figures f = {0};
    calibrate_measure_nic(&q, &o, sbuf, rbuf, rank, &f);
    calibrate_measure_local(&q, &o, sbuf, rank, &f);
    calibrate_measure_window(&t, &q, &o, rank, &f);
    f.step = calibrate_executor_step(p, rank, o.reps);
    calibrate_measure_native(&t, &q, &o, p, &f);
    f.plan_unit = calibrate_planning_unit(p);
    const char *thr = getenv("MPIR_CVAR_ALLTOALL_THROTTLE");
    f.throttle = thr ? strtol(thr, NULL, 10) : 32;
    f.throttle = f.throttle > 0 ? f.throttle : 32;

    int status = 0;
    if (rank == 0) {
        char nic_pairs[256], local_pairs[256];
        int *nic = malloc((size_t)p * sizeof *nic), *local = malloc((size_t)p * sizeof *local);
        calibrate_need(nic && local, "malloc");
        for (int r = 0; r < p; r++) {
            nic[r] = partner[2 * r];
            local[r] = partner[2 * r + 1];
        }
        calibrate_pair_list(nic, p, nic_pairs, sizeof nic_pairs);
        calibrate_pair_list(local, p, local_pairs, sizeof local_pairs);
        if (!q.have_nic) /* one node: its on-node pairs measured everything */
            snprintf(nic_pairs, sizeof nic_pairs, "none (one node: the on-node pairs')");
        else if (!q.have_local)
            snprintf(local_pairs, sizeof local_pairs, "none (one rank per node)");
        status = calibrate_write_file(&o, &f, nic_pairs, local_pairs, p, t.n);
        calibrate_print_figures(&o, &f, nic_pairs, local_pairs, p, t.n);
        if (!status)
            printf("%s: wrote %s (use HRELAY_CONFIG=%s)\n", prog, o.output, o.output);
        free(nic);
        free(local);
    }
    PMPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(sbuf);
    free(rbuf);
    free(partner);
    plan_topo_free(&t);
    PMPI_Finalize();
    return status;
}
