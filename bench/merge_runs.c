/* The rows of one pattern and size measured --runs times over: each figure the median of the
 * runs' figures, so that a run the machine disturbed (a preempted rank, another job's burst)
 * moves no figure while exploration, which every run pays on its fresh communicators, stays
 * in every whole-run sum. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"

/* The median of the finite values among v[0 .. n) (reordered); NAN if there are none. */
static double median_finite(double *v, int n)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(v[i]))
            v[m++] = v[i];
    return m ? bench_quantiles_of(v, m).median : NAN;
}

/* Adds the '+'-separated names of ran to out (capacity cap) that it does not hold yet. */
static void ran_union(char *out, size_t cap, const char *ran)
{
    char copy[sizeof ((bench_row *)0)->ran];
    snprintf(copy, sizeof copy, "%s", ran);
    for (char *save = NULL, *t = strtok_r(copy, "+", &save); t; t = strtok_r(NULL, "+", &save)) {
        size_t len = strlen(out), tl = strlen(t);
        int seen = 0;
        for (const char *q = out; *q && !seen; q += strcspn(q, "+") + (q[strcspn(q, "+")] != 0))
            seen = strcspn(q, "+") == tl && !strncmp(q, t, tl);
        if (!seen)
            snprintf(out + len, cap - len, "%s%s", len ? "+" : "", t);
    }
}

/* The status of candidate k over the runs: the first that is not ok (WRONG before any other),
 * else ok. */
static const char *merged_status(const bench_row *runs, int nruns, int n, int k)
{
    const char *status = "ok";
    for (int j = 0; j < nruns; j++) {
        const char *s = runs[(size_t)j * n + k].status;
        if (!strcmp(s, "WRONG"))
            return s;
        if (!strcmp(status, "ok"))
            status = s;
    }
    return status;
}

/* The figures of a row that are the median of the runs'. */
static const size_t median_fields[] = {offsetof(bench_row, t.median),
                                       offsetof(bench_row, t.q1),
                                       offsetof(bench_row, t.q3),
                                       offsetof(bench_row, cpu_use),
                                       offsetof(bench_row, ratio_native),
                                       offsetof(bench_row, ratio_bound),
                                       offsetof(bench_row, ratio_node_bound),
                                       offsetof(bench_row, run_total_s),
                                       offsetof(bench_row, run_ratio_native),
                                       offsetof(bench_row, run_ratio_bound),
                                       offsetof(bench_row, run_ratio_steady)};

/* The figure of row r at offset off. */
static double *field(bench_row *r, size_t off)
{
    return (double *)((char *)r + off);
}

/* Its value in a row that is only read. */
static double value(const bench_row *r, size_t off)
{
    return *(const double *)((const char *)r + off);
}

int bench_merge_runs(const bench_row *runs, int nruns, int n, bench_row *rows)
{
    double *v = malloc(sizeof *v * (size_t)nruns);
    if (!v)
        return -1;
    for (int k = 0; k < n; k++) {
        bench_row *out = &rows[k];
        *out = runs[k];
        out->status = merged_status(runs, nruns, n, k);
        out->ran[0] = 0;
        out->checked = 0;
        for (int j = 0; j < nruns; j++) {
            const bench_row *r = &runs[(size_t)j * n + k];
            ran_union(out->ran, sizeof out->ran, r->ran);
            out->checked += r->checked;
            if (j > 0) {
                out->stalls = out->stalls < 0 || r->stalls < 0 ? -1 : out->stalls + r->stalls;
                out->plan_calls = out->plan_calls < 0 || r->plan_calls < 0
                                      ? -1
                                      : out->plan_calls + r->plan_calls;
                out->run_plan_saved_s += r->run_plan_saved_s;
                out->run_mpi_saved_s += r->run_mpi_saved_s;
                out->run_native_s += r->run_native_s;
            }
        }
        for (size_t f = 0; f < sizeof median_fields / sizeof *median_fields; f++) {
            for (int j = 0; j < nruns; j++)
                v[j] = value(&runs[(size_t)j * n + k], median_fields[f]);
            *field(out, median_fields[f]) = median_finite(v, nruns);
        }
        out->runs = nruns;
        out->run_ratio_native_lo = out->run_ratio_native_hi = NAN;
        int m = 0; /* the finite whole-run ratios, for their median's interval */
        for (int j = 0; j < nruns; j++) {
            const bench_row *r = &runs[(size_t)j * n + k];
            if (r->t.min < out->t.min)
                out->t.min = r->t.min;
            if (r->t.max > out->t.max)
                out->t.max = r->t.max;
            double x = r->run_ratio_native;
            if (!isfinite(x))
                continue;
            v[m++] = x;
            if (!(x >= out->run_ratio_native_lo))
                out->run_ratio_native_lo = x;
            if (!(x <= out->run_ratio_native_hi))
                out->run_ratio_native_hi = x;
        }
        out->run_ratio_ci_level = bench_median_interval(v, m, BENCH_MEDIAN_LEVEL,
                                                        &out->run_ratio_ci_lo,
                                                        &out->run_ratio_ci_hi);
    }
    free(v);
    return 0;
}
