/* The table rows of one pattern and size from the log of its calls: medians of the timed
 * calls, the per-call lower bounds (rank and node level), CPU use, and the whole run -- every
 * call from the first on the candidate's fresh communicator, warm-up (exploration) and checked
 * calls included -- summed and set against native's and against the bounds, and again with
 * MPI's stalls (--stall) counted at native's median (drifting patterns: native's median time
 * per bound byte times the call's bound). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"

const char *bench_slot_status(const bench_slot *s, int candidate)
{
    const bench_candidate *cd = &bench_candidates[candidate];
    if (s->skipped)
        return "no-hrelay";
    if (s->refused)
        return "refused";
    if (s->wrong)
        return "WRONG";
    if (cd->family && strcmp(bench_ran_name(s->ran), cd->name))
        return "n/a";
    return "ok";
}

/* "a", or "a+b+..." for the distinct ran names of ran[0, stride, 2 stride, ...) (n of them) in
 * order of appearance. */
static void ran_summary(const int *ran, int n, int stride, char *out, size_t cap)
{
    out[0] = 0;
    for (int r = 0; r < n; r++) {
        int seen = 0;
        for (int e = 0; e < r && !seen; e++)
            seen = ran[e * stride] == ran[r * stride];
        if (!seen) {
            size_t len = strlen(out);
            snprintf(out + len, cap - len, "%s%s%s", len ? "+" : "",
                     bench_ran_name(ran[r * stride]), bench_ran_variant(ran[r * stride]));
        }
    }
}

/* Seconds of `bytes` at rate_bps; NAN when the rate is unknown. */
static double seconds(uint64_t bytes, double rate_bps)
{
    return rate_bps > 0 ? (double)bytes * 8 / rate_bps : NAN;
}

/* The bounds of the timed calls shared by every row: the medians over those calls of the rank
 * and node bounds (bytes and seconds). */
static void timed_bounds(const bench_ctx *ctx, const bench_sequence *seq, const bench_log *l,
                         bench_row *base, double *scratch)
{
    int reps = ctx->opts->reps;
    const uint64_t *which[2] = {seq->bound_bytes, seq->node_bytes};
    uint64_t med[2];
    for (int b = 0; b < 2; b++) {
        for (int r = 0; r < reps; r++)
            scratch[r] = (double)which[b][bench_sequence_call(seq, l->first_timed + r)];
        med[b] = (uint64_t)llround(bench_quantiles_of(scratch, reps).median);
    }
    base->bound_bytes = med[0];
    base->bound_s = seconds(med[0], ctx->rate_bps);
    base->bound_node_bytes = med[1];
    base->bound_node_s = seconds(med[1], ctx->rate_bps);
}

/* The median over the timed calls of slot k of each call's time over its bound (bounds: the
 * per-call bytes in `bound`, in seconds at rate_bps; 8: the bound in bytes), calls with a zero
 * bound left out; NAN if none is left or the rate is unknown. */
static double median_ratio(const bench_ctx *ctx, const bench_sequence *seq, const bench_log *l,
                           int k, const uint64_t *bound, double rate_bps, double *scratch)
{
    int n = 0;
    for (int r = 0; r < ctx->opts->reps; r++) {
        int round = l->first_timed + r;
        double b = seconds(bound[bench_sequence_call(seq, round)], rate_bps);
        if (b > 0)
            scratch[n++] = l->t[(size_t)round * l->nslots + k] / b;
    }
    return n > 0 ? bench_quantiles_of(scratch, n).median : NAN;
}

/* Fills the timed and whole-run figures of row from slot k's calls. */
static void timed_row(const bench_ctx *ctx, const bench_sequence *seq, const bench_log *l, int k,
                      bench_row *row, double *scratch)
{
    int reps = ctx->opts->reps, n = l->nslots;
    double wall = 0, busy = 0, total = 0, bound_total = 0;
    for (int r = 0; r < reps; r++) {
        size_t i = (size_t)(l->first_timed + r) * n + k;
        wall += l->span[i];
        busy += l->cpu[i];
        scratch[r] = l->t[i];
    }
    row->cpu_use = wall > 0 ? busy / wall : NAN;
    row->reps = reps;
    row->t = bench_quantiles_of(scratch, reps);
    ran_summary(l->ran + (size_t)l->first_timed * n + k, reps, n, row->ran, sizeof row->ran);
    row->ratio_bound = median_ratio(ctx, seq, l, k, seq->bound_bytes, ctx->rate_bps, scratch);
    row->ratio_node_bound = median_ratio(ctx, seq, l, k, seq->node_bytes, ctx->rate_bps, scratch);
    for (int r = 0; r < l->rounds; r++) {
        total += l->t[(size_t)r * n + k];
        bound_total += seconds(seq->bound_bytes[bench_sequence_call(seq, r)], ctx->rate_bps);
    }
    row->run_calls = l->rounds;
    row->run_total_s = total;
    row->run_ratio_bound = bound_total > 0 ? total / bound_total : NAN;
}

/* Whether a call that ran `ran` (a bench_ran_index) ran MPI's own algorithm. */
static int ran_mpi(int ran)
{
    const char *name = bench_ran_name(ran);
    return !strcmp(name, "native") || !strcmp(name, "pmpi") || !strcmp(name, "mpi");
}

/* Slot k's whole run against native's (slot native, whose row is nrow), round by round, into
 * row: its calls that ran a plan, the seconds native's calls of those rounds took more, the
 * same of its calls that ran MPI's own algorithm, and native's total. */
static void split_saving(const bench_log *l, int k, int native, const bench_row *nrow,
                         bench_row *row)
{
    row->plan_calls = 0;
    row->run_plan_saved_s = row->run_mpi_saved_s = 0;
    row->run_native_s = nrow->run_total_s;
    for (int r = 0; r < l->rounds; r++) {
        size_t i = (size_t)r * l->nslots;
        double saved = l->t[i + native] - l->t[i + k];
        if (ran_mpi(l->ran[i + k])) {
            row->run_mpi_saved_s += saved;
        } else {
            row->plan_calls++;
            row->run_plan_saved_s += saved;
        }
    }
}

/* The stalls of slot k's whole run into row, and the time of its calls with each stall
 * counted at its reference (the return value): by o's --stall rule against `ref` per call
 * (fixed patterns: native's median) or, where `per_byte` is finite (drifting patterns),
 * against per_byte times the call's bound, a call of zero bound never a stall. */
static double count_stalls(const bench_opts *o, const bench_sequence *seq, const bench_log *l,
                           int k, double ref, double per_byte, bench_row *row)
{
    double steady = 0;
    row->stalls = 0;
    for (int r = 0; r < l->rounds; r++) {
        size_t i = (size_t)r * l->nslots + k;
        double at = isfinite(per_byte)
                        ? per_byte * (double)seq->bound_bytes[bench_sequence_call(seq, r)]
                        : ref;
        int stall = at > 0 && ran_mpi(l->ran[i]) && l->t[i] > o->stall_factor * at &&
                    l->t[i] - at > o->stall_floor_s;
        row->stalls += stall;
        steady += stall ? at : l->t[i];
    }
    return steady;
}

int bench_fill_rows(const bench_ctx *ctx, const char *pattern, uint64_t bytes,
                    const bench_sequence *seq, const bench_slot *slots, const bench_log *l,
                    bench_row *rows)
{
    const bench_opts *o = ctx->opts;
    int native = -1;
    double *scratch = malloc(sizeof *scratch * (size_t)(o->reps + 1));
    bench_row base = {.pattern = pattern, .p = ctx->p, .bytes_per_rank = bytes};
    if (!scratch)
        return -1;
    timed_bounds(ctx, seq, l, &base, scratch);
    for (int k = 0; k < o->ncandidates; k++) {
        const bench_candidate *cd = &bench_candidates[o->candidates[k]];
        bench_row *row = &rows[k];
        *row = base;
        row->algorithm = cd->name;
        row->status = bench_slot_status(&slots[k], o->candidates[k]);
        row->t = (bench_quantiles){NAN, NAN, NAN, NAN, NAN};
        row->cpu_use = row->ratio_native = row->ratio_bound = row->ratio_node_bound = NAN;
        row->run_total_s = row->run_ratio_native = row->run_ratio_bound = NAN;
        row->run_ratio_native_lo = row->run_ratio_native_hi = row->run_ratio_steady = NAN;
        row->run_ratio_ci_lo = row->run_ratio_ci_hi = NAN;
        row->run_ratio_ci_level = 0;
        row->stalls = row->plan_calls = -1;
        row->run_plan_saved_s = row->run_mpi_saved_s = row->run_native_s = NAN;
        row->runs = 1;
        row->checked = slots[k].checked;
        int shown = !slots[k].skipped && !slots[k].refused;
        snprintf(row->ran, sizeof row->ran, "%s%s", shown ? bench_ran_name(slots[k].ran) : "",
                 shown ? bench_ran_variant(slots[k].ran) : "");
        if (strcmp(row->status, "ok")) /* not timed, or wrong in a later check */
            continue;
        timed_row(ctx, seq, l, k, row, scratch);
        if (!strcmp(cd->name, "native"))
            native = k;
    }
    double ref = native >= 0 ? rows[native].t.median : NAN, native_steady = NAN;
    /* a drifting call's reference: native's median seconds per bound byte times its bound */
    double per_byte = native >= 0 && seq->drift
                          ? median_ratio(ctx, seq, l, native, seq->bound_bytes, 8, scratch)
                          : NAN;
    int steady = native >= 0 && (!seq->drift || isfinite(per_byte));
    if (steady)
        native_steady = count_stalls(o, seq, l, native, ref, per_byte, &rows[native]);
    for (int k = 0; native >= 0 && k < o->ncandidates; k++)
        if (!strcmp(rows[k].status, "ok")) {
            rows[k].ratio_native = rows[k].t.median / ref;
            rows[k].run_ratio_native = rows[k].run_total_s / rows[native].run_total_s;
            rows[k].run_ratio_native_lo = rows[k].run_ratio_native_hi = rows[k].run_ratio_native;
            if (steady)
                rows[k].run_ratio_steady = count_stalls(o, seq, l, k, ref, per_byte, &rows[k]) /
                                           native_steady;
            if (k != native)
                split_saving(l, k, native, &rows[native], &rows[k]);
        }
    free(scratch);
    return 0;
}
