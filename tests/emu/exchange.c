/* A small MPI program for the emulated cluster (hrelay-emucluster): correctness of a few
 * exchanges, the link rate as MPI sees it, and where the ranks are.
 *
 * Usage: exchange [--iters K] [--bytes B] [--seed S]
 *        exchange --bandwidth BYTES [--distance D] [--reps R] [--rate BITS_PER_S]
 *                 [--duplex full|half]
 *        exchange --alltoall BYTES [--reps R] [--rate BITS_PER_S] [--duplex full|half]
 *        exchange --idle SECONDS
 *        exchange --topology
 *
 * Default mode: K iterations (default 3) of an MPI_Alltoallv with uneven seeded counts (up to B
 * bytes per pair, default 65536; some pairs send nothing), an MPI_Sendrecv with the rank K
 * places further and an MPI_Barrier. Every received byte is checked against its expected value;
 * rank 0 prints "exchange: P ranks, K iterations, B bytes max, checksum <16 hex digits>" (a hash
 * of every rank's receive buffers in rank order, so a run under hrelay must print the same line
 * as a native one) and exits 0, or prints "exchange: FAIL ..." and exits 1.
 *
 * Nodes are what MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) says (an emulated host each).
 *
 * --bandwidth: rank i pairs with rank i + D when i / D is even, else with i - D (D: --distance,
 * default P/2; P must be a multiple of 2D). One-way: the lower rank of every pair sends BYTES
 * to the upper one (MPI_Send / MPI_Recv); two-way: both send BYTES to each other at once
 * (MPI_Sendrecv). Each is timed R times (default 5) after a barrier, from the first rank's start
 * to the last rank's end on the machine's monotonic clock (the ranks of an emulated cluster share
 * it); rank 0 prints the median per test:
 *   one-way bytes=BYTES seconds=T mbit_per_s=M bound_s=L ratio=T/L
 *   two-way bytes=BYTES seconds=T mbit_per_s=M bound_s=L ratio=T/L
 * mbit_per_s is per direction of one flow; bound_s (with --rate) is the time the busiest node's
 * NIC needs at the link rate: the bytes its ranks send to and receive from other nodes, the
 * larger of the two (full duplex) or their sum (half duplex), times 8 over the rate. With one
 * rank per node that is BYTES*8/rate per direction, twice that for two-way in half duplex;
 * pairs within a node give 0 (and ratio 0): shared memory carries them.
 *
 * --alltoall: R timed MPI_Alltoall calls (after one untimed) of BYTES per pair, each timed as
 * above; rank 0 prints
 *   alltoall bytes=BYTES ranks=P nodes=N seconds=T bound_s=L ratio=T/L cpu_s=C cores=U
 * with T the median call, L the busiest NIC's time as above, C the CPU seconds (user + system)
 * of all ranks over the R timed calls and U = C over their wall time (busy cores).
 *
 * --idle: rank 0 sleeps SECONDS while every other rank waits for it in MPI_Barrier, so the run's
 * CPU use shows what waiting ranks cost (busy polling or blocking); rank 0 prints
 * "idle: P ranks waited S s".
 *
 * --topology: rank 0 prints "topology: ranks=P nodes=N node_of_rank=n0,n1,..." (nodes numbered
 * in the order of their lowest rank). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

enum { TAG = 7 };

typedef struct options {
    int iters;
    long bytes;
    uint64_t seed;
    long bandwidth; /* > 0: the --bandwidth mode */
    int distance;   /* --bandwidth's pair distance; 0: P/2 */
    long alltoall;  /* > 0: the --alltoall mode */
    int topology;   /* the --topology mode */
    int reps;
    double rate_bps;
    int half;
    double idle; /* > 0: the --idle mode */
} options;

/* Prints the usage on stderr (rank 0) and ends the program with status 2. */
static void usage_exit(int rank, const char *why)
{
    if (rank == 0)
        fprintf(stderr,
                "exchange: %s\nusage: exchange [--iters K] [--bytes B] [--seed S]\n"
                "       exchange --bandwidth BYTES [--distance D] [--reps R] "
                "[--rate BITS_PER_S] [--duplex full|half]\n"
                "       exchange --alltoall BYTES [--reps R] [--rate BITS_PER_S] "
                "[--duplex full|half]\n"
                "       exchange --idle SECONDS\n"
                "       exchange --topology\n",
                why);
    MPI_Finalize();
    exit(2);
}

/* Parses argv into o (defaults first); bad arguments end the program. */
static void parse(int argc, char **argv, int rank, options *o)
{
    *o = (options){.iters = 3, .bytes = 65536, .seed = 1, .reps = 5};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--topology")) {
            o->topology = 1;
            continue;
        }
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            usage_exit(rank, "missing value");
        char *end;
        if (!strcmp(a, "--iters"))
            o->iters = (int)strtol(v, &end, 10);
        else if (!strcmp(a, "--bytes"))
            o->bytes = strtol(v, &end, 10);
        else if (!strcmp(a, "--seed"))
            o->seed = strtoull(v, &end, 10);
        else if (!strcmp(a, "--bandwidth"))
            o->bandwidth = strtol(v, &end, 10);
        else if (!strcmp(a, "--distance"))
            o->distance = (int)strtol(v, &end, 10);
        else if (!strcmp(a, "--alltoall"))
            o->alltoall = strtol(v, &end, 10);
        else if (!strcmp(a, "--reps"))
            o->reps = (int)strtol(v, &end, 10);
        else if (!strcmp(a, "--idle"))
            o->idle = strtod(v, &end);
        else if (!strcmp(a, "--rate"))
            o->rate_bps = strtod(v, &end);
        else if (!strcmp(a, "--duplex")) {
            o->half = !strcmp(v, "half");
            end = (char *)v + (o->half || !strcmp(v, "full") ? strlen(v) : 0);
        } else
            usage_exit(rank, "unknown option");
        if (*end || end == v)
            usage_exit(rank, "invalid value");
        i++;
    }
    if (o->iters < 1 || o->bytes < 1 || o->reps < 1 || o->bandwidth < 0 || o->rate_bps < 0 ||
        o->idle < 0 || o->distance < 0 || o->alltoall < 0 || o->alltoall > INT32_MAX)
        usage_exit(rank, "values must be positive");
}

/* A seeded 64-bit mix of its inputs (splitmix64 finaliser). */
static uint64_t mix(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    uint64_t x = a * 0x9E3779B97F4A7C15ull ^ b * 0xC2B2AE3D27D4EB4Full ^ c * 0x165667B19E3779F9ull ^
                 d * 0x27D4EB2F165667C5ull;
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* Bytes rank src sends to rank dst in iteration it: 0 for about one pair in five. */
static int count_of(const options *o, int it, int src, int dst)
{
    uint64_t h = mix(o->seed, (uint64_t)it, (uint64_t)src, (uint64_t)dst);
    return h % 5 == 0 ? 0 : (int)(h % (uint64_t)o->bytes) + 1;
}

/* The value of byte k of the message from src to dst in iteration it (phase: 0 alltoallv,
 * 1 sendrecv). */
static unsigned char byte_of(int it, int phase, int src, int dst, long k)
{
    return (unsigned char)(k * 131 + src * 31 + dst * 17 + it * 7 + phase * 101);
}

/* FNV-1a over n bytes, continuing from h. */
static uint64_t fnv(uint64_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001B3ull;
    return h;
}

/* The correctness exchange; returns the number of wrong bytes on this rank and sets *hash. */
static long run_exchange(const options *o, int rank, int size, uint64_t *hash)
{
    int *sc = malloc(sizeof(int) * 4 * (size_t)size);
    int *sd = sc + size, *rc = sc + 2 * size, *rd = sc + 3 * size;
    long bad = 0;
    *hash = 0xCBF29CE484222325ull;
    for (int it = 0; it < o->iters; it++) {
        long stot = 0, rtot = 0;
        for (int p = 0; p < size; p++) {
            sc[p] = count_of(o, it, rank, p);
            rc[p] = count_of(o, it, p, rank);
            sd[p] = (int)stot;
            rd[p] = (int)rtot;
            stot += sc[p];
            rtot += rc[p];
        }
        unsigned char *sbuf = malloc((size_t)stot + 1), *rbuf = malloc((size_t)rtot + 1);
        for (int p = 0; p < size; p++)
            for (long k = 0; k < sc[p]; k++)
                sbuf[sd[p] + k] = byte_of(it, 0, rank, p, k);
        memset(rbuf, 0, (size_t)rtot + 1);
        MPI_Alltoallv(sbuf, sc, sd, MPI_BYTE, rbuf, rc, rd, MPI_BYTE, MPI_COMM_WORLD);
        for (int p = 0; p < size; p++)
            for (long k = 0; k < rc[p]; k++)
                bad += rbuf[rd[p] + k] != byte_of(it, 0, p, rank, k);
        *hash = fnv(*hash, rbuf, (size_t)rtot);
        free(sbuf);
        free(rbuf);

        int to = (rank + it + 1) % size, from = (rank - (it + 1) % size + size) % size;
        long n = o->bytes;
        unsigned char *out = malloc((size_t)n), *in = calloc((size_t)n, 1);
        for (long k = 0; k < n; k++)
            out[k] = byte_of(it, 1, rank, to, k);
        MPI_Sendrecv(out, (int)n, MPI_BYTE, to, TAG, in, (int)n, MPI_BYTE, from, TAG,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (long k = 0; k < n; k++)
            bad += in[k] != byte_of(it, 1, from, rank, k);
        *hash = fnv(*hash, in, (size_t)n);
        free(out);
        free(in);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(sc);
    return bad;
}

/* Seconds on CLOCK_MONOTONIC: one clock for every rank, since the emulated hosts share the
 * machine (MPI_Wtime need not be global). */
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Compares doubles for qsort. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Where the ranks are: the node communicator of MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) and
 * every rank's node, numbered in the order of the nodes' lowest ranks. */
typedef struct topology {
    MPI_Comm node;
    int *node_of; /* size entries */
    int nodes;
} topology;

/* Fills t (collective); topology_free releases it. */
static void topology_get(int rank, int size, topology *t)
{
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &t->node);
    int lowest, *leader = malloc(sizeof(int) * (size_t)size);
    MPI_Allreduce(&rank, &lowest, 1, MPI_INT, MPI_MIN, t->node);
    MPI_Allgather(&lowest, 1, MPI_INT, leader, 1, MPI_INT, MPI_COMM_WORLD);
    t->node_of = malloc(sizeof(int) * (size_t)size);
    t->nodes = 0;
    for (int r = 0; r < size; r++)
        t->node_of[r] = leader[r] == r ? t->nodes++ : t->node_of[leader[r]];
    free(leader);
}

/* Releases what topology_get took. */
static void topology_free(topology *t)
{
    MPI_Comm_free(&t->node);
    free(t->node_of);
}

/* The time the busiest node's NIC needs for what each rank sends to (sent) and receives from
 * (received) ranks of other nodes: per node the larger of the two sums (full duplex) or their
 * sum (half duplex), times 8 over the rate; 0 without --rate. Collective. */
static double nic_bound(const options *o, const topology *t, double sent, double received)
{
    double mine[2] = {sent, received}, node[2], worst;
    MPI_Allreduce(mine, node, 2, MPI_DOUBLE, MPI_SUM, t->node);
    double busy = o->half ? node[0] + node[1] : node[0] > node[1] ? node[0] : node[1];
    MPI_Allreduce(&busy, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return o->rate_bps > 0 ? worst * 8 / o->rate_bps : 0;
}

/* From the first rank's start to the last rank's end (pass 0 as end to take no part in it).
 * Collective. */
static double span(double start, double end)
{
    double first_start, last_end;
    MPI_Allreduce(&start, &first_start, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&end, &last_end, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return last_end - first_start;
}

/* The median of n times (sorts them). */
static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return t[n / 2];
}

/* Times one pairwise test R times and returns the median of the slowest rank's times. */
static double time_pairs(const options *o, int rank, int peer, int two_way, unsigned char *out,
                         unsigned char *in)
{
    int lower = rank < peer, n = (int)o->bandwidth;
    double *t = malloc(sizeof(double) * (size_t)o->reps);
    for (int r = 0; r < o->reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double start = now();
        if (two_way)
            MPI_Sendrecv(out, n, MPI_BYTE, peer, TAG, in, n, MPI_BYTE, peer, TAG, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
        else if (lower)
            MPI_Send(out, n, MPI_BYTE, peer, TAG, MPI_COMM_WORLD);
        else
            MPI_Recv(in, n, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        /* From the first rank leaving the barrier to the last rank done (one-way: the last
         * receiver); ranks leave a barrier at slightly different times, and timing from each
         * rank's own start would let a sender's head start pass for bandwidth. */
        t[r] = span(start, lower && !two_way ? 0 : now());
    }
    double m = median(t, o->reps);
    free(t);
    return m;
}

/* The --bandwidth mode; prints on rank 0. */
static void run_bandwidth(const options *o, int rank, int size, const topology *topo)
{
    int d = o->distance ? o->distance : size / 2;
    if (d < 1 || size % (2 * d)) {
        if (rank == 0)
            fprintf(stderr, "exchange: --bandwidth needs a number of ranks that is a multiple "
                            "of twice the distance (%d)\n",
                    d);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int peer = rank / d % 2 ? rank - d : rank + d;
    double bytes = topo->node_of[rank] != topo->node_of[peer] ? (double)o->bandwidth : 0;
    unsigned char *out = malloc((size_t)o->bandwidth), *in = malloc((size_t)o->bandwidth);
    memset(out, 0x5A, (size_t)o->bandwidth);
    for (int two_way = 0; two_way <= 1; two_way++) {
        double s = time_pairs(o, rank, peer, two_way, out, in);
        double bound = two_way ? nic_bound(o, topo, bytes, bytes)
                               : nic_bound(o, topo, rank < peer ? bytes : 0,
                                           rank < peer ? 0 : bytes);
        if (rank == 0)
            printf("%s bytes=%ld seconds=%.6f mbit_per_s=%.1f bound_s=%.6f ratio=%.3f\n",
                   two_way ? "two-way" : "one-way", o->bandwidth, s,
                   (double)o->bandwidth * 8 / s / 1e6, bound, bound > 0 ? s / bound : 0);
    }
    free(out);
    free(in);
}

/* CPU seconds (user + system) of this process so far. */
static double cpu_seconds(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec * 1e-6 +
           (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec * 1e-6;
}

/* The --alltoall mode; prints on rank 0. */
static void run_alltoall(const options *o, int rank, int size, const topology *topo)
{
    int n = (int)o->alltoall;
    unsigned char *out = malloc((size_t)n * (size_t)size), *in = malloc((size_t)n * (size_t)size);
    memset(out, 0x5A, (size_t)n * (size_t)size);
    double *t = malloc(sizeof(double) * (size_t)o->reps);
    MPI_Alltoall(out, n, MPI_BYTE, in, n, MPI_BYTE, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    double cpu0 = cpu_seconds(), wall0 = now();
    for (int r = 0; r < o->reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double start = now();
        MPI_Alltoall(out, n, MPI_BYTE, in, n, MPI_BYTE, MPI_COMM_WORLD);
        t[r] = span(start, now());
    }
    double cpu = cpu_seconds() - cpu0, wall = now() - wall0, all_cpu, longest;
    MPI_Reduce(&cpu, &all_cpu, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&wall, &longest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    int local;
    MPI_Comm_size(topo->node, &local);
    double off_node = (double)(size - local) * n;
    double bound = nic_bound(o, topo, off_node, off_node), s = median(t, o->reps);
    if (rank == 0)
        printf("alltoall bytes=%d ranks=%d nodes=%d seconds=%.6f bound_s=%.6f ratio=%.3f "
               "cpu_s=%.2f cores=%.2f\n",
               n, size, topo->nodes, s, bound, bound > 0 ? s / bound : 0, all_cpu,
               longest > 0 ? all_cpu / longest : 0);
    free(t);
    free(out);
    free(in);
}

/* The --idle mode: rank 0 sleeps while the others wait in MPI_Barrier. */
static void run_idle(const options *o, int rank, int size)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        struct timespec t = {.tv_sec = (time_t)o->idle,
                             .tv_nsec = (long)((o->idle - (double)(time_t)o->idle) * 1e9)};
        nanosleep(&t, NULL);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("idle: %d ranks waited %.3f s\n", size, o->idle);
}

/* The --topology mode; prints on rank 0. */
static void run_topology(int rank, int size, const topology *topo)
{
    if (rank != 0)
        return;
    printf("topology: ranks=%d nodes=%d node_of_rank=", size, topo->nodes);
    for (int r = 0; r < size; r++)
        printf("%s%d", r ? "," : "", topo->node_of[r]);
    printf("\n");
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    options o;
    parse(argc, argv, rank, &o);
    if (o.bandwidth > 0 || o.alltoall > 0 || o.idle > 0 || o.topology) {
        topology topo;
        topology_get(rank, size, &topo);
        if (o.topology)
            run_topology(rank, size, &topo);
        else if (o.bandwidth > 0)
            run_bandwidth(&o, rank, size, &topo);
        else if (o.alltoall > 0)
            run_alltoall(&o, rank, size, &topo);
        else
            run_idle(&o, rank, size);
        topology_free(&topo);
        MPI_Finalize();
        return 0;
    }
    uint64_t hash;
    long bad = run_exchange(&o, rank, size, &hash), total_bad = 0;
    uint64_t *hashes = rank == 0 ? malloc(sizeof(uint64_t) * (size_t)size) : NULL;
    MPI_Reduce(&bad, &total_bad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Gather(&hash, 1, MPI_UINT64_T, hashes, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    int status = 0;
    if (rank == 0) {
        uint64_t all = fnv(0xCBF29CE484222325ull, (const unsigned char *)hashes,
                           sizeof(uint64_t) * (size_t)size);
        if (total_bad) {
            printf("exchange: FAIL: %ld wrong bytes\n", total_bad);
            status = 1;
        } else
            printf("exchange: %d ranks, %d iterations, %ld bytes max, checksum %016llx\n", size,
                   o.iters, o.bytes, (unsigned long long)all);
        free(hashes);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
