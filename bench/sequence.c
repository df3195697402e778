/* The calls of one pattern and size as this rank sees them: its send and receive counts per
 * call and every call's lower bounds. A fixed pattern is one call repeated; a drifting one has
 * a matrix per call, the same sequence for every candidate (built once, before any candidate
 * runs, from the seed and the call index). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"

/* Collective: fills m with call `call` of pattern k (rank 0's matrix on every rank). Returns
 * 0, 1 if the pattern does not apply (why set on rank 0), or -1 if memory ran out on some
 * rank (on every rank alike). */
static int build_matrix(const bench_ctx *ctx, int k, uint64_t bytes, int call, uint64_t *m,
                        char *why, size_t cap)
{
    int p = ctx->p;
    bench_pattern_in in = {.p = p,
                           .elems = bytes / BENCH_ELEM,
                           .seed = ctx->opts->seed,
                           .call = call,
                           .opts = ctx->opts,
                           .comm = ctx->comm};
    memset(m, 0, sizeof *m * (size_t)p * (size_t)p);
    why[0] = 0;
    int rc = bench_patterns[k].fill(&in, m, why, cap), worst;
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, ctx->comm);
    if (worst < 0)
        return -1;
    MPI_Bcast(&rc, 1, MPI_INT, 0, ctx->comm);
    if (rc == 0) /* the same matrix everywhere, whatever floating point did */
        MPI_Bcast(m, p * p, MPI_UINT64_T, 0, ctx->comm);
    return rc;
}

/* Writes m (p x p elements) in bytes, one line per sender, as hrelay-plan reads it, to
 * DIR/PATTERN-BYTES.txt (drifting: PATTERN-BYTES-cCALL.txt). Returns 0, or -1 (errno set). */
static int write_matrix(const char *dir, const bench_pattern *pat, uint64_t bytes, int call,
                        const uint64_t *m, int p)
{
    char path[4096];
    if (pat->drift)
        snprintf(path, sizeof path, "%s/%s-%llu-c%d.txt", dir, pat->name,
                 (unsigned long long)bytes, call);
    else
        snprintf(path, sizeof path, "%s/%s-%llu.txt", dir, pat->name, (unsigned long long)bytes);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "# %s, %llu bytes per rank, P = %d%s: bytes rank i (line) sends to rank j\n",
            pat->name, (unsigned long long)bytes, p, pat->drift ? ", one call" : "");
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++)
            fprintf(f, "%llu%c", (unsigned long long)(m[(size_t)i * p + j] * BENCH_ELEM),
                    j + 1 < p ? ' ' : '\n');
    return fclose(f);
}

/* Keeps this rank's row and column of m as call n of seq and the call's bounds. Returns 0, or
 * -1 if a count or a displacement does not fit an int. */
static int keep_call(bench_sequence *seq, const bench_ctx *ctx, const uint64_t *m, int n,
                     uint64_t *scratch)
{
    int p = ctx->p, me = ctx->rank;
    uint64_t so = 0, ro = 0;
    for (int j = 0; j < p; j++) {
        uint64_t sc = m[(size_t)me * p + j], rc = m[(size_t)j * p + me];
        if (sc > INT_MAX || rc > INT_MAX || so > INT_MAX || ro > INT_MAX)
            return -1;
        seq->scount[(size_t)n * p + j] = (int)sc;
        seq->rcount[(size_t)n * p + j] = (int)rc;
        so += sc;
        ro += rc + (seq->alltoall ? 0 : 1);
    }
    ro += seq->alltoall; /* MPI_Alltoall: one guard after the last region */
    if (so > seq->max_sn)
        seq->max_sn = (size_t)so;
    if (ro > seq->max_rn)
        seq->max_rn = (size_t)ro;
    seq->bound_bytes[n] = bench_bound_bytes(m, p, ctx->opts->half_duplex);
    seq->node_bytes[n] = bench_node_bound_bytes(m, p, ctx->nodes, ctx->opts->half_duplex, scratch);
    return 0;
}

int bench_sequence_build(const bench_ctx *ctx, int k, uint64_t bytes, int ncalls,
                         bench_sequence *seq, char *why, size_t cap)
{
    const bench_pattern *pat = &bench_patterns[k];
    int p = ctx->p;
    memset(seq, 0, sizeof *seq);
    seq->p = p;
    seq->drift = pat->drift;
    seq->alltoall = pat->alltoall;
    seq->ncalls = pat->drift ? ncalls : 1;
    size_t entries = (size_t)seq->ncalls * (size_t)p;
    uint64_t *m = malloc(sizeof *m * (size_t)p * (size_t)p),
             *scratch = malloc(sizeof *scratch * 2 * (size_t)ctx->nodes->n);
    seq->scount = malloc(sizeof *seq->scount * entries);
    seq->rcount = malloc(sizeof *seq->rcount * entries);
    seq->bound_bytes = malloc(sizeof *seq->bound_bytes * (size_t)seq->ncalls * 2);
    seq->node_bytes = seq->bound_bytes ? seq->bound_bytes + seq->ncalls : NULL;
    int ok = m && scratch && seq->scount && seq->rcount && seq->bound_bytes, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, ctx->comm);
    int rc = all_ok ? 0 : -1;
    for (int n = 0; rc == 0 && n < seq->ncalls; n++) {
        rc = build_matrix(ctx, k, bytes, n, m, why, cap);
        if (rc == 0) {
            ok = keep_call(seq, ctx, m, n, scratch) == 0;
            if (ok && ctx->opts->matrices && ctx->rank == 0 &&
                write_matrix(ctx->opts->matrices, pat, bytes, n, m, p) != 0) {
                perror(ctx->opts->matrices);
                ok = 0;
            }
            MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, ctx->comm);
            rc = all_ok ? 0 : -1;
        }
    }
    free(m);
    free(scratch);
    if (rc != 0)
        bench_sequence_free(seq);
    return rc;
}

void bench_sequence_free(bench_sequence *seq)
{
    free(seq->scount);
    free(seq->rcount);
    free(seq->bound_bytes);
    memset(seq, 0, sizeof *seq);
}

int bench_sequence_call(const bench_sequence *seq, int round)
{
    return seq->drift ? round : 0;
}
