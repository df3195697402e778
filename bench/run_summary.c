/* auto against native over the whole run: for every pattern and size, auto's summed time of
 * all its calls from the first on its fresh communicator (exploration included) over native's
 * of the same calls -- issue 14's criterion, "never more than 5 % slower than native over the
 * benchmark's whole run" -- one line each, the worst, and how many are within 5 %. Where pmpi
 * ran too, its ratio stands beside auto's: the same MPI call under two names, so how far it
 * is from 1 is how far the row's network moves a ratio by itself. */
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
    out->runs[out->nruns++] = (bench_run_ratio){.pattern = autor->pattern,
                                                .bytes = autor->bytes_per_rank,
                                                .ratio = autor->run_ratio_native,
                                                .pmpi = pmpi ? pmpi->run_ratio_native : NAN,
                                                .calls = autor->run_calls};
}

/* The index of the largest ratio of out->runs (-1 if there is none). */
static int worst_run(const bench_out *out)
{
    int worst = -1;
    for (int k = 0; k < out->nruns; k++)
        if (worst < 0 || out->runs[k].ratio > out->runs[worst].ratio)
            worst = k;
    return worst;
}

/* How many of out->runs are within the 5 %. */
static int runs_within(const bench_out *out)
{
    int n = 0;
    for (int k = 0; k < out->nruns; k++)
        n += out->runs[k].ratio <= within;
    return n;
}

void bench_run_ratio_print(const bench_out *out)
{
    int worst = worst_run(out);
    if (worst < 0) {
        printf("# auto / native over the whole run: no pattern and size with both\n");
        return;
    }
    printf("# auto / native over the whole run (every call from the first, exploration "
           "included):\n");
    int noise = 0;
    for (int k = 0; k < out->nruns; k++) {
        printf("#   %-16s %10llu bytes per rank: %.3f over %d calls", out->runs[k].pattern,
               (unsigned long long)out->runs[k].bytes, out->runs[k].ratio, out->runs[k].calls);
        if (isfinite(out->runs[k].pmpi)) {
            printf(" (pmpi %.3f)", out->runs[k].pmpi);
            noise = 1;
        }
        printf("%s\n", out->runs[k].ratio > within ? "  (more than 5 % slower)" : "");
    }
    if (noise)
        printf("#   (pmpi: MPI's own call under another name against native, the same call: how "
               "far it is from 1.000 the network moves a ratio by itself)\n");
    printf("# auto / native over the whole run: worst %.3f (%s, %llu bytes per rank); %d of %d "
           "pattern/size pairs within 5 %%\n",
           out->runs[worst].ratio, out->runs[worst].pattern,
           (unsigned long long)out->runs[worst].bytes, runs_within(out), out->nruns);
}

void bench_run_ratio_json(const bench_out *out, FILE *f)
{
    int worst = worst_run(out);
    fputs(", \"auto_vs_native_run\": {\"pairs\": [", f);
    for (int k = 0; k < out->nruns; k++) {
        fprintf(f, "%s{\"pattern\": \"%s\", \"bytes_per_rank\": %llu, \"ratio\": %.9g, ",
                k ? ", " : "", out->runs[k].pattern, (unsigned long long)out->runs[k].bytes,
                out->runs[k].ratio);
        if (isfinite(out->runs[k].pmpi))
            fprintf(f, "\"pmpi_ratio\": %.9g, ", out->runs[k].pmpi);
        fprintf(f, "\"calls\": %d}", out->runs[k].calls);
    }
    fprintf(f, "], \"within_5_percent\": %d", runs_within(out));
    if (worst >= 0)
        fprintf(f, ", \"worst\": {\"pattern\": \"%s\", \"bytes_per_rank\": %llu, \"ratio\": %.9g}",
                out->runs[worst].pattern, (unsigned long long)out->runs[worst].bytes,
                out->runs[worst].ratio);
    fputs("}", f);
}
