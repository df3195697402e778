/* MPI_THREAD_MULTIPLE: THREADS threads per rank (default 4), each with its own COMMS
 * communicators (default 2, duplicates of MPI_COMM_WORLD, some with the ranks reordered), run
 * MPI_Alltoallv / MPI_Alltoallv_c calls concurrently with the other threads: every call through
 * PMPI (reference) and through hrelay on the same inputs, compared byte for byte with guard
 * bytes (testlib). The shim's shared state (configuration, communicator records created
 * concurrently on first use, statistics, plan dumps, the report) is exercised from all threads
 * at once. After MPI_Finalize, rank 0 checks that the report counted every call.
 *
 * Usage: threads [--threads N] [--comms N] [--calls N] [--seed N] [--report PATH]
 * Prints "threads: ... ok" on rank 0 and exits 0 when every comparison matched. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

typedef struct worker {
    int id, ncomms, calls;
    MPI_Comm *comms;
    uint64_t seed;
    const tl_types *types;
    int ntypes;
    long done; /* successful intercepted calls */
} worker;

/* One call on comm: pattern, type pair and variant from the seed; PMPI and MPI compared. */
static void one_call(worker *w, MPI_Comm comm, int k)
{
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    uint64_t seed = w->seed * 1000003 + (uint64_t)k;
    const tl_types *ty = &w->types[seed % (uint64_t)w->ntypes];
    int pattern = (int)(seed / 7 % TL_PATTERNS), large = 0;
#ifdef HRELAY_HAVE_MPI_LARGE_COUNT
    large = k % 2;
#endif
    long *units = malloc((size_t)p * p * sizeof *units);
    MPI_Count *sc = malloc((size_t)p * sizeof *sc), *rc = malloc((size_t)p * sizeof *rc);
    tl_pattern(pattern, p, seed, 0, units);
    for (int j = 0; j < p; j++) {
        sc[j] = units[(size_t)me * p + j] * ty->sper;
        rc[j] = units[(size_t)j * p + me] * ty->rper;
    }
    tl_rng local;
    tl_seed(&local, seed * 31 + (uint64_t)me);
    tl_side send, recv, ref;
    tl_side_init(&send, p, sc, ty->stype, &local, 0);
    tl_side_init(&recv, p, rc, ty->rtype, &local, 0);
    tl_side_fill(&send, &local);
    tl_side_copy(&ref, &recv);

    char what[160];
    snprintf(what, sizeof what, "thread %d call %d: %s, %s, %s", w->id, k,
             large ? "MPI_Alltoallv_c" : "MPI_Alltoallv", tl_pattern_name(pattern), ty->name);
    int e1, e2;
#ifdef HRELAY_HAVE_MPI_LARGE_COUNT
    if (large) {
        e1 = PMPI_Alltoallv_c(send.base, send.count, send.displ, ty->stype, ref.base, ref.count,
                              ref.displ, ty->rtype, comm);
        e2 = MPI_Alltoallv_c(send.base, send.count, send.displ, ty->stype, recv.base,
                             recv.count, recv.displ, ty->rtype, comm);
    } else
#endif
    {
        e1 = PMPI_Alltoallv(send.base, send.icount, send.idispl, ty->stype, ref.base,
                            ref.icount, ref.idispl, ty->rtype, comm);
        e2 = MPI_Alltoallv(send.base, send.icount, send.idispl, ty->stype, recv.base,
                           recv.icount, recv.idispl, ty->rtype, comm);
    }
    if (e1 != MPI_SUCCESS || e2 != MPI_SUCCESS)
        tl_fail("%s: returned %d (PMPI) and %d (hrelay)", what, e1, e2);
    else
        w->done++;
    tl_side_check(&recv, &ref, what);
    tl_side_free(&send);
    tl_side_free(&recv);
    tl_side_free(&ref);
    free(sc);
    free(rc);
    free(units);
}

/* A thread: its calls, round robin over its communicators. */
static void *run(void *arg)
{
    worker *w = arg;
    for (int k = 0; k < w->calls; k++)
        one_call(w, w->comms[k % w->ncomms], k);
    return NULL;
}

/* The total "calls" of the report at path, or -1. */
static long report_calls(const char *path)
{
    char text[1 << 14];
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *c = strstr(text, "\"total\": {\"calls\": ");
    c = c ? c + strlen("\"total\": {") : NULL;
    return c ? strtol(c + 9, NULL, 10) : -1;
}

int main(int argc, char **argv)
{
    int nthreads = 4, ncomms = 2, calls = 12, provided;
    uint64_t seed = 1;
    const char *report = NULL;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--threads"))
            nthreads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--comms"))
            ncomms = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--calls"))
            calls = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--report"))
            report = argv[i + 1];
    }
    int p, me;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (me == 0)
            fprintf(stderr, "threads: FAIL: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        MPI_Finalize();
        return 1;
    }
    tl_types types[TL_MAX_TYPES];
    int ntypes = tl_types_create(types);

    /* communicators are created here, in the same order on every rank; odd ones reversed */
    MPI_Comm *comms = malloc((size_t)nthreads * ncomms * sizeof *comms);
    for (int c = 0; c < nthreads * ncomms; c++)
        MPI_Comm_split(MPI_COMM_WORLD, 0, c % 2 ? p - me : me, &comms[c]);
    worker *w = calloc((size_t)nthreads, sizeof *w);
    pthread_t *tid = malloc((size_t)nthreads * sizeof *tid);
    for (int t = 0; t < nthreads; t++) {
        w[t] = (worker){.id = t, .ncomms = ncomms, .calls = calls, .comms = comms + t * ncomms,
                        .seed = seed * 100 + (uint64_t)t, .types = types, .ntypes = ntypes};
        if (pthread_create(&tid[t], NULL, run, &w[t]) != 0) {
            fprintf(stderr, "threads: FAIL: pthread_create\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    long done = 0;
    for (int t = 0; t < nthreads; t++) {
        pthread_join(tid[t], NULL);
        done += w[t].done;
    }
    for (int c = 0; c < nthreads * ncomms; c++)
        MPI_Comm_free(&comms[c]);
    tl_types_free(types, ntypes);
    int total = tl_total_failures();
    MPI_Finalize();

    if (me == 0 && report) {
        long counted = report_calls(report);
        if (counted != done) {
            fprintf(stderr, "threads: FAIL: the report %s counts %ld calls, %ld were made\n",
                    report, counted, done);
            total++;
        }
    }
    if (me == 0)
        printf("threads: P=%d, %d threads x %d communicators, %ld calls: %s\n", p, nthreads,
               ncomms, done, total ? "FAIL" : "ok");
    free(comms);
    free(w);
    free(tid);
    return total ? 1 : 0;
}
