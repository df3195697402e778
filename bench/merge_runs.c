/* The rows of one pattern and size measured --runs times over: each figure the median of the
 * runs' figures, so that a run the machine disturbed (a preempted rank, another job's burst)
 * moves no figure while exploration, which every run pays on its fresh communicators, stays
 * in every whole-run sum. */
#include <math.h>
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
        }
        double *fields[] = {&out->t.median, &out->t.q1, &out->t.q3, &out->cpu_use,
                            &out->ratio_native, &out->ratio_bound, &out->ratio_node_bound,
                            &out->run_total_s, &out->run_ratio_native, &out->run_ratio_bound};
        for (size_t f = 0; f < sizeof fields / sizeof *fields; f++) {
            size_t off = (size_t)((char *)fields[f] - (char *)out);
            for (int j = 0; j < nruns; j++)
                v[j] = *(const double *)((const char *)&runs[(size_t)j * n + k] + off);
            *fields[f] = median_finite(v, nruns);
        }
        out->runs = nruns;
        out->run_ratio_native_lo = out->run_ratio_native_hi = NAN;
        for (int j = 0; j < nruns; j++) {
            const bench_row *r = &runs[(size_t)j * n + k];
            if (r->t.min < out->t.min)
                out->t.min = r->t.min;
            if (r->t.max > out->t.max)
                out->t.max = r->t.max;
            double x = r->run_ratio_native;
            if (isfinite(x) && !(x >= out->run_ratio_native_lo))
                out->run_ratio_native_lo = x;
            if (isfinite(x) && !(x <= out->run_ratio_native_hi))
                out->run_ratio_native_hi = x;
        }
    }
    free(v);
    return 0;
}
