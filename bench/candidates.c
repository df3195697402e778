/* The algorithms timed side by side, and how the benchmark reaches hrelay: the tool API of
 * hrelay.h looked up with dlsym, so the program runs under LD_PRELOAD without linking hrelay. */
#include <dlfcn.h>
#include <string.h>

#include "bench/bench.h"

const bench_candidate bench_candidates[] = {
    {"pmpi", 1, 0},      {"native", 0, 0},    {"direct", 0, 1},
    {"stepwise", 0, 1},  {"greedy", 0, 1},    {"walker-otto", 0, 1},
    {"transpose", 0, 1}, {"forward", 0, 1},   {"node-direct", 0, 1},
    {"node-transpose", 0, 1}, {"node-forward", 0, 1}, {"node-aggregate", 0, 1},
    {"auto", 0, 0},
};
const int bench_ncandidates = (int)(sizeof bench_candidates / sizeof *bench_candidates);

int bench_candidate_find(const char *name)
{
    for (int k = 0; k < bench_ncandidates; k++)
        if (!strcmp(name, bench_candidates[k].name))
            return k;
    return -1;
}

int bench_hrelay_find(bench_hrelay *h)
{
    memset(h, 0, sizeof *h);
    /* POSIX leaves converting a data pointer to a function pointer to the platform; copying the
     * bytes is what dlsym's users do (see its manual page). */
    void *set = dlsym(RTLD_DEFAULT, "hrelay_set_algorithm");
    /* hrelay_last_run names the variant too; a library before it (HRELAY_LIB) has only the
     * family */
    void *last = dlsym(RTLD_DEFAULT, "hrelay_last_run");
    if (!last)
        last = dlsym(RTLD_DEFAULT, "hrelay_last_algorithm");
    void *version = dlsym(RTLD_DEFAULT, "hrelay_version");
    if (!set || !last || !version)
        return 0;
    memcpy(&h->set, &set, sizeof set);
    memcpy(&h->last, &last, sizeof last);
    memcpy(&h->version, &version, sizeof version);
    /* active: it accepts a name for MPI_COMM_WORLD (then back to HRELAY_ALGO) */
    if (h->set(MPI_COMM_WORLD, "native") != 0 || h->set(MPI_COMM_WORLD, NULL) != 0) {
        memset(h, 0, sizeof *h);
        return 0;
    }
    return 1;
}

int bench_select(const bench_hrelay *h, int c, MPI_Comm comm)
{
    if (bench_candidates[c].pmpi || !h->set)
        return 0;
    return h->set(comm, bench_candidates[c].name);
}

int bench_call(int c, const bench_exchange *x, MPI_Comm comm)
{
    if (x->alltoall && bench_candidates[c].pmpi)
        return PMPI_Alltoall(x->sbuf, x->count, MPI_UINT64_T, x->rbuf, x->count, MPI_UINT64_T,
                             comm);
    if (x->alltoall)
        return MPI_Alltoall(x->sbuf, x->count, MPI_UINT64_T, x->rbuf, x->count, MPI_UINT64_T,
                            comm);
    if (bench_candidates[c].pmpi)
        return PMPI_Alltoallv(x->sbuf, x->scount, x->sdispl, MPI_UINT64_T, x->rbuf, x->rcount,
                              x->rdispl, MPI_UINT64_T, comm);
    return MPI_Alltoallv(x->sbuf, x->scount, x->sdispl, MPI_UINT64_T, x->rbuf, x->rcount,
                         x->rdispl, MPI_UINT64_T, comm);
}

const char *bench_ran(const bench_hrelay *h, int c, MPI_Comm comm)
{
    if (bench_candidates[c].pmpi)
        return "pmpi";
    if (!h->last)
        return "mpi";
    const char *name = h->last(comm);
    return name ? name : "unknown";
}

/* What may run besides the candidates: MPI without hrelay, and anything else. */
static const char *const ran_extra[] = {"mpi", "unknown"};
enum { RAN_EXTRA = sizeof ran_extra / sizeof ran_extra[0] };

/* The variants hrelay_last_run names after a family (src/shim/run.c, shim_run_name). */
static const char *const ran_variants[] = {"", "/window 4", "/shared memory"};
enum { RAN_VARIANTS = sizeof ran_variants / sizeof ran_variants[0] };

/* The index of a name without variant: a candidate, or one of ran_extra. */
static int base_index(const char *name, size_t len)
{
    for (int k = 0; k < bench_ncandidates; k++)
        if (strlen(bench_candidates[k].name) == len &&
            !strncmp(name, bench_candidates[k].name, len))
            return k;
    for (int i = 0; i < RAN_EXTRA - 1; i++)
        if (strlen(ran_extra[i]) == len && !strncmp(name, ran_extra[i], len))
            return bench_ncandidates + i;
    return bench_ncandidates + RAN_EXTRA - 1;
}

int bench_ran_index(const char *name)
{
    size_t len = strcspn(name, "/");
    int base = base_index(name, len), unknown = bench_ncandidates + RAN_EXTRA - 1;
    for (int v = 0; v < RAN_VARIANTS; v++)
        if (!strcmp(name + len, ran_variants[v]))
            return base == unknown ? unknown : base + v * (bench_ncandidates + RAN_EXTRA);
    return unknown;
}

const char *bench_ran_name(int index)
{
    index %= bench_ncandidates + RAN_EXTRA;
    return index < bench_ncandidates ? bench_candidates[index].name
                                     : ran_extra[index - bench_ncandidates];
}

const char *bench_ran_variant(int index)
{
    return ran_variants[index / (bench_ncandidates + RAN_EXTRA)];
}
