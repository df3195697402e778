/* auto against native over the whole run: for every pattern and size, auto's summed time of
 * all its calls from the first on its fresh communicator (exploration included) over native's
 * of the same calls -- issue 14's criterion, "never more than 5 % slower than native over the
 * benchmark's whole run" -- one line each, the worst, and how many are within 5 %. Where pmpi
 * ran too, its ratio stands beside auto's: the same MPI call under two names, so how far it
 * is from 1 is how far the row's network moves a ratio by itself. The stalls of MPI's own
 * calls (--stall) are counted, auto's and native's, and the ratio given again with each
 * counted at its reference (native's median; drifting patterns: native's median time per
 * bound byte times the call's bound): a stall strikes whichever candidate's call met
 * it, while exploring (calls of a plan) is never discounted. With --runs 5 or more, each ratio
 * (a median of the runs') comes with the interval it lies in at 90 % confidence or more, and
 * the rows are counted by it: shown within 5 %, shown more than 5 % slower, or not decided by
 * the runs. */
#include <math.h>
#include <string.h>

#include "bench/bench.h"

/* The slowest auto may be against native over a whole run and still count as within. */
static const double within = 1.05;

void bench_run_ratio_add(bench_out *out, const bench_row *rows, int n)
{
    const bench_row *autor = NULL, *native = NULL, *pmpi = NULL;
    for (int k = 0; k < n; k++) {
        if (strcmp(rows[k].status, "ok"))
            continue;
        if (!strcmp(rows[k].algorithm, "auto"))
            autor = &rows[k];
        if (!strcmp(rows[k].algorithm, "native"))
            native = &rows[k];
        if (!strcmp(rows[k].algorithm, "pmpi"))
            pmpi = &rows[k];
    }
    if (!autor || !native || !isfinite(autor->run_ratio_native) ||
        out->nruns == (int)(sizeof out->runs / sizeof *out->runs))
        return;
    out->runs[out->nruns++] =
        (bench_run_ratio){.pattern = autor->pattern,
                          .bytes = autor->bytes_per_rank,
                          .ratio = autor->run_ratio_native,
                          .pmpi = pmpi ? pmpi->run_ratio_native : NAN,
                          .steady = autor->run_ratio_steady,
                          .stalls = autor->stalls,
                          .native_stalls = native->stalls,
                          .plan_calls = autor->plan_calls,
                          .plan_saving = autor->run_plan_saved_s / autor->run_native_s,
                          .mpi_saving = autor->run_mpi_saved_s / autor->run_native_s,
                          .calls = autor->run_calls,
                          .runs = autor->runs,
                          .ci_lo = autor->run_ratio_ci_lo,
                          .ci_hi = autor->run_ratio_ci_hi,
                          .ci_level = autor->run_ratio_ci_level};
}

/* How many of out->runs have an interval, and of those how many lie within 5 % (*shown_within)
 * and how many above it (*shown_slower). */
static int runs_by_interval(const bench_out *out, int *shown_within, int *shown_slower)
{
    int n = 0;
    *shown_within = *shown_slower = 0;
    for (int k = 0; k < out->nruns; k++) {
        if (!(out->runs[k].ci_level > 0))
            continue;
        n++;
        *shown_within += out->runs[k].ci_hi <= within;
        *shown_slower += out->runs[k].ci_lo > within;
    }
    return n;
}

/* The ratio of run k by which it counts: the steady one if `steady` and it has one. */
static double ratio_of(const bench_out *out, int k, int steady)
{
    return steady && isfinite(out->runs[k].steady) ? out->runs[k].steady : out->runs[k].ratio;
}

/* The index of the largest ratio of out->runs (ratio_of; -1 if there is none). */
static int worst_run(const bench_out *out, int steady)
{
    int worst = -1;
    for (int k = 0; k < out->nruns; k++)
        if (worst < 0 || ratio_of(out, k, steady) > ratio_of(out, worst, steady))
            worst = k;
    return worst;
}

/* How many of out->runs are within the 5 % (ratio_of). */
static int runs_within(const bench_out *out, int steady)
{
    int n = 0;
    for (int k = 0; k < out->nruns; k++)
        n += ratio_of(out, k, steady) <= within;
    return n;
}

/* Whether run k carries auto's split saving (plans' calls and MPI's). */
static int has_split(const bench_out *out, int k)
{
    return out->runs[k].plan_calls >= 0 && isfinite(out->runs[k].plan_saving);
}

/* Whether any of out->runs counted stalls. */
static int any_steady(const bench_out *out)
{
    for (int k = 0; k < out->nruns; k++)
        if (isfinite(out->runs[k].steady))
            return 1;
    return 0;
}

void bench_run_ratio_print(const bench_out *out)
{
    int worst = worst_run(out, 0), steady = any_steady(out);
    if (worst < 0) {
        printf("# auto / native over the whole run: no pattern and size with both\n");
        return;
    }
    printf("# auto / native over the whole run (every call from the first, exploration "
           "included):\n");
    int noise = 0, split = 0;
    for (int k = 0; k < out->nruns; k++) {
        printf("#   %-16s %10llu bytes per rank: %.3f over %d calls", out->runs[k].pattern,
               (unsigned long long)out->runs[k].bytes, out->runs[k].ratio, out->runs[k].calls);
        if (isfinite(out->runs[k].pmpi)) {
            printf(" (pmpi %.3f)", out->runs[k].pmpi);
            noise = 1;
        }
        if (isfinite(out->runs[k].steady))
            printf("; MPI's stalls: auto %d, native %d; without them %.3f", out->runs[k].stalls,
                   out->runs[k].native_stalls, out->runs[k].steady);
        if (has_split(out, k)) {
            split = 1;
            printf("; plans on %d of %d calls saving %.1f %%, MPI's calls %.1f %%",
                   out->runs[k].plan_calls, out->runs[k].calls * out->runs[k].runs,
                   100 * out->runs[k].plan_saving, 100 * out->runs[k].mpi_saving);
        }
        if (out->runs[k].ci_level > 0)
            printf("; median of %d runs, %.0f %% interval %.3f - %.3f", out->runs[k].runs,
                   100 * out->runs[k].ci_level, out->runs[k].ci_lo, out->runs[k].ci_hi);
        printf("%s\n", out->runs[k].ratio > within ? "  (more than 5 % slower)" : "");
    }
    if (noise)
        printf("#   (pmpi: MPI's own call under another name against native, the same call: how "
               "far it is from 1.000 the network moves a ratio by itself)\n");
    if (split)
        printf(
            "#   (plans on N of M calls saving X %%, MPI's calls Y %%: over all runs, auto's calls "
            "that ran a plan, and the time native's calls of the same rounds took more than "
            "auto's, over native's whole time, for those calls and for auto's calls of MPI's own "
            "algorithm: X + Y is auto's saving; Y is MPI against itself)\n");
    if (steady)
        printf("#   (MPI's stalls: calls of MPI's own algorithm over %g x native's median and "
               "%g ms over it (drifting patterns: native's median per bound byte times the "
               "call's bound), a lost packet's retransmission on a TCP network; without them: "
               "each counted at that reference, auto's and native's alike, exploring never)\n",
               out->stall_factor, out->stall_floor_s * 1e3);
    printf("# auto / native over the whole run: worst %.3f (%s, %llu bytes per rank); %d of %d "
           "pattern/size pairs within 5 %%",
           out->runs[worst].ratio, out->runs[worst].pattern,
           (unsigned long long)out->runs[worst].bytes, runs_within(out, 0), out->nruns);
    if (steady) {
        int w = worst_run(out, 1);
        printf("; without MPI's stalls: worst %.3f (%s, %llu bytes per rank), %d of %d within 5 %%",
               ratio_of(out, w, 1), out->runs[w].pattern, (unsigned long long)out->runs[w].bytes,
               runs_within(out, 1), out->nruns);
    }
    printf("\n");
    int shown_within, shown_slower, decided = runs_by_interval(out, &shown_within, &shown_slower);
    if (decided)
        printf("# by the intervals of the runs' medians (at least %.0f %% confidence): %d of %d "
               "shown within 5 %%, %d shown more than 5 %% slower, %d not decided by the runs\n",
               100 * BENCH_MEDIAN_LEVEL, shown_within, decided, shown_slower,
               decided - shown_within - shown_slower);
}

void bench_run_ratio_json(const bench_out *out, FILE *f)
{
    int worst = worst_run(out, 0);
    fputs(", \"auto_vs_native_run\": {\"pairs\": [", f);
    for (int k = 0; k < out->nruns; k++) {
        fprintf(f, "%s{\"pattern\": \"%s\", \"bytes_per_rank\": %llu, \"ratio\": %.9g, ",
                k ? ", " : "", out->runs[k].pattern, (unsigned long long)out->runs[k].bytes,
                out->runs[k].ratio);
        if (isfinite(out->runs[k].pmpi))
            fprintf(f, "\"pmpi_ratio\": %.9g, ", out->runs[k].pmpi);
        if (isfinite(out->runs[k].steady))
            fprintf(f, "\"steady_ratio\": %.9g, \"stalls\": %d, \"native_stalls\": %d, ",
                    out->runs[k].steady, out->runs[k].stalls, out->runs[k].native_stalls);
        if (has_split(out, k))
            fprintf(f, "\"plan_calls\": %d, \"plan_saving\": %.9g, \"mpi_saving\": %.9g, ",
                    out->runs[k].plan_calls, out->runs[k].plan_saving, out->runs[k].mpi_saving);
        fprintf(f, "\"calls\": %d, \"runs\": %d", out->runs[k].calls, out->runs[k].runs);
        if (out->runs[k].ci_level > 0)
            fprintf(f, ", \"ci_lo\": %.9g, \"ci_hi\": %.9g, \"ci_level\": %.9g", out->runs[k].ci_lo,
                    out->runs[k].ci_hi, out->runs[k].ci_level);
        fputc('}', f);
    }
    fprintf(f, "], \"within_5_percent\": %d", runs_within(out, 0));
    int shown_within, shown_slower;
    if (runs_by_interval(out, &shown_within, &shown_slower))
        fprintf(f, ", \"shown_within_5_percent\": %d, \"shown_slower_5_percent\": %d", shown_within,
                shown_slower);
    if (any_steady(out))
        fprintf(f,
                ", \"steady_within_5_percent\": %d, \"stall_factor\": %.9g, "
                "\"stall_floor_s\": %.9g",
                runs_within(out, 1), out->stall_factor, out->stall_floor_s);
    if (worst >= 0)
        fprintf(f, ", \"worst\": {\"pattern\": \"%s\", \"bytes_per_rank\": %llu, \"ratio\": %.9g}",
                out->runs[worst].pattern, (unsigned long long)out->runs[worst].bytes,
                out->runs[worst].ratio);
    fputs("}", f);
}
