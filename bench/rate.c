/* The network's side of the lower bound: the link rate (given, or measured between ranks 0 and
 * 1) and the bytes a rank must move. */
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"

enum { RATE_RUNS = 15 };

/* Ranks 0 and 1: one timed exchange of n bytes; returns its seconds (on rank 0). */
static double one_run(char *sbuf, char *rbuf, int n, int half_duplex, int rank, MPI_Comm comm)
{
    double t0 = MPI_Wtime();
    int peer = 1 - rank;
    if (!half_duplex) {
        PMPI_Sendrecv(sbuf, n, MPI_BYTE, peer, 7, rbuf, n, MPI_BYTE, peer, 7, comm,
                      MPI_STATUS_IGNORE);
    } else if (rank == 0) {
        PMPI_Send(sbuf, n, MPI_BYTE, 1, 7, comm);
        PMPI_Recv(rbuf, 0, MPI_BYTE, 1, 8, comm, MPI_STATUS_IGNORE);
    } else {
        PMPI_Recv(rbuf, n, MPI_BYTE, 0, 7, comm, MPI_STATUS_IGNORE);
        PMPI_Send(sbuf, 0, MPI_BYTE, 0, 8, comm);
    }
    return MPI_Wtime() - t0;
}

double bench_measure_rate(uint64_t bytes, int half_duplex, MPI_Comm comm, char *how, size_t cap)
{
    int rank, n = bytes > (1u << 30) ? 1 << 30 : (int)bytes, ok = 1, all_ok;
    MPI_Comm_rank(comm, &rank);
    char *sbuf = NULL, *rbuf = NULL;
    if (rank < 2) {
        sbuf = malloc((size_t)n + 1);
        rbuf = malloc((size_t)n + 1);
        ok = sbuf && rbuf;
        if (ok) { /* touch every page: no page faults (or zero-page reads) in the timed runs */
            memset(sbuf, 1, (size_t)n + 1);
            memset(rbuf, 0, (size_t)n + 1);
        }
    }
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    double t[RATE_RUNS + 1], rate = 0;
    for (int k = 0; all_ok && k <= RATE_RUNS; k++) { /* run 0 warms up */
        PMPI_Barrier(comm);
        if (rank < 2)
            t[k] = one_run(sbuf, rbuf, n, half_duplex, rank, comm);
    }
    if (all_ok && rank == 0) {
        bench_quantiles q = bench_quantiles_of(t + 1, RATE_RUNS);
        rate = q.min > 0 ? (double)n * 8 / q.min : 0;
    }
    free(sbuf);
    free(rbuf);
    PMPI_Bcast(&rate, 1, MPI_DOUBLE, 0, comm);
    snprintf(how, cap,
             "measured: %s of %d bytes between ranks 0 and 1, fastest of %d runs",
             half_duplex ? "one-way MPI_Send (empty reply)" : "bidirectional MPI_Sendrecv", n,
             RATE_RUNS);
    return rate;
}

uint64_t bench_bound_bytes(const uint64_t *m, int p, int half_duplex)
{
    uint64_t bound = 0;
    for (int i = 0; i < p; i++) {
        uint64_t sent = 0, received = 0;
        for (int j = 0; j < p; j++)
            if (j != i) {
                sent += m[(size_t)i * p + j];
                received += m[(size_t)j * p + i];
            }
        uint64_t b = half_duplex ? sent + received : sent > received ? sent : received;
        if (b > bound)
            bound = b;
    }
    return bound * BENCH_ELEM;
}
