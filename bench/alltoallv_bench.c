/* alltoallv_bench: times MPI_Alltoallv side by side -- PMPI, hrelay's native pass-through,
 * every hrelay schedule family and auto -- on exchange patterns of several sizes, against the
 * network's lower bound. Runs under hrelay (LD_PRELOAD, e.g. hrelay-run) and steers it with
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
    int len = 0;
    MPI_Get_library_version(meta->mpi_library, &len);
    meta->mpi_library[strcspn(meta->mpi_library, "\n")] = 0;
    meta->ucx_tls = getenv("UCX_TLS");
    meta->half_duplex = o->half_duplex;
    meta->seed = o->seed;
    meta->reps = o->reps;
    meta->warmup = o->warmup;
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

/* Builds pattern k for `bytes` per rank into m (rank 0's matrix, on every rank). Returns 0, 1
 * if the pattern does not apply (why is set on rank 0), or -1 if memory ran out (all ranks
 * agree). Collective. */
static int build_pattern(int k, uint64_t bytes, const bench_opts *o, int p, uint64_t *m,
                         char *why, size_t cap)
{
    bench_pattern_in in = {.p = p, .elems = bytes / BENCH_ELEM, .seed = o->seed, .opts = o,
                           .comm = MPI_COMM_WORLD};
    memset(m, 0, sizeof *m * (size_t)p * (size_t)p);
    why[0] = 0;
    int rc = bench_patterns[k].fill(&in, m, why, cap), worst;
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (worst < 0)
        return -1;
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc == 0) /* the same matrix everywhere, whatever floating point did */
        MPI_Bcast(m, p * p, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    return rc;
}

/* Runs every pattern and size. Returns the number of mismatches, or -1 on failure. */
static int run_all(bench_ctx *ctx, bench_out *out)
{
    const bench_opts *o = ctx->opts;
    int p = ctx->p, mismatches = 0;
    uint64_t *m = malloc(sizeof *m * (size_t)p * (size_t)p);
    bench_row rows[BENCH_MAX_CANDIDATES];
    char why[256];
    if (!m)
        return -1;
    for (int a = 0; a < o->npatterns; a++)
        for (int s = 0; s < o->nsizes; s++) {
            const bench_pattern *pat = &bench_patterns[o->patterns[a]];
            int rc = build_pattern(o->patterns[a], o->sizes[s], o, p, m, why, sizeof why);
            if (rc == 1 && ctx->rank == 0)
                bench_out_skipped(out, pat->name, o->sizes[s], why);
            if (rc == 0 && (rc = bench_measure(ctx, pat->name, o->sizes[s], m, rows)) >= 0) {
                mismatches += rc;
                if (ctx->rank == 0)
                    bench_out_rows(out, rows, o->ncandidates, pat->summary);
                rc = 0;
            }
            if (rc < 0) {
                if (ctx->rank == 0)
                    fprintf(stderr, "alltoallv_bench: %s, %llu bytes per rank: out of memory "
                                    "(or a displacement over INT_MAX elements)\n",
                            pat->name, (unsigned long long)o->sizes[s]);
                free(m);
                return -1;
            }
        }
    free(m);
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

    static bench_out out; /* large; rank 0 only */
    const char *failed = NULL;
    int ok = rank != 0 || bench_out_open(&out, &o, &meta, &failed) == 0;
    if (!ok)
        perror(failed);
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) {
        MPI_Finalize();
        return 1;
    }
    if (rank == 0 && !have)
        fprintf(stderr, "alltoallv_bench: hrelay is not loaded (run under hrelay-run or with "
                        "LD_PRELOAD=libhrelay.so): only pmpi and native are timed\n");

    bench_ctx ctx = {.opts = &o, .hrelay = &h, .have_hrelay = have, .p = p, .rank = rank,
                     .rate_bps = rate, .comm = MPI_COMM_WORLD};
    int mismatches = run_all(&ctx, &out);

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
