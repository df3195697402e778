/* samplesort: a distributed sample sort of Zipf-skewed 64-bit keys, the demo of hrelay.
 *
 * Every iteration each rank draws its keys, picks regular samples, and all ranks agree on P - 1
 * splitters from the gathered samples. Keys are partitioned by splitter, the bucket sizes are
 * exchanged with MPI_Alltoall and the keys with MPI_Alltoallv, and each rank sorts what it
 * received. The keys follow a Zipf law, so a few very frequent keys make some buckets far
 * larger than others: the MPI_Alltoallv counts are uneven, the case hrelay schedules.
 *
 * The result is verified every iteration: each rank's keys are sorted and lie between its
 * splitters, and the global key count and checksums are unchanged by the exchange. Rank 0
 * prints the exchange time (MPI_Alltoall + MPI_Alltoallv, the maximum over ranks, summed over
 * iterations) and "verified"; the exit status is non-zero if any check failed. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Command-line settings. */
typedef struct sort_opts {
    long keys;       /* keys per rank */
    int iterations;
    uint64_t seed;
    double exponent; /* Zipf exponent */
    int quiet;
} sort_opts;

/* Number of distinct Zipf ranks the key generator draws from. */
#define ZIPF_VALUES 65536

/* splitmix64: the next value of a deterministic 64-bit generator with state *s. */
static uint64_t next_random(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A bijective mix of 64 bits: spreads Zipf ranks over the whole key range. */
static uint64_t mix(uint64_t x)
{
    uint64_t s = x;
    return next_random(&s);
}

/* Fills cdf[0 .. ZIPF_VALUES) with the cumulative Zipf(exponent) distribution. */
static void zipf_cdf(double *cdf, double exponent)
{
    double sum = 0;
    for (int k = 0; k < ZIPF_VALUES; k++)
        cdf[k] = sum += 1.0 / pow((double)(k + 1), exponent);
    for (int k = 0; k < ZIPF_VALUES; k++)
        cdf[k] /= sum;
}

/* Draws a Zipf rank in [0, ZIPF_VALUES) by inverting cdf. */
static int zipf_draw(const double *cdf, uint64_t *state)
{
    double u = (double)(next_random(state) >> 11) * 0x1p-53;
    int lo = 0, hi = ZIPF_VALUES - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (cdf[mid] < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Draws n keys for rank `rank` in iteration `it`. The most frequent keys are shared by all
 * ranks; some mid-frequency keys depend on the rank, so senders differ as well as receivers. */
static void make_keys(uint64_t *keys, long n, const double *cdf, uint64_t seed, int rank, int it)
{
    uint64_t state = seed ^ ((uint64_t)rank << 40) ^ ((uint64_t)it << 20);
    for (long i = 0; i < n; i++) {
        uint64_t z = (uint64_t)zipf_draw(cdf, &state);
        if (z >= 4 && z < 64)
            z += (uint64_t)(rank % 4) << 32;
        keys[i] = mix(z);
    }
}

/* qsort order of uint64_t. */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The bucket of key: the number of splitters <= key (so in [0, p)). */
static int bucket_of(uint64_t key, const uint64_t *split, int p)
{
    int lo = 0, hi = p - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (split[mid] <= key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Order-independent checksums of keys[0 .. n): their sum and the xor of their mixes. */
static void checksum(const uint64_t *keys, long n, uint64_t sums[2])
{
    sums[0] = sums[1] = 0;
    for (long i = 0; i < n; i++) {
        sums[0] += keys[i];
        sums[1] ^= mix(keys[i] ^ 0x5bd1e995u);
    }
}

/* Chooses p - 1 splitters shared by all ranks from regular samples of the sorted local keys. */
static void choose_splitters(uint64_t *sorted, long n, int p, uint64_t *split, MPI_Comm comm)
{
    int s = 4 * p; /* samples per rank */
    uint64_t *mine = malloc(sizeof *mine * (size_t)s);
    uint64_t *all = malloc(sizeof *all * (size_t)s * (size_t)p);
    if (!mine || !all)
        MPI_Abort(comm, 2);
    for (int k = 0; k < s; k++)
        mine[k] = n ? sorted[(long)((double)n * (k + 0.5) / s)] : UINT64_MAX;
    MPI_Allgather(mine, s, MPI_UINT64_T, all, s, MPI_UINT64_T, comm);
    qsort(all, (size_t)s * (size_t)p, sizeof *all, cmp_u64);
    for (int k = 1; k < p; k++)
        split[k - 1] = all[(size_t)k * (size_t)s];
    split[p - 1] = UINT64_MAX; /* sentinel for the search */
    free(mine);
    free(all);
}

/* Per-iteration buffers. */
typedef struct sort_bufs {
    uint64_t *keys, *recvbuf;
    long recvcap;
    int *scounts, *sdispls, *rcounts, *rdispls, *fill;
    uint64_t *split;
} sort_bufs;

/* Runs one iteration. Adds the exchange time to *exchange_s and the largest/average receive
 * sizes to the imbalance figures. Returns the number of failed checks on this rank. */
static int iterate(const sort_opts *o, const double *cdf, sort_bufs *b, int it, int rank, int p,
                   double *exchange_s, long *max_recv)
{
    int errors = 0;
    make_keys(b->keys, o->keys, cdf, o->seed, rank, it);
    uint64_t before[2], after[2], gbefore[2], gafter[2];
    checksum(b->keys, o->keys, before);

    qsort(b->keys, (size_t)o->keys, sizeof *b->keys, cmp_u64);
    choose_splitters(b->keys, o->keys, p, b->split, MPI_COMM_WORLD);

    /* The keys are sorted, so each bucket is a contiguous run: the send buffer is the keys. */
    memset(b->scounts, 0, sizeof *b->scounts * (size_t)p);
    for (long i = 0; i < o->keys; i++)
        b->scounts[bucket_of(b->keys[i], b->split, p)]++;
    for (int r = 0, off = 0; r < p; r++) {
        b->sdispls[r] = off;
        off += b->scounts[r];
    }

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Alltoall(b->scounts, 1, MPI_INT, b->rcounts, 1, MPI_INT, MPI_COMM_WORLD);
    long total = 0;
    for (int r = 0; r < p; r++) {
        b->rdispls[r] = (int)total;
        total += b->rcounts[r];
    }
    if (total > b->recvcap) {
        free(b->recvbuf);
        b->recvcap = total + total / 4;
        b->recvbuf = malloc(sizeof *b->recvbuf * (size_t)b->recvcap);
        if (!b->recvbuf)
            MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Alltoallv(b->keys, b->scounts, b->sdispls, MPI_UINT64_T, b->recvbuf, b->rcounts,
                  b->rdispls, MPI_UINT64_T, MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0, tmax;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    *exchange_s += tmax;
    if (total > *max_recv)
        *max_recv = total;

    /* Verify: sorted, inside this rank's splitter range, same global count and checksums. */
    qsort(b->recvbuf, (size_t)total, sizeof *b->recvbuf, cmp_u64);
    for (long i = 0; i < total; i++) {
        if (bucket_of(b->recvbuf[i], b->split, p) != rank) {
            errors++;
            break;
        }
    }
    checksum(b->recvbuf, total, after);
    MPI_Allreduce(before, gbefore, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(after, gafter, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&before[1], &gbefore[1], 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
    MPI_Allreduce(&after[1], &gafter[1], 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
    long n = o->keys, gn, gtotal;
    MPI_Allreduce(&n, &gn, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&total, &gtotal, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (gn != gtotal || gbefore[0] != gafter[0] || gbefore[1] != gafter[1])
        errors++;
    return errors;
}

/* Prints the usage text to out (rank 0 only). */
static void usage(FILE *out)
{
    fprintf(out, "Usage: samplesort [-n KEYS_PER_RANK] [-i ITERATIONS] [-s SEED] [-z EXPONENT] "
                 "[-q]\n"
                 "Sorts Zipf-skewed 64-bit keys across all ranks (default 262144 keys = 2 MiB "
                 "per rank,\n8 iterations, seed 1, exponent 1.1) and verifies the result.\n");
}

/* Fills o from argv. Returns 0, 1 for --help, or -1 for bad usage. */
static int parse_args(int argc, char **argv, sort_opts *o)
{
    *o = (sort_opts){.keys = 262144, .iterations = 8, .seed = 1, .exponent = 1.1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help"))
            return 1;
        if (!strcmp(a, "-q")) {
            o->quiet = 1;
            continue;
        }
        if (i + 1 >= argc)
            return -1;
        const char *v = argv[++i];
        char *end;
        if (!strcmp(a, "-n"))
            o->keys = strtol(v, &end, 10);
        else if (!strcmp(a, "-i"))
            o->iterations = (int)strtol(v, &end, 10);
        else if (!strcmp(a, "-s"))
            o->seed = strtoull(v, &end, 10);
        else if (!strcmp(a, "-z"))
            o->exponent = strtod(v, &end);
        else
            return -1;
        if (*end || o->keys < 0 || o->keys > (1L << 28) || o->iterations < 1 || o->exponent <= 0)
            return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    sort_opts o;
    int pa = parse_args(argc, argv, &o);
    if (pa != 0) {
        if (rank == 0)
            usage(pa > 0 ? stdout : stderr);
        MPI_Finalize();
        return pa > 0 ? 0 : 2;
    }

    double *cdf = malloc(sizeof *cdf * ZIPF_VALUES);
    sort_bufs b = {0};
    b.keys = malloc(sizeof *b.keys * (size_t)(o.keys ? o.keys : 1));
    b.scounts = malloc(sizeof(int) * (size_t)p);
    b.sdispls = malloc(sizeof(int) * (size_t)p);
    b.rcounts = malloc(sizeof(int) * (size_t)p);
    b.rdispls = malloc(sizeof(int) * (size_t)p);
    b.split = malloc(sizeof *b.split * (size_t)p);
    if (!cdf || !b.keys || !b.scounts || !b.sdispls || !b.rcounts || !b.rdispls || !b.split)
        MPI_Abort(MPI_COMM_WORLD, 2);
    zipf_cdf(cdf, o.exponent);

    double exchange_s = 0, t0 = MPI_Wtime();
    long max_recv = 0;
    int errors = 0;
    for (int it = 0; it < o.iterations; it++)
        errors += iterate(&o, cdf, &b, it, rank, p, &exchange_s, &max_recv);
    double total_s = MPI_Wtime() - t0;

    int gerrors;
    long gmax_recv;
    MPI_Allreduce(&errors, &gerrors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce(&max_recv, &gmax_recv, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0 && !o.quiet) {
        double mib = (double)o.keys * 8 / (1 << 20);
        printf("samplesort: %d ranks, %ld keys (%.1f MiB) per rank, %d iterations, Zipf %.2f\n",
               p, o.keys, mib, o.iterations, o.exponent);
        printf("samplesort: largest receive %.2fx the average\n",
               o.keys ? (double)gmax_recv / (double)o.keys : 0.0);
    }
    if (rank == 0) {
        printf("samplesort: exchange time %.6f s (MPI_Alltoall + MPI_Alltoallv, %d iterations)\n",
               exchange_s, o.iterations);
        printf("samplesort: total time %.6f s\n", total_s);
        printf("samplesort: %s\n", gerrors ? "VERIFICATION FAILED" : "verified");
    }
    free(cdf);
    free(b.keys);
    free(b.recvbuf);
    free(b.scounts);
    free(b.sdispls);
    free(b.rcounts);
    free(b.rdispls);
    free(b.split);
    MPI_Finalize();
    return gerrors ? 1 : 0;
}
