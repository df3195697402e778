/* alltoallv_bench: times MPI_Alltoallv (and MPI_Alltoall) side by side -- PMPI, hrelay's
 * native pass-through, every hrelay schedule family and auto -- on fixed and drifting exchange
 * patterns of several sizes, against the network's lower bounds (per rank and per node), per
 * call and over the whole run. Runs under hrelay (LD_PRELOAD, e.g. hrelay-run) and steers it with
 * the tool API of hrelay.h, looked up with dlsym. See --help and docs/performance/README.md.
 * Exit status: 0; 1 if a result differed from PMPI_Alltoallv's or the run failed; 2 for a
 * usage error. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"

/* The command line as one string (program name without its directory). */
static void command_line(int argc, char **argv, char *out, size_t cap)
{
    const char *base = strrchr(argv[0], '/');
    snprintf(out, cap, "%s", base ? base + 1 : argv[0]);
    for (int k = 1; k < argc; k++) {
        size_t len = strlen(out);
        snprintf(out + len, cap - len, " %s", argv[k]);
    }
}

/* The facts of the run for the output headers. */
static void describe_run(bench_meta *meta, const bench_opts *o, const bench_hrelay *h, int have,
                         int p, const char *command)
{
    memset(meta, 0, sizeof *meta);
    meta->command = command;
    meta->p = p;
    meta->hrelay = have;
    meta->hrelay_version = have ? h->version() : NULL;
    static char version[MPI_MAX_LIBRARY_VERSION_STRING]; /* MPICH's: several KiB */
    int len = 0;
    MPI_Get_library_version(version, &len);
    size_t first_line = strcspn(version, "\n");
    if (first_line >= sizeof meta->mpi_library)
        first_line = sizeof meta->mpi_library - 1;
    memcpy(meta->mpi_library, version, first_line);
    meta->mpi_library[first_line] = 0;
    meta->ucx_tls = getenv("UCX_TLS");
    meta->half_duplex = o->half_duplex;
    meta->seed = o->seed;
    meta->reps = o->reps;
    meta->runs = o->runs;
    meta->warmup = o->warmup;
    meta->check_every = o->check_every;
    meta->blocks = o->blocks;
    meta->online_cpus = sysconf(_SC_NPROCESSORS_ONLN);
}

/* The link rate: --rate, or measured at the largest size (collective). */
static double link_rate(const bench_opts *o, bench_meta *meta)
{
    if (o->rate_bps > 0) {
        snprintf(meta->rate_how, sizeof meta->rate_how, "given: --rate");
        return o->rate_bps;
    }
    uint64_t largest = 0;
    for (int k = 0; k < o->nsizes; k++)
        if (o->sizes[k] > largest)
            largest = o->sizes[k];
    return bench_measure_rate(largest, o->half_duplex, MPI_COMM_WORLD, meta->rate_how,
                              sizeof meta->rate_how);
}

/* The sizes pattern a runs at: each of --sizes, or --bfs-max alone for a sweep. */
static int pattern_sizes(const bench_opts *o, int a, const uint64_t **sizes)
{
    if (bench_patterns[o->patterns[a]].sweep) {
        *sizes = &o->bfs_max;
        return 1;
    }
    *sizes = o->sizes;
    return o->nsizes;
}

/* Runs every pattern and size. Returns the number of mismatches, or -1 on failure. */
static int run_all(bench_ctx *ctx, bench_out *out)
{
    const bench_opts *o = ctx->opts;
    int mismatches = 0, rounds = 2 + o->warmup + o->reps;
    bench_row rows[BENCH_MAX_CANDIDATES];
    char why[256];
    for (int a = 0; a < o->npatterns; a++) {
        const uint64_t *sizes;
        int nsizes = pattern_sizes(o, a, &sizes);
        for (int s = 0; s < nsizes; s++) {
            const bench_pattern *pat = &bench_patterns[o->patterns[a]];
            bench_sequence seq;
            int rc = bench_sequence_build(ctx, o->patterns[a], sizes[s], rounds, &seq, why,
                                          sizeof why),
                built = rc == 0;
            if (rc == 1 && ctx->rank == 0)
                bench_out_skipped(out, pat->name, sizes[s], why);
            if (rc == 0 && !o->matrices &&
                (rc = bench_measure(ctx, pat->name, sizes[s], &seq, rows)) >= 0) {
                mismatches += rc;
                if (ctx->rank == 0)
                    bench_out_rows(out, rows, o->ncandidates, pat->summary, &seq);
                rc = 0;
            }
            if (built)
                bench_sequence_free(&seq);
            if (rc < 0) {
                if (ctx->rank == 0)
                    fprintf(stderr, "alltoallv_bench: %s, %llu bytes per rank: out of memory, "
                                    "a displacement over INT_MAX elements or --matrices not written\n",
                            pat->name, (unsigned long long)sizes[s]);
                return -1;
            }
        }
    }
    return mismatches;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    bench_opts o;
    int status = bench_parse_args(argc, argv, &o, rank == 0);
    if (status < 0 && p < 2) {
        if (rank == 0)
            fprintf(stderr, "alltoallv_bench: needs at least 2 ranks\n");
        status = 2;
    }
    if (status >= 0) {
        MPI_Finalize();
        return status;
    }

    double wall0 = MPI_Wtime(), cpu0 = bench_cpu_seconds();
    bench_hrelay h;
    int have = bench_hrelay_find(&h);
    char command[4096];
    command_line(argc, argv, command, sizeof command);
    bench_meta meta;
    describe_run(&meta, &o, &h, have, p, command);
    double rate = link_rate(&o, &meta);
    meta.rate_bps = rate;
    bench_nodes nodes;
    if (bench_nodes_find(MPI_COMM_WORLD, o.node_size, &nodes) != 0) {
        if (rank == 0)
            fprintf(stderr, "alltoallv_bench: out of memory\n");
        MPI_Finalize();
        return 1;
    }
    meta.nodes = nodes.n;
    meta.nodes_how = nodes.how;

    static bench_out out; /* large; rank 0 only */
    const char *failed = NULL;
    int ok = rank != 0 || bench_out_open(&out, &o, &meta, &failed) == 0;
    if (!ok)
        perror(failed);
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) {
        bench_nodes_free(&nodes);
        MPI_Finalize();
        return 1;
    }
    if (rank == 0 && !have)
        fprintf(stderr, "alltoallv_bench: hrelay is not loaded (run under hrelay-run or with "
                        "LD_PRELOAD=libhrelay.so): only pmpi and native are timed\n");

    bench_ctx ctx = {.opts = &o,
                     .hrelay = &h,
                     .have_hrelay = have,
                     .p = p,
                     .rank = rank,
                     .rate_bps = rate,
                     .nodes = &nodes,
                     .comm = MPI_COMM_WORLD,
                     .calls = rank == 0 ? out.calls : NULL};
    int mismatches = run_all(&ctx, &out);
    bench_nodes_free(&nodes);

    double cpu = bench_cpu_seconds() - cpu0, wall = MPI_Wtime() - wall0, cpu_all, wall_max;
    MPI_Reduce(&cpu, &cpu_all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&wall, &wall_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0 && bench_out_close(&out, cpu_all, wall_max, meta.online_cpus, p,
                                     mismatches < 0 ? 0 : mismatches) != 0) {
        perror("alltoallv_bench: writing the output files");
        mismatches = -1;
    }
    MPI_Bcast(&mismatches, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return mismatches == 0 ? 0 : 1;
}
