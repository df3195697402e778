/* One pattern and size: a communicator per candidate, then rounds in which every candidate
 * makes one call -- a first checked round, --warmup rounds, --reps timed rounds and a last
 * checked round. Every call is timed (after a barrier; the maximum over ranks), warm-up and
 * checked ones included, so that a candidate's whole run from the first call of its fresh
 * communicator (hrelay's exploration) can be summed. In every round the candidates run in an
 * order drawn afresh from the seed and the run (bench_round_order), so that drift of the machine
 * hits all of them alike and no candidate always follows the same one (a plan's run leaves
 * caches, the MPI library's queues and TCP's windows in another state than MPI's own exchange
 * does). A drifting pattern runs call r of its sequence in round r, the same for every
 * candidate and every run; the order of round r changes from run to run, so that over the runs
 * no candidate always makes call r first or after the same one. Its checked rounds are the
 * first, the last and every --check-every-th, each against PMPI's result of that call. With
 * --order blocks the candidates instead make their calls one candidate after the other, each
 * all its rounds in a row (in an order drawn per run): a candidate's calls then follow its own
 * (on a TCP network a call of MPI's algorithm that loses packets slows the schedule measured
 * after it for a call or two), as in a program that runs one algorithm. */
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"

/* Gives every candidate slot k its own duplicate comms[k] of ctx->comm, with its algorithm
 * chosen once, so that hrelay's per-communicator state (cached plans, auto's decisions)
 * builds up as for one call site of an application; marks the slots that cannot run.
 * Collective. Returns 0, or -1 if a duplicate could not be made. */
static int open_comms(bench_ctx *ctx, MPI_Comm *comms, bench_slot *slots)
{
    const bench_opts *o = ctx->opts;
    int rc = 0;
    for (int k = 0; k < o->ncandidates; k++) {
        const bench_candidate *cd = &bench_candidates[o->candidates[k]];
        slots[k] = (bench_slot){.ran = bench_ran_index("unknown")};
        comms[k] = MPI_COMM_NULL;
        if (rc || MPI_Comm_dup(ctx->comm, &comms[k]) != MPI_SUCCESS) {
            rc = -1;
            continue;
        }
        if (!ctx->have_hrelay && !cd->pmpi && strcmp(cd->name, "native"))
            slots[k].skipped = 1;
        else if (bench_select(ctx->hrelay, o->candidates[k], comms[k]) != 0)
            slots[k].refused = 1;
        if (slots[k].refused && ctx->rank == 0)
            fprintf(stderr, "alltoallv_bench: hrelay refused the family %s\n", cd->name);
        slots[k].active = !slots[k].skipped && !slots[k].refused;
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

/* Whether round r of `rounds` compares the results with PMPI's. */
static int checked_round(const bench_ctx *ctx, const bench_sequence *seq, int r, int rounds)
{
    int every = ctx->opts->check_every;
    return r == 0 || r == rounds - 1 || (seq->drift && every > 0 && r % every == 0);
}

/* The state of one round: what it runs and what it found (this rank's view). */
typedef struct round_ctx {
    bench_exchange *x;
    const MPI_Comm *comms;
    const char *pattern;
    uint64_t bytes;
    int run, r, call, checked; /* run: the bench's run (--runs), r: the round */
    int *wrong; /* per slot: this rank saw a wrong result or a failed call */
} round_ctx;

/* One call of slot k in round rc->r, timed into the local log l (t, cpu, span, ran); checked
 * against x->ref when the round is. */
static void one_call(bench_ctx *ctx, const round_ctx *rc, int k, bench_log *l)
{
    const bench_candidate *cd = &bench_candidates[ctx->opts->candidates[k]];
    int c = ctx->opts->candidates[k];
    size_t i = (size_t)rc->r * (size_t)l->nslots + (size_t)k;
    if (rc->checked)
        bench_exchange_poison(rc->x);
    MPI_Barrier(rc->comms[k]);
    /* the CPU clock is a system call: read it outside the timed span */
    double w0 = MPI_Wtime(), c0 = bench_cpu_now(), t0 = MPI_Wtime();
    int err = bench_call(c, rc->x, rc->comms[k]);
    double t1 = MPI_Wtime(), c1 = bench_cpu_now(), w1 = MPI_Wtime();
    l->t[i] = t1 - t0;
    l->cpu[i] = c1 - c0;
    l->span[i] = w1 - w0;
    const char *ran = bench_ran(ctx->hrelay, c, rc->comms[k]);
    l->ran[i] = bench_ran_index(ran);
    if (err != MPI_SUCCESS) {
        rc->wrong[k] = 1;
        fprintf(stderr, "alltoallv_bench: rank %d: %s, %llu bytes per rank, call %d: %s failed "
                        "(MPI error %d)\n",
                ctx->rank, rc->pattern, (unsigned long long)rc->bytes, rc->call, cd->name, err);
        return;
    }
    if (!rc->checked)
        return;
    if (ctx->opts->inject_error && !ctx->injected && cd->family) {
        ctx->injected = 1;
        if (ctx->rank == ctx->p - 1)
            ((unsigned char *)rc->x->rbuf)[0] ^= 0xff;
    }
    if (bench_exchange_differs(rc->x)) {
        rc->wrong[k] = 1;
        bench_exchange_report(rc->x, ctx->p, ctx->rank, rc->pattern, rc->bytes, rc->call,
                              cd->name, ran);
    }
}

/* Whether slot k is one that `only` names (-1: every slot). */
static int named(int only, int k)
{
    return only < 0 || k == only;
}

/* Round rc->r of slot `only` (-1: of every slot): one call of every active slot it names, in
 * the round's order; after a checked round the wrong flags are agreed over ranks and counted
 * into the slots named, and after the first round each such slot's first ran (rank 0's) is
 * known on every rank. Collective. */
static void one_round(bench_ctx *ctx, const round_ctx *rc, bench_slot *slots, bench_log *l,
                      int only)
{
    int n = l->nslots, order[BENCH_MAX_CANDIDATES];
    bench_call_order(ctx->opts, rc->run, rc->r, order, n);
    for (int step = 0; step < n; step++)
        if (slots[order[step]].active && named(only, order[step]))
            one_call(ctx, rc, order[step], l);
    if (!rc->checked)
        return;
    int wrong[BENCH_MAX_CANDIDATES];
    MPI_Allreduce(rc->wrong, wrong, n, MPI_INT, MPI_MAX, ctx->comm);
    for (int k = 0; k < n; k++)
        if (named(only, k)) {
            slots[k].wrong |= wrong[k];
            slots[k].checked += slots[k].active;
        }
    if (rc->r == 0) {
        int ran[BENCH_MAX_CANDIDATES];
        for (int k = 0; k < n; k++)
            ran[k] = slots[k].active ? l->ran[k] : slots[k].ran;
        MPI_Bcast(ran, n, MPI_INT, 0, ctx->comm);
        for (int k = 0; k < n; k++)
            if (named(only, k))
                slots[k].ran = ran[k];
    }
}

/* Allocates the log of `rounds` rounds of n slots (local: t, cpu, span, ran). Returns 0, or -1
 * if memory ran out on some rank (on every rank alike). */
static int log_alloc(bench_log *l, int rounds, int first_timed, int n, MPI_Comm comm)
{
    size_t total = (size_t)rounds * (size_t)n;
    *l = (bench_log){.rounds = rounds, .first_timed = first_timed, .nslots = n};
    l->t = calloc(total * 3, sizeof *l->t);
    l->ran = calloc(total, sizeof *l->ran);
    int ok = l->t && l->ran, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (all_ok) {
        l->cpu = l->t + total;
        l->span = l->cpu + total;
    }
    return all_ok ? 0 : -1;
}

/* Collective: replaces the local times with their maxima over ranks, the CPU seconds with
 * their sum, on rank 0. */
static void log_reduce(bench_log *l, const bench_ctx *ctx)
{
    int total = l->rounds * l->nslots, root = ctx->rank == 0;
    MPI_Reduce(root ? MPI_IN_PLACE : l->t, root ? l->t : NULL, total, MPI_DOUBLE, MPI_MAX, 0,
               ctx->comm);
    MPI_Reduce(root ? MPI_IN_PLACE : l->cpu, root ? l->cpu : NULL, total, MPI_DOUBLE, MPI_SUM, 0,
               ctx->comm);
    MPI_Reduce(root ? MPI_IN_PLACE : l->span, root ? l->span : NULL, total, MPI_DOUBLE, MPI_MAX,
               0, ctx->comm);
}

/* Collective: every round of seq's calls on the candidates' communicators in run `run`, of slot
 * `only` (-1: of every slot, in turns); fills slots and the log. */
static void run_rounds_of(bench_ctx *ctx, int run, const bench_sequence *seq, bench_exchange *x,
                          const MPI_Comm *comms, const char *pattern, uint64_t bytes,
                          bench_slot *slots, bench_log *l, int only)
{
    int lwrong[BENCH_MAX_CANDIDATES] = {0};
    for (int r = 0; r < l->rounds; r++) {
        round_ctx rc = {.x = x,
                        .comms = comms,
                        .pattern = pattern,
                        .bytes = bytes,
                        .run = run,
                        .r = r,
                        .call = bench_sequence_call(seq, r),
                        .checked = checked_round(ctx, seq, r, l->rounds),
                        .wrong = lwrong};
        if (r == 0 || seq->drift)
            bench_exchange_load(x, seq, rc.call, ctx->rank, ctx->opts->seed);
        if (rc.checked && (r == 0 || seq->drift))
            bench_exchange_reference(x, ctx->comm);
        one_round(ctx, &rc, slots, l, only);
        if (r == 0) /* only what ran itself correctly goes on */
            for (int k = 0; k < l->nslots; k++)
                if (named(only, k))
                    slots[k].active &=
                        !strcmp(bench_slot_status(&slots[k], ctx->opts->candidates[k]), "ok");
    }
}

/* Collective: run `run` of seq's calls on the candidates' communicators, in rounds (every
 * candidate one call, in turns) or with --order blocks candidate after candidate (each all its
 * calls in a row, in the run's order: what a program running one algorithm sees, the network's
 * state between its calls its own); fills slots and the log. */
static void run_rounds(bench_ctx *ctx, int run, const bench_sequence *seq, bench_exchange *x,
                       const MPI_Comm *comms, const char *pattern, uint64_t bytes,
                       bench_slot *slots, bench_log *l)
{
    if (!ctx->opts->blocks) {
        run_rounds_of(ctx, run, seq, x, comms, pattern, bytes, slots, l, -1);
        return;
    }
    int order[BENCH_MAX_CANDIDATES];
    bench_call_order(ctx->opts, run, 0, order, l->nslots);
    for (int pos = 0; pos < l->nslots; pos++)
        run_rounds_of(ctx, run, seq, x, comms, pattern, bytes, slots, l, order[pos]);
}

/* Run `run` (0, 1, ...) of seq's calls on fresh communicators into rows (rank 0) and the
 * slots' mismatch counts into wrong. Returns 0, or -1 if memory or a duplicate ran out (on every rank alike). */
static int measure_once(bench_ctx *ctx, int run, const char *pattern, uint64_t bytes,
                        const bench_sequence *seq, bench_exchange *x, bench_row *rows, int *wrong)
{
    const bench_opts *o = ctx->opts;
    int n = o->ncandidates, rounds = 2 + o->warmup + o->reps;
    bench_slot slots[BENCH_MAX_CANDIDATES];
    MPI_Comm comms[BENCH_MAX_CANDIDATES];
    bench_log l = {0};
    int ok = open_comms(ctx, comms, slots) == 0, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, ctx->comm);
    if (all_ok)
        all_ok = log_alloc(&l, rounds, 1 + o->warmup, n, ctx->comm) == 0;
    if (all_ok) {
        run_rounds(ctx, run, seq, x, comms, pattern, bytes, slots, &l);
        log_reduce(&l, ctx);
        if (ctx->calls)
            bench_calls_write(ctx->calls, ctx, pattern, bytes, run, seq, &l);
        all_ok = ctx->rank != 0 ||
                 bench_fill_rows(ctx, pattern, bytes, seq, slots, &l, rows) == 0;
        MPI_Bcast(&all_ok, 1, MPI_INT, 0, ctx->comm);
    }
    close_comms(comms, n);
    for (int k = 0; all_ok && k < n; k++)
        *wrong += slots[k].wrong;
    free(l.t);
    free(l.ran);
    return all_ok ? 0 : -1;
}

int bench_measure(bench_ctx *ctx, const char *pattern, uint64_t bytes, const bench_sequence *seq,
                  bench_row *rows)
{
    const bench_opts *o = ctx->opts;
    int n = o->ncandidates, wrong = 0;
    bench_exchange x;
    bench_row *runs = NULL;
    int ok = bench_exchange_alloc(&x, seq) == 0 &&
             (ctx->rank != 0 || o->runs == 1 ||
              (runs = malloc(sizeof *runs * (size_t)o->runs * (size_t)n)) != NULL),
        all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, ctx->comm);
    for (int j = 0; all_ok && j < o->runs; j++)
        all_ok = measure_once(ctx, j, pattern, bytes, seq, &x, runs ? runs + (size_t)j * n : rows,
                              &wrong) == 0;
    if (all_ok && runs)
        all_ok = bench_merge_runs(runs, o->runs, n, rows) == 0;
    if (o->runs > 1)
        MPI_Bcast(&all_ok, 1, MPI_INT, 0, ctx->comm);
    free(runs);
    bench_exchange_free(&x);
    return all_ok ? wrong : -1;
}
