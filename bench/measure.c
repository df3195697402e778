/* One pattern and size: the buffers of the exchange, PMPI's result, a communicator per
 * candidate, one checked call of every candidate (byte compare with PMPI's result, guard
 * elements between the receive regions included), untimed warm-up calls (each after a barrier,
 * as the timed ones, so that auto explores under the conditions it is timed in), the timed
 * rounds --
 * in every repetition (and warm-up round) the candidates run in an order drawn afresh from
 * the seed, each call after a barrier, so that drift hits all of them alike and no candidate
 * always follows the same one (a plan's run leaves caches and the MPI library's queues in
 * another state than MPI's own exchange does) -- and a second checked call after them. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"

/* Byte value of the receive buffers before a call: regions nobody writes keep it. */
enum { POISON = 0xa5 };

/* Names bench_ran may return besides the candidates' own. */
static const char *const extra_names[] = {"mpi", "unknown"};
enum { NEXTRA = 2 };

/* A small number for a ran name: the candidate index, or bench_ncandidates + extra index. */
static int ran_index(const char *name)
{
    int c = bench_candidate_find(name);
    if (c >= 0)
        return c;
    return bench_ncandidates + (strcmp(name, "mpi") ? 1 : 0);
}

static const char *ran_name(int index)
{
    return index < bench_ncandidates ? bench_candidates[index].name
                                     : extra_names[index - bench_ncandidates];
}

/* The content of element k of the message from rank i to rank j. */
static uint64_t element(uint64_t seed, int i, int j, uint64_t k)
{
    uint64_t s = seed ^ ((uint64_t)i << 48) ^ ((uint64_t)j << 32) ^ k;
    return bench_random(&s);
}

/* Frees what x holds. */
static void exchange_free(bench_exchange *x)
{
    free(x->sbuf);
    free(x->rbuf);
    free(x->ref);
    free(x->scount);
    memset(x, 0, sizeof *x);
}

/* This rank's MPI_Alltoallv arguments for matrix m: messages packed in rank order on the send
 * side; on the receive side each region followed by one guard element. Returns 0, or -1 if
 * memory ran out or a displacement does not fit an int. */
static int exchange_init(bench_exchange *x, const uint64_t *m, int p, int me, uint64_t seed)
{
    memset(x, 0, sizeof *x);
    x->scount = malloc(4 * sizeof(int) * (size_t)p);
    if (!x->scount)
        return -1;
    x->sdispl = x->scount + p;
    x->rcount = x->sdispl + p;
    x->rdispl = x->rcount + p;
    uint64_t so = 0, ro = 0;
    for (int j = 0; j < p; j++) {
        uint64_t sc = m[(size_t)me * p + j], rc = m[(size_t)j * p + me];
        if (sc > INT_MAX || rc > INT_MAX || so > INT_MAX || ro > INT_MAX)
            return -1;
        x->scount[j] = (int)sc;
        x->sdispl[j] = (int)so;
        x->rcount[j] = (int)rc;
        x->rdispl[j] = (int)ro;
        so += sc;
        ro += rc + 1;
    }
    x->sn = (size_t)so;
    x->rn = (size_t)ro;
    x->sbuf = malloc(sizeof *x->sbuf * (x->sn + 1));
    x->rbuf = malloc(sizeof *x->rbuf * x->rn);
    x->ref = malloc(sizeof *x->ref * x->rn);
    if (!x->sbuf || !x->rbuf || !x->ref)
        return -1;
    for (int j = 0; j < p; j++)
        for (int k = 0; k < x->scount[j]; k++)
            x->sbuf[x->sdispl[j] + k] = element(seed, me, j, (uint64_t)k);
    return 0;
}

/* Prints where rbuf first differs from PMPI's result (rank-local diagnostic). */
static void report_mismatch(const bench_exchange *x, int p, int me, const char *pattern,
                            uint64_t bytes, const char *algorithm, const char *ran)
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
                "alltoallv_bench: rank %d: MISMATCH: %s, %llu bytes per rank, %s (ran %s): "
                "message from rank %d differs from PMPI_Alltoallv's at byte %zu\n",
                me, pattern, (unsigned long long)bytes, algorithm, ran, from,
                off * BENCH_ELEM);
    else
        fprintf(stderr,
                "alltoallv_bench: rank %d: MISMATCH: %s, %llu bytes per rank, %s (ran %s): "
                "wrote the guard element after the region of rank %d\n",
                me, pattern, (unsigned long long)bytes, algorithm, ran, from);
}

/* Per-candidate outcome of the checked calls, agreed over ranks. */
typedef struct check_result {
    int wrong;   /* result differed from PMPI's on some rank, or the call failed */
    int ran;     /* ran_index of what executed the first checked call (rank 0's) */
    int skipped; /* not run: needs hrelay, which is not loaded */
    int refused; /* hrelay_set_algorithm refused the name (same on every rank) */
} check_result;

/* Gives every candidate k its own duplicate comms[k] of ctx->comm, with its algorithm chosen
 * once, so that hrelay's per-communicator state (cached plans, auto's decisions) builds up as
 * for one call site of an application; marks the candidates that cannot run. Collective.
 * Returns 0, or -1 if a duplicate could not be made. */
static int open_comms(bench_ctx *ctx, MPI_Comm *comms, check_result *res)
{
    const bench_opts *o = ctx->opts;
    int rc = 0;
    for (int k = 0; k < o->ncandidates; k++) {
        const bench_candidate *cd = &bench_candidates[o->candidates[k]];
        res[k] = (check_result){.ran = ran_index("unknown")};
        comms[k] = MPI_COMM_NULL;
        if (rc || MPI_Comm_dup(ctx->comm, &comms[k]) != MPI_SUCCESS) {
            rc = -1;
            continue;
        }
        if (!ctx->have_hrelay && !cd->pmpi && strcmp(cd->name, "native"))
            res[k].skipped = 1;
        else if (bench_select(ctx->hrelay, o->candidates[k], comms[k]) != 0)
            res[k].refused = 1;
        if (res[k].refused && ctx->rank == 0)
            fprintf(stderr, "alltoallv_bench: hrelay refused the family %s\n", cd->name);
    }
    return rc;
}

/* Frees the duplicates of open_comms. */
static void close_comms(MPI_Comm *comms, int n)
{
    for (int k = 0; k < n; k++)
        if (comms[k] != MPI_COMM_NULL)
            MPI_Comm_free(&comms[k]);
}

/* Whether candidate k can be called (hrelay loaded when needed, name accepted). */
static int runnable(const check_result *r)
{
    return !r->skipped && !r->refused;
}

/* One checked call of every candidate k with runnable(res[k]) and (only == NULL or only[k]):
 * its result against PMPI's, byte for byte; res[k].wrong is raised (agreed over ranks), and
 * with first set res[k].ran records what ran (rank 0's). Collective. */
static void check_calls(bench_ctx *ctx, bench_exchange *x, const MPI_Comm *comms,
                        const int *only, int first, const char *pattern, uint64_t bytes,
                        check_result *res)
{
    const bench_opts *o = ctx->opts;
    int n = o->ncandidates, wrong[BENCH_MAX_CANDIDATES] = {0}, ran[BENCH_MAX_CANDIDATES];
    for (int k = 0; k < n; k++) {
        int c = o->candidates[k];
        const bench_candidate *cd = &bench_candidates[c];
        ran[k] = res[k].ran;
        if (!runnable(&res[k]) || (only && !only[k]))
            continue;
        memset(x->rbuf, POISON, sizeof *x->rbuf * x->rn);
        int rc = bench_call(c, x, comms[k]);
        const char *name = bench_ran(ctx->hrelay, c, comms[k]);
        ran[k] = ran_index(name);
        if (o->inject_error && !ctx->injected && cd->family) {
            ctx->injected = 1;
            if (ctx->rank == ctx->p - 1)
                ((unsigned char *)x->rbuf)[0] ^= 0xff;
        }
        wrong[k] = rc != MPI_SUCCESS || memcmp(x->rbuf, x->ref, sizeof *x->rbuf * x->rn) != 0;
        if (wrong[k] && rc == MPI_SUCCESS)
            report_mismatch(x, ctx->p, ctx->rank, pattern, bytes, cd->name, name);
        else if (wrong[k])
            fprintf(stderr, "alltoallv_bench: rank %d: %s, %llu bytes per rank: %s failed "
                            "(MPI error %d)\n",
                    ctx->rank, pattern, (unsigned long long)bytes, cd->name, rc);
    }
    MPI_Allreduce(MPI_IN_PLACE, wrong, n, MPI_INT, MPI_MAX, ctx->comm);
    if (first)
        MPI_Bcast(ran, n, MPI_INT, 0, ctx->comm);
    for (int k = 0; k < n; k++) {
        res[k].wrong |= wrong[k];
        if (first)
            res[k].ran = ran[k];
    }
}

/* The status of a candidate after its check. */
static const char *status_of(const check_result *r, const bench_candidate *cd)
{
    if (r->skipped)
        return "no-hrelay";
    if (r->refused)
        return "refused";
    if (r->wrong)
        return "WRONG";
    if (cd->family && strcmp(ran_name(r->ran), cd->name))
        return "n/a";
    return "ok";
}

/* Fills order[0 .. na) with a permutation of 0 .. na) for round r of the run seeded with
 * seed: the same on every rank. */
static void round_order(uint64_t seed, int r, int *order, int na)
{
    uint64_t s = seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(r + 1));
    for (int k = 0; k < na; k++)
        order[k] = k;
    for (int k = na - 1; k > 0; k--) { /* Fisher-Yates */
        int j = (int)(bench_random(&s) % (uint64_t)(k + 1)), tmp = order[k];
        order[k] = order[j];
        order[j] = tmp;
    }
}

/* The timed rounds of the candidates active[0 .. na) (indices into opts->candidates): on rank
 * 0, t[i] (the call's seconds, max over ranks), cpu[i] (CPU seconds of all ranks around it)
 * and span[i] (the seconds those CPU readings spanned, max over ranks) for i = k * reps + r,
 * and ran[i] (rank 0's). Returns 0, or -1 if memory ran out (on some rank: then on every
 * rank). */
static int timed_rounds(bench_ctx *ctx, bench_exchange *x, const MPI_Comm *comms,
                        const int *active, int na, double *t, double *cpu, double *span, int *ran)
{
    int reps = ctx->opts->reps, total = na * reps;
    double *lt = malloc(sizeof *lt * (size_t)total * 3), *lc = lt + total, *ls = lc + total;
    int ok = lt != NULL, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, ctx->comm);
    int order[BENCH_MAX_CANDIDATES];
    for (int r = 0; all_ok && r < reps; r++) {
        round_order(ctx->opts->seed, r, order, na);
        for (int step = 0; step < na; step++) {
            int k = order[step], c = ctx->opts->candidates[active[k]], i = k * reps + r;
            MPI_Comm comm = comms[active[k]];
            MPI_Barrier(comm);
            /* the CPU clock is a system call: read it outside the timed span */
            double w0 = MPI_Wtime(), c0 = bench_cpu_now(), t0 = MPI_Wtime();
            bench_call(c, x, comm);
            double t1 = MPI_Wtime(), c1 = bench_cpu_now(), w1 = MPI_Wtime();
            lt[i] = t1 - t0;
            lc[i] = c1 - c0;
            ls[i] = w1 - w0;
            ran[i] = ran_index(bench_ran(ctx->hrelay, c, comm));
        }
    }
    if (all_ok) {
        MPI_Reduce(lt, t, total, MPI_DOUBLE, MPI_MAX, 0, ctx->comm);
        MPI_Reduce(lc, cpu, total, MPI_DOUBLE, MPI_SUM, 0, ctx->comm);
        MPI_Reduce(ls, span, total, MPI_DOUBLE, MPI_MAX, 0, ctx->comm);
    }
    free(lt);
    return all_ok ? 0 : -1;
}

/* "a", or "a+b+..." for the distinct ran names of ran[0 .. n) in order of appearance. */
static void ran_summary(const int *ran, int n, char *out, size_t cap)
{
    out[0] = 0;
    for (int r = 0; r < n; r++) {
        int seen = 0;
        for (int e = 0; e < r && !seen; e++)
            seen = ran[e] == ran[r];
        if (!seen) {
            size_t len = strlen(out);
            snprintf(out + len, cap - len, "%s%s", len ? "+" : "", ran_name(ran[r]));
        }
    }
}

/* Fills the rows (rank 0) from the checks and the timed rounds. */
static void fill_rows(const bench_ctx *ctx, const char *pattern, uint64_t bytes,
                      const uint64_t *m, const check_result *res, const int *active, int na,
                      double *t, const double *cpu, const double *span, const int *ran,
                      bench_row *rows)
{
    const bench_opts *o = ctx->opts;
    int reps = o->reps, native = -1;
    uint64_t bound = bench_bound_bytes(m, ctx->p, o->half_duplex);
    double bound_s = ctx->rate_bps > 0 ? (double)bound * 8 / ctx->rate_bps : NAN;
    for (int k = 0; k < o->ncandidates; k++) {
        const bench_candidate *cd = &bench_candidates[o->candidates[k]];
        bench_row *row = &rows[k];
        *row = (bench_row){.pattern = pattern, .p = ctx->p, .bytes_per_rank = bytes,
                           .algorithm = cd->name, .status = status_of(&res[k], cd),
                           .t = {NAN, NAN, NAN, NAN, NAN}, .cpu_use = NAN,
                           .bound_bytes = bound, .bound_s = bound_s, .ratio_native = NAN,
                           .ratio_bound = NAN};
        snprintf(row->ran, sizeof row->ran, "%s",
                 res[k].skipped || res[k].refused ? "" : ran_name(res[k].ran));
    }
    for (int a = 0; a < na; a++) {
        bench_row *row = &rows[active[a]];
        double wall = 0, busy = 0;
        if (strcmp(row->status, "ok")) /* wrong in the check after the timed calls */
            continue;
        for (int r = 0; r < reps; r++) {
            wall += span[a * reps + r];
            busy += cpu[a * reps + r];
        }
        row->cpu_use = wall > 0 ? busy / wall : NAN;
        row->reps = reps;
        row->t = bench_quantiles_of(t + (size_t)a * reps, reps);
        ran_summary(ran + (size_t)a * reps, reps, row->ran, sizeof row->ran);
        row->ratio_bound = bound_s > 0 ? row->t.median / bound_s : NAN;
        if (!strcmp(row->algorithm, "native"))
            native = active[a];
    }
    for (int a = 0; native >= 0 && a < na; a++)
        if (!strcmp(rows[active[a]].status, "ok"))
            rows[active[a]].ratio_native = rows[active[a]].t.median / rows[native].t.median;
}

int bench_measure(bench_ctx *ctx, const char *pattern, uint64_t bytes, const uint64_t *m,
                  bench_row *rows)
{
    const bench_opts *o = ctx->opts;
    bench_exchange x;
    int ok = exchange_init(&x, m, ctx->p, ctx->rank, o->seed) == 0, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, ctx->comm);
    if (!all_ok) {
        exchange_free(&x);
        return -1;
    }
    memset(x.ref, POISON, sizeof *x.ref * x.rn);
    PMPI_Alltoallv(x.sbuf, x.scount, x.sdispl, MPI_UINT64_T, x.ref, x.rcount, x.rdispl,
                   MPI_UINT64_T, ctx->comm);

    check_result res[BENCH_MAX_CANDIDATES];
    MPI_Comm comms[BENCH_MAX_CANDIDATES];
    ok = open_comms(ctx, comms, res) == 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, ctx->comm);
    if (!all_ok) {
        close_comms(comms, o->ncandidates);
        exchange_free(&x);
        return -1;
    }
    check_calls(ctx, &x, comms, NULL, 1, pattern, bytes, res);
    int active[BENCH_MAX_CANDIDATES], is_active[BENCH_MAX_CANDIDATES] = {0}, na = 0;
    for (int k = 0; k < o->ncandidates; k++)
        if (!strcmp(status_of(&res[k], &bench_candidates[o->candidates[k]]), "ok")) {
            active[na++] = k;
            is_active[k] = 1;
        }
    /* untimed: auto explores, caches fill. Each call after a barrier, as the timed ones:
     * without it, ranks that finished a call early start the next candidate's sends while
     * the slowest rank still receives, and auto's exploration measured that overlap (up to
     * twice the timed medians on receiver-bound patterns such as incast or sparse) */
    int order[BENCH_MAX_CANDIDATES];
    for (int w = 0; w < o->warmup; w++) {
        round_order(o->seed, -1 - w, order, na);
        for (int step = 0; step < na; step++) {
            int a = active[order[step]];
            MPI_Barrier(comms[a]);
            bench_call(o->candidates[a], &x, comms[a]);
        }
    }

    size_t total = (size_t)na * (size_t)o->reps;
    double *t = malloc(sizeof *t * (total + 1) * 3), *cpu = t + total + 1, *span = cpu + total + 1;
    int *ran = malloc(sizeof *ran * (total + 1));
    ok = t && ran;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, ctx->comm);
    if (all_ok && na > 0)
        all_ok = timed_rounds(ctx, &x, comms, active, na, t, cpu, span, ran) == 0;
    if (all_ok) /* the steady state is checked too: a wrong cached run is not reported */
        check_calls(ctx, &x, comms, is_active, 0, pattern, bytes, res);
    int wrong = 0;
    for (int k = 0; k < o->ncandidates; k++)
        wrong += res[k].wrong;
    if (all_ok && ctx->rank == 0)
        fill_rows(ctx, pattern, bytes, m, res, active, na, t, cpu, span, ran, rows);
    close_comms(comms, o->ncandidates);
    free(t);
    free(ran);
    exchange_free(&x);
    return all_ok ? wrong : -1;
}
