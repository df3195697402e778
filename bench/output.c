/* The benchmark's output on rank 0: a text table on stdout, CSV and JSON files. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"

static const char *const csv_header =
    "pattern,ranks,bytes_per_rank,algorithm,ran,status,reps,median_s,q1_s,q3_s,min_s,"
    "lower_bound_s,bound_bytes,ratio_to_native,ratio_to_bound,cpu_use,bound_node_s,"
    "bound_node_bytes,ratio_node_bound,run_calls,run_total_s,run_ratio_native,run_ratio_bound,"
    "checked_calls,runs,run_ratio_native_lo,run_ratio_native_hi,stalls,run_ratio_steady,"
    "run_ratio_ci_lo,run_ratio_ci_hi,run_ratio_ci_level\n";

/* Writes s as a JSON string. */
static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

/* Writes x as a JSON number, null when not finite. */
static void json_number(FILE *f, double x)
{
    if (isfinite(x))
        fprintf(f, "%.9g", x);
    else
        fputs("null", f);
}

/* Writes the member ', "key": "s"' (first: without the comma; s NULL: null). */
static void json_str_member(FILE *f, int first, const char *key, const char *s)
{
    fprintf(f, "%s\"%s\": ", first ? "" : ", ", key);
    if (s)
        json_string(f, s);
    else
        fputs("null", f);
}

/* Writes the member ', "key": x' (null when x is not finite). */
static void json_num_member(FILE *f, const char *key, double x)
{
    fprintf(f, ", \"%s\": ", key);
    json_number(f, x);
}

/* Writes x to a CSV field, empty when not finite. */
static void csv_number(FILE *f, double x)
{
    if (isfinite(x))
        fprintf(f, "%.9g", x);
}

int bench_out_open(bench_out *out, const bench_opts *o, const bench_meta *meta,
                   const char **failed)
{
    memset(out, 0, sizeof *out);
    out->quiet = o->quiet;
    out->stall_factor = o->stall_factor;
    out->stall_floor_s = o->stall_floor_s;
    if (o->csv && !(out->csv = fopen(o->csv, "w"))) {
        *failed = o->csv;
        return -1;
    }
    if (o->json && !(out->json = fopen(o->json, "w"))) {
        int e = errno;
        if (out->csv)
            fclose(out->csv);
        out->csv = NULL;
        errno = e;
        *failed = o->json;
        return -1;
    }
    if (o->calls && !(out->calls = fopen(o->calls, "w"))) {
        int e = errno;
        if (out->csv)
            fclose(out->csv);
        if (out->json)
            fclose(out->json);
        out->csv = out->json = NULL;
        errno = e;
        *failed = o->calls;
        return -1;
    }
    if (out->calls)
        fputs(bench_calls_header, out->calls);
    if (out->csv)
        fputs(csv_header, out->csv);
    if (out->json) {
        FILE *f = out->json;
        fputs("{\"meta\": {", f);
        json_str_member(f, 1, "command", meta->command);
        fprintf(f, ", \"ranks\": %d, \"hrelay\": %s", meta->p, meta->hrelay ? "true" : "false");
        json_str_member(f, 0, "hrelay_version", meta->hrelay_version);
        json_str_member(f, 0, "mpi_library", meta->mpi_library);
        json_str_member(f, 0, "ucx_tls", meta->ucx_tls);
        json_num_member(f, "rate_bps", meta->rate_bps);
        json_str_member(f, 0, "rate_source", meta->rate_how);
        fprintf(f, ", \"nodes\": %d", meta->nodes);
        json_str_member(f, 0, "node_layout", meta->nodes_how);
        fprintf(f,
                ", \"duplex\": \"%s\", \"seed\": %llu, \"reps\": %d, \"runs\": %d, "
                "\"warmup\": %d, \"check_every\": %d, \"order\": \"%s\", "
                "\"online_cpus\": %ld},\n",
                meta->half_duplex ? "half" : "full", (unsigned long long)meta->seed, meta->reps,
                meta->runs, meta->warmup, meta->check_every, meta->blocks ? "blocks" : "rounds",
                meta->online_cpus);
        fputs(" \"rows\": [", f);
    }
    if (!o->quiet) {
        char runs_note[160] = "";
        if (meta->runs > 1)
            snprintf(runs_note, sizeof runs_note,
                     "; every pattern and size measured %d times over on fresh communicators, "
                     "each figure the median of the %d runs'", meta->runs, meta->runs);
        printf("# alltoallv_bench: %s\n# %d ranks, hrelay %s, %s\n# link rate %.4g bit/s (%s), "
               "%s duplex bound, %d repetitions after %d warm-up calls, seed %llu%s%s\n"
               "# nodes (one NIC each, for the node-level bound): %s\n",
               meta->command, meta->p, meta->hrelay ? meta->hrelay_version : "not loaded",
               meta->mpi_library, meta->rate_bps, meta->rate_how,
               meta->half_duplex ? "half" : "full", meta->reps, meta->warmup,
               (unsigned long long)meta->seed, runs_note,
               meta->blocks ? "; each candidate's calls in a block (--order blocks)" : "",
               meta->nodes_how);
        fflush(stdout);
    }
    return 0;
}

/* One row as a JSON object. */
static void json_row(FILE *f, const bench_row *r)
{
    fputc('{', f);
    json_str_member(f, 1, "pattern", r->pattern);
    fprintf(f, ", \"ranks\": %d, \"bytes_per_rank\": %llu", r->p,
            (unsigned long long)r->bytes_per_rank);
    json_str_member(f, 0, "algorithm", r->algorithm);
    json_str_member(f, 0, "ran", r->ran);
    json_str_member(f, 0, "status", r->status);
    fprintf(f, ", \"reps\": %d", r->reps);
    json_num_member(f, "median_s", r->t.median);
    json_num_member(f, "q1_s", r->t.q1);
    json_num_member(f, "q3_s", r->t.q3);
    json_num_member(f, "min_s", r->t.min);
    json_num_member(f, "lower_bound_s", r->bound_s);
    fprintf(f, ", \"bound_bytes\": %llu", (unsigned long long)r->bound_bytes);
    json_num_member(f, "ratio_to_native", r->ratio_native);
    json_num_member(f, "ratio_to_bound", r->ratio_bound);
    json_num_member(f, "cpu_use", r->cpu_use);
    json_num_member(f, "bound_node_s", r->bound_node_s);
    fprintf(f, ", \"bound_node_bytes\": %llu", (unsigned long long)r->bound_node_bytes);
    json_num_member(f, "ratio_node_bound", r->ratio_node_bound);
    fprintf(f, ", \"run_calls\": %d", r->run_calls);
    json_num_member(f, "run_total_s", r->run_total_s);
    json_num_member(f, "run_ratio_native", r->run_ratio_native);
    json_num_member(f, "run_ratio_bound", r->run_ratio_bound);
    fprintf(f, ", \"checked_calls\": %d, \"runs\": %d", r->checked, r->runs);
    json_num_member(f, "run_ratio_native_lo", r->run_ratio_native_lo);
    json_num_member(f, "run_ratio_native_hi", r->run_ratio_native_hi);
    if (r->stalls >= 0)
        fprintf(f, ", \"stalls\": %d", r->stalls);
    json_num_member(f, "run_ratio_steady", r->run_ratio_steady);
    json_num_member(f, "run_ratio_ci_lo", r->run_ratio_ci_lo);
    json_num_member(f, "run_ratio_ci_hi", r->run_ratio_ci_hi);
    json_num_member(f, "run_ratio_ci_level", r->run_ratio_ci_level);
    fputc('}', f);
}

/* One row as a CSV line. */
static void csv_row(FILE *f, const bench_row *r)
{
    fprintf(f, "%s,%d,%llu,%s,%s,%s,%d,", r->pattern, r->p,
            (unsigned long long)r->bytes_per_rank, r->algorithm, r->ran, r->status, r->reps);
    double values[] = {r->t.median, r->t.q1, r->t.q3, r->t.min, r->bound_s};
    for (int k = 0; k < 5; k++) {
        csv_number(f, values[k]);
        fputc(',', f);
    }
    fprintf(f, "%llu,", (unsigned long long)r->bound_bytes);
    double more[] = {r->ratio_native, r->ratio_bound, r->cpu_use, r->bound_node_s};
    for (int k = 0; k < 4; k++) {
        csv_number(f, more[k]);
        fputc(',', f);
    }
    fprintf(f, "%llu,", (unsigned long long)r->bound_node_bytes);
    csv_number(f, r->ratio_node_bound);
    fprintf(f, ",%d,", r->run_calls);
    double run[] = {r->run_total_s, r->run_ratio_native, r->run_ratio_bound};
    for (int k = 0; k < 3; k++) {
        csv_number(f, run[k]);
        fputc(',', f);
    }
    fprintf(f, "%d,%d,", r->checked, r->runs);
    csv_number(f, r->run_ratio_native_lo);
    fputc(',', f);
    csv_number(f, r->run_ratio_native_hi);
    fputc(',', f);
    if (r->stalls >= 0)
        fprintf(f, "%d", r->stalls);
    fputc(',', f);
    csv_number(f, r->run_ratio_steady);
    double ci[] = {r->run_ratio_ci_lo, r->run_ratio_ci_hi, r->run_ratio_ci_level};
    for (int k = 0; k < 3; k++) {
        fputc(',', f);
        csv_number(f, ci[k]);
    }
    fputc('\n', f);
}

/* Microseconds for the text table, "-" when unknown. */
static void text_us(double s)
{
    if (isfinite(s))
        printf(" %11.2f", s * 1e6);
    else
        printf(" %11s", "-");
}

/* A ratio for the text table, "-" when unknown. */
static void text_ratio(double x, int width)
{
    if (isfinite(x))
        printf(" %*.3f", width, x);
    else
        printf(" %*s", width, "-");
}

/* " = X us" for the text table when s is known. */
static void text_bound_us(double s)
{
    if (isfinite(s))
        printf(" = %.2f us", s * 1e6);
}

/* The range of the per-call lower bounds of a drifting sequence, for the text table. */
static void text_drift(const bench_sequence *seq)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int n = 0; n < seq->ncalls; n++) {
        lo = seq->bound_bytes[n] < lo ? seq->bound_bytes[n] : lo;
        hi = seq->bound_bytes[n] > hi ? seq->bound_bytes[n] : hi;
    }
    printf("drifting: %d calls, a new matrix each, lower bound per call %llu .. %llu bytes; "
           "bounds below are medians over the timed calls\n",
           seq->ncalls, (unsigned long long)lo, (unsigned long long)hi);
}

/* The rows of one pattern and size as a text table. */
static void text_rows(const bench_row *rows, int n, const char *desc, const bench_sequence *seq)
{
    const bench_row *r0 = &rows[0];
    printf("\n== %s, %llu bytes per rank, P = %d (%s)\n", r0->pattern,
           (unsigned long long)r0->bytes_per_rank, r0->p, desc);
    if (seq->drift)
        text_drift(seq);
    printf("lower bound %llu bytes", (unsigned long long)r0->bound_bytes);
    text_bound_us(r0->bound_s);
    printf(", node-level bound %llu bytes", (unsigned long long)r0->bound_node_bytes);
    text_bound_us(r0->bound_node_s);
    printf("; whole run: %d calls per candidate\n", r0->run_calls);
    int range = r0->runs > 1;
    printf("%-14s %-16s %-9s %11s %11s %11s %11s %9s %9s %6s %8s %8s%s %6s %8s\n", "algorithm",
           "ran", "status", "median_us", "q1_us", "q3_us", "min_us", "x_native", "x_bound", "cpu",
           "x_node", "x_run", range ? "  x_run_lo x_run_hi" : "", "stalls", "x_steady");
    for (int k = 0; k < n; k++) {
        const bench_row *r = &rows[k];
        printf("%-14s %-16s %-9s", r->algorithm, r->ran, r->status);
        text_us(r->t.median);
        text_us(r->t.q1);
        text_us(r->t.q3);
        text_us(r->t.min);
        text_ratio(r->ratio_native, 9);
        text_ratio(r->ratio_bound, 9);
        text_ratio(r->cpu_use, 6);
        text_ratio(r->ratio_node_bound, 8);
        text_ratio(r->run_ratio_native, 8);
        if (range) {
            text_ratio(r->run_ratio_native_lo, 9);
            text_ratio(r->run_ratio_native_hi, 8);
        }
        if (r->stalls >= 0)
            printf(" %6d", r->stalls);
        else
            printf(" %6s", "-");
        text_ratio(r->run_ratio_steady, 8);
        printf("\n");
    }
    fflush(stdout);
}

void bench_out_rows(bench_out *out, const bench_row *rows, int n, const char *pattern_desc,
                    const bench_sequence *seq)
{
    bench_run_ratio_add(out, rows, n);
    if (!out->quiet)
        text_rows(rows, n, pattern_desc, seq);
    for (int k = 0; k < n; k++) {
        if (out->csv)
            csv_row(out->csv, &rows[k]);
        if (out->json) {
            fputs(out->rows_written ? ",\n  " : "\n  ", out->json);
            json_row(out->json, &rows[k]);
        }
        out->rows_written++;
    }
    if (out->csv)
        fflush(out->csv);
    if (out->json)
        fflush(out->json);
}

void bench_out_skipped(bench_out *out, const char *pattern, uint64_t bytes, const char *why)
{
    if (!out->quiet) {
        printf("\n== %s, %llu bytes per rank: not run: %s\n", pattern, (unsigned long long)bytes,
               why);
        fflush(stdout);
    }
    size_t len = strlen(out->skipped);
    snprintf(out->skipped + len, sizeof out->skipped - len,
             "%s{\"pattern\": \"%s\", \"bytes_per_rank\": %llu, \"why\": ", len ? ", " : "",
             pattern, (unsigned long long)bytes);
    len = strlen(out->skipped);
    /* why comes from the patterns: plain text without quotes or backslashes */
    snprintf(out->skipped + len, sizeof out->skipped - len, "\"%s\"}", why);
}

int bench_out_close(bench_out *out, double cpu_s, double wall_s, long online_cpus, int p,
                    int failures)
{
    double use = wall_s > 0 ? cpu_s / wall_s : NAN;
    {
        printf("\n# CPU use of the run: %.1f CPU seconds (user + sys, all %d ranks) over %.1f s "
               "wall = %.2f cores busy (%ld online on rank 0's host)\n",
               cpu_s, p, wall_s, use, online_cpus);
        bench_run_ratio_print(out);
        printf("# %s\n", failures ? "RESULTS DIFFERED FROM PMPI's (see MISMATCH above)"
                                  : "every checked result equals PMPI's (PMPI_Alltoallv, or "
                                    "PMPI_Alltoall for alltoall, of the same call)");
        fflush(stdout);
    }
    int rc = 0;
    if (out->calls)
        rc |= fclose(out->calls);
    if (out->csv)
        rc |= fclose(out->csv);
    if (out->json) {
        FILE *f = out->json;
        fprintf(f, "\n ],\n \"skipped\": [%s],\n \"summary\": {\"cpu_s\": ", out->skipped);
        json_number(f, cpu_s);
        json_num_member(f, "wall_s", wall_s);
        json_num_member(f, "cpu_use", use);
        fprintf(f, ", \"online_cpus\": %ld, \"mismatches\": %d", online_cpus, failures);
        bench_run_ratio_json(out, f);
        fputs("}}\n", f);
        rc |= fclose(f);
    }
    out->csv = out->json = NULL;
    return rc ? -1 : 0;
}
