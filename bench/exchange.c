/* The buffers of one call: counts and displacements from the sequence, send contents that
 * tell every element apart, PMPI's result as the reference, and the byte compare against it
 * (receive buffers poisoned before a checked call, a guard element after every receive
 * region, so a write outside the regions is caught too). */
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"

/* Byte value of the receive buffers before a checked call: regions nobody writes keep it. */
enum { POISON = 0xa5 };

/* The content of element k of the message from rank i to rank j in call n. */
static uint64_t element(uint64_t seed, int n, int i, int j, uint64_t k)
{
    uint64_t s = seed ^ ((uint64_t)i << 48) ^ ((uint64_t)j << 32) ^ ((uint64_t)n << 56) ^ k;
    return bench_random(&s);
}

int bench_exchange_alloc(bench_exchange *x, const bench_sequence *seq)
{
    int p = seq->p;
    memset(x, 0, sizeof *x);
    x->scount = malloc(4 * sizeof(int) * (size_t)p);
    x->sbuf = malloc(sizeof *x->sbuf * (seq->max_sn + 1));
    x->rbuf = malloc(sizeof *x->rbuf * (seq->max_rn + 1));
    x->ref = malloc(sizeof *x->ref * (seq->max_rn + 1));
    if (!x->scount || !x->sbuf || !x->rbuf || !x->ref) {
        bench_exchange_free(x);
        return -1;
    }
    x->sdispl = x->scount + p;
    x->rcount = x->sdispl + p;
    x->rdispl = x->rcount + p;
    return 0;
}

void bench_exchange_load(bench_exchange *x, const bench_sequence *seq, int n, int me, uint64_t seed)
{
    int p = seq->p;
    const int *sc = seq->scount + (size_t)n * p, *rc = seq->rcount + (size_t)n * p;
    size_t so = 0, ro = 0;
    for (int j = 0; j < p; j++) {
        x->scount[j] = sc[j];
        x->sdispl[j] = (int)so;
        x->rcount[j] = rc[j];
        x->rdispl[j] = (int)ro;
        so += (size_t)sc[j];
        ro += (size_t)rc[j] + (seq->alltoall ? 0 : 1);
    }
    x->sn = so;
    x->rn = ro + (size_t)seq->alltoall;
    x->alltoall = seq->alltoall;
    x->count = sc[0];
    for (int j = 0; j < p; j++)
        for (int k = 0; k < x->scount[j]; k++)
            x->sbuf[x->sdispl[j] + k] = element(seed, n, me, j, (uint64_t)k);
}

int bench_exchange_reference(bench_exchange *x, MPI_Comm comm)
{
    memset(x->ref, POISON, sizeof *x->ref * x->rn);
    if (x->alltoall)
        return PMPI_Alltoall(x->sbuf, x->count, MPI_UINT64_T, x->ref, x->count, MPI_UINT64_T, comm);
    return PMPI_Alltoallv(x->sbuf, x->scount, x->sdispl, MPI_UINT64_T, x->ref, x->rcount, x->rdispl,
                          MPI_UINT64_T, comm);
}

void bench_exchange_poison(bench_exchange *x)
{
    memset(x->rbuf, POISON, sizeof *x->rbuf * x->rn);
}

int bench_exchange_differs(const bench_exchange *x)
{
    return memcmp(x->rbuf, x->ref, sizeof *x->rbuf * x->rn) != 0;
}

void bench_exchange_report(const bench_exchange *x, int p, int me, const char *pattern,
                           uint64_t bytes, int call, const char *algorithm, const char *ran)
{
    size_t e = 0;
    while (e < x->rn && x->rbuf[e] == x->ref[e])
        e++;
    int from = 0;
    while (from + 1 < p && (size_t)x->rdispl[from + 1] <= e)
        from++;
    size_t off = e - (size_t)x->rdispl[from];
    if (off < (size_t)x->rcount[from])
        fprintf(stderr,
                "alltoallv_bench: rank %d: MISMATCH: %s, %llu bytes per rank, call %d, %s (ran "
                "%s): message from rank %d differs from PMPI's at byte %zu\n",
                me, pattern, (unsigned long long)bytes, call, algorithm, ran, from,
                off * BENCH_ELEM);
    else
        fprintf(stderr,
                "alltoallv_bench: rank %d: MISMATCH: %s, %llu bytes per rank, call %d, %s (ran "
                "%s): wrote the guard element after the region of rank %d\n",
                me, pattern, (unsigned long long)bytes, call, algorithm, ran, from);
}

void bench_exchange_free(bench_exchange *x)
{
    free(x->sbuf);
    free(x->rbuf);
    free(x->ref);
    free(x->scount);
    memset(x, 0, sizeof *x);
}
