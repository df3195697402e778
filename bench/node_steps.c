/* bench/node_steps: what one node step costs beyond its bytes, the figure behind node-direct's
 * synchronised steps (HRELAY_NODE_SYNC) and their groups (HRELAY_NODE_JOIN). Ranks are grouped
 * into nodes by MPI_Comm_split_type (MPI_COMM_TYPE_SHARED), or consecutive groups of --lanes
 * ranks; every node must have the same number L of ranks. A run is --steps node steps: in step
 * s every node a sends B bytes to node (a + 1 + s mod (N - 1)) mod N, B / L from each of its
 * ranks to the rank of the same lane there, so every NIC carries one peer node each way per
 * step, as node-direct's plans do. Five ways to run the steps, side by side in one run:
 *   barrier  a barrier over all ranks between steps (node-direct's synchronised steps);
 *   token    before sending, every rank waits for an empty message from each rank of its
 *            destination node, sent when that rank finished the step before (readiness
 *            between node pairs instead of a barrier);
 *   none     each rank posts its next step as soon as its own operations of the last one
 *            completed (what a group of steps without barriers does);
 *   one-lane as barrier, but all B bytes go from lane 0 to lane 0, one rank message per node
 *            pair (a node step whose bytes are one rank's: does one lane fill the NIC?);
 *   all-lanes as barrier, but each rank sends B / L^2 to every rank of the destination node,
 *            L^2 rank messages per node pair, as node-direct's plans of dense patterns do (how
 *            much do the NIC's many concurrent flows cost?).
 * Prints, per B and way, the median over --reps runs of the whole run's time (slowest rank)
 * divided by its steps, and with --rate the time B takes at that rate and the excess per step.
 * Run it with mpiexec, e.g. on 8 emulated hosts of 4 ranks:
 *   hrelay-emucluster run -n 32 -- bench/node_steps --rate 200M --bytes 250K,2M
 *
 * Usage: node_steps [--bytes LIST] [--steps S] [--reps N] [--lanes L] [--rate BITS] */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    BARRIER,
    TOKEN,
    NONE,
    ONE_LANE,
    ALL_LANES,
    WAYS,
    MAX_SIZES = 16,
    TAG_DATA = 1,
    TAG_TOKEN = 2
};
static const char *const way_names[WAYS] = {"barrier", "token", "none", "one-lane", "all-lanes"};

/* The run's shape: this rank's node and lane, the nodes and ranks per node. */
typedef struct shape {
    int rank, p, n, l, node, lane;
} shape;

/* Orders doubles. */
static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Parses a positive number with an optional K, M or G suffix, powers of base (1024 for bytes,
 * 1000 for rates); 0 if invalid. */
static double parse_scaled(const char *s, double base)
{
    char *end;
    double v = strtod(s, &end);
    double unit = *end == 'K'   ? base
                  : *end == 'M' ? base * base
                  : *end == 'G' ? base * base * base
                                : 1.0;
    if (end == s || v <= 0 || (unit > 1 && end[1]) || (unit == 1 && *end))
        return 0;
    return v * unit;
}

/* Completes n requests (MPI_Waitall with MPI_STATUSES_IGNORE draws a false warning from
 * GCC 12). */
static void wait_all(int n, MPI_Request *r)
{
    for (int k = 0; k < n; k++)
        MPI_Wait(&r[k], MPI_STATUS_IGNORE);
}

/* The node step s sends to (shift 1 + s mod (N - 1)) and receives from. */
static int peer_node(const shape *h, int s, int sign)
{
    int shift = 1 + s % (h->n - 1);
    return ((h->node + sign * shift) % h->n + h->n) % h->n;
}

/* One run of steps node steps of chunk bytes per rank message, the given way; returns its time
 * on this rank. recv holds L chunks. */
static double run(const shape *h, int way, int steps, char *send, char *recv, size_t chunk)
{
    int active = way != ONE_LANE || h->lane == 0;
    int fan = way == ALL_LANES ? h->l : 1; /* rank messages each way per rank and step */
    MPI_Request *q = malloc(2 * (size_t)h->l * sizeof *q),
                *t = malloc(2 * (size_t)h->l * sizeof *t);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int s = 0; s < steps; s++) {
        int to = peer_node(h, s, 1) * h->l, from = peer_node(h, s, -1) * h->l;
        for (int k = 0; k < 2 * fan; k++)
            q[k] = MPI_REQUEST_NULL;
        for (int k = 0; active && k < fan; k++)
            MPI_Irecv(recv + (size_t)k * chunk, (int)chunk, MPI_BYTE,
                      from + (fan == 1 ? h->lane : k), TAG_DATA, MPI_COMM_WORLD, &q[k]);
        if (way == TOKEN && s > 0) { /* the destination node's ranks all finished step s - 1 */
            for (int k = 0; k < h->l; k++)
                MPI_Irecv(NULL, 0, MPI_BYTE, to + k, TAG_TOKEN, MPI_COMM_WORLD, &t[k]);
            wait_all(h->l, t);
        }
        for (int k = 0; active && k < fan; k++) /* lanes in turn, from the one after this */
            MPI_Isend(send, (int)chunk, MPI_BYTE,
                      to + (fan == 1 ? h->lane : (h->lane + 1 + k) % h->l), TAG_DATA,
                      MPI_COMM_WORLD, &q[fan + k]);
        wait_all(2 * fan, q);
        if (s + 1 == steps)
            break;
        if (way == BARRIER || way == ONE_LANE || way == ALL_LANES) {
            MPI_Barrier(MPI_COMM_WORLD);
        } else if (way == TOKEN) { /* tell the node that sends here next step */
            int next = peer_node(h, s + 1, -1) * h->l;
            for (int k = 0; k < h->l; k++)
                MPI_Isend(NULL, 0, MPI_BYTE, next + k, TAG_TOKEN, MPI_COMM_WORLD, &t[k]);
            wait_all(h->l, t);
        }
    }
    double dt = MPI_Wtime() - t0;
    free(q);
    free(t);
    return dt;
}

/* Prints the usage on rank 0. */
static void usage(FILE *f)
{
    fputs("Usage: node_steps [--bytes LIST] [--steps S] [--reps N] [--lanes L] [--rate BITS]\n"
          "\n"
          "What one node step costs beyond its bytes: S node steps in which every node sends\n"
          "B bytes to one other node (B / L from each of its L ranks to the same lane there),\n"
          "run with a barrier between steps, with readiness tokens from the destination node,\n"
          "with neither, with a barrier but all B bytes sent by lane 0 to lane 0\n"
          "(one-lane), and with a barrier but B / L^2 from each rank to every rank\n"
          "there (all-lanes: L^2 flows per node pair, as node-direct's plans of dense\n"
          "patterns have); the median over N runs of the time per step.\n"
          "\n"
          "  --bytes LIST  bytes per node and step, comma-separated, K/M/G suffixes\n"
          "                (default 1K,250K,2M)\n"
          "  --steps S     node steps per run (default 12)\n"
          "  --reps N      runs per size and way, after 2 warm-up runs (default 9)\n"
          "  --lanes L     consecutive groups of L ranks are nodes (default: the shared-memory\n"
          "                nodes MPI finds)\n"
          "  --rate BITS   a NIC's rate in bits/s (K/M/G: powers of 1000), to print the time\n"
          "                the bytes take and the excess per step\n"
          "  -h, --help    this help\n",
          f);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    shape h;
    MPI_Comm_rank(MPI_COMM_WORLD, &h.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &h.p);
    uint64_t sizes[MAX_SIZES] = {1024, 250 * 1024, 2 * 1048576};
    int nsizes = 3, steps = 12, reps = 9, lanes = 0;
    double rate = 0;
    const char *bad = NULL;
    for (int i = 1; i < argc && !bad; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            if (h.rank == 0)
                usage(stdout);
            MPI_Finalize();
            return 0;
        } else if (!v) {
            bad = a;
        } else if (!strcmp(a, "--bytes")) {
            char *list = strdup(v), *save = NULL;
            nsizes = 0;
            for (char *t = strtok_r(list, ",", &save); t && !bad; t = strtok_r(NULL, ",", &save))
                if (nsizes == MAX_SIZES || !(sizes[nsizes++] = (uint64_t)parse_scaled(t, 1024)))
                    bad = a;
            free(list);
            bad = nsizes ? bad : a;
            i++;
        } else if (!strcmp(a, "--steps")) {
            bad = (steps = atoi(v)) >= 1 ? NULL : a;
            i++;
        } else if (!strcmp(a, "--reps")) {
            bad = (reps = atoi(v)) >= 1 ? NULL : a;
            i++;
        } else if (!strcmp(a, "--lanes")) {
            bad = (lanes = atoi(v)) >= 1 ? NULL : a;
            i++;
        } else if (!strcmp(a, "--rate")) {
            bad = (rate = parse_scaled(v, 1000)) > 0 ? NULL : a;
            i++;
        } else {
            bad = a;
        }
    }
    if (bad) {
        if (h.rank == 0) {
            fprintf(stderr, "node_steps: invalid or incomplete option %s\n", bad);
            usage(stderr);
        }
        MPI_Finalize();
        return 2;
    }
    /* nodes: consecutive groups of --lanes ranks, or the shared-memory nodes */
    MPI_Comm shm;
    if (lanes)
        MPI_Comm_split(MPI_COMM_WORLD, h.rank / lanes, h.rank, &shm);
    else
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, h.rank, MPI_INFO_NULL, &shm);
    MPI_Comm_size(shm, &h.l);
    MPI_Comm_rank(shm, &h.lane);
    int lmin, lmax, consecutive = h.rank == (h.rank / h.l) * h.l + h.lane, all;
    MPI_Allreduce(&h.l, &lmin, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&h.l, &lmax, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&consecutive, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    h.n = h.p / h.l;
    h.node = h.rank / h.l;
    if (lmin != lmax || !all || h.n < 2) {
        if (h.rank == 0)
            fprintf(stderr,
                    "node_steps: needs at least 2 nodes of equal size holding "
                    "consecutive ranks (%d to %d ranks per node; use --lanes)\n",
                    lmin, lmax);
        MPI_Finalize();
        return 2;
    }
    uint64_t most = 0;
    for (int k = 0; k < nsizes; k++)
        most = sizes[k] > most ? sizes[k] : most;
    size_t cap = (size_t)most + 1; /* one-lane: a node step's bytes on one rank */
    char *send = malloc(cap), *recv = malloc(cap);
    double *times = malloc((size_t)reps * sizeof *times);
    if (!send || !recv || !times) {
        fprintf(stderr, "node_steps: out of memory for %zu bytes per rank\n", cap);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(send, 1, cap);
    if (h.rank == 0)
        printf("# %d ranks, %d nodes of %d, %d node steps per run, median of %d runs\n"
               "%-12s %-8s %12s %12s %12s\n",
               h.p, h.n, h.l, steps, reps, "bytes/step", "way", "ms/step", "bytes ms", "excess ms");
    for (int k = 0; k < nsizes; k++)
        for (int way = 0; way < WAYS; way++) {
            for (int r = -2; r < reps; r++) {
                uint64_t chunk = way == ONE_LANE    ? sizes[k]
                                 : way == ALL_LANES ? sizes[k] / (uint64_t)h.l / (uint64_t)h.l
                                                    : sizes[k] / (uint64_t)h.l;
                double dt = run(&h, way, steps, send, recv, (size_t)chunk), slowest;
                MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                if (r >= 0)
                    times[r] = slowest / steps;
            }
            qsort(times, (size_t)reps, sizeof *times, by_value);
            double med = times[reps / 2] * 1e3, bytes_ms = rate ? sizes[k] * 8.0 / rate * 1e3 : 0;
            if (h.rank == 0) {
                if (rate)
                    printf("%-12llu %-8s %12.2f %12.2f %12.2f\n", (unsigned long long)sizes[k],
                           way_names[way], med, bytes_ms, med - bytes_ms);
                else
                    printf("%-12llu %-8s %12.2f %12s %12s\n", (unsigned long long)sizes[k],
                           way_names[way], med, "-", "-");
            }
        }
    free(times);
    free(send);
    free(recv);
    MPI_Comm_free(&shm);
    MPI_Finalize();
    return 0;
}
