/* The JSON report rank 0 writes at MPI_Finalize (HRELAY_REPORT). Shape (README "The report"):
 *
 * {"version": "0.2.0", "mpi_library": "MPICH Version: 4.0.2", "ranks": 4,
 *  "config": {"algo": "auto", ..., "cost": {"alpha_s": 5e-06, ...}},
 *  "communicators": [{"size": 4, "nodes": 2, "ranks_per_node_min": 2, "ranks_per_node_max": 2,
 *                     "consecutive": true, "node_size": "auto", "count": 1, "calls": 30,
 *                     "patterns": 2, "node_patterns": 0, "private": 1, "declined": 0}, ...],
 *  "callsites": [{"site": "sort.c:120 exchange", "calls": 30, "bytes": 12345,
 *                 "algorithms": {"direct": 28, "native": 2}, "plans_computed": 2,
 *                 "cache_hits": 29, "unchecked": 0, "new_patterns": 1,
 *                 "decided_before_gather": 0, "explore_calls": 3, "explore_s": 0.0004,
 *                 "time_s": 0.0123, "native_s": 0.0201,
 *                 "saved_s": 0.0078, "modeled_native_s": 0.0198}, ...],
 *  "total": {the same fields over all sites, without "site"}}
 *
 * Sites are sorted by time_s, largest first; "callsites" is empty when no call was
 * intercepted; "algorithms" lists only families that ran at least one call. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hrelay.h"
#include "plan/json_out.h"
#include "shim/report.h"
#include "shim/run.h"

/* Writes a path setting: a JSON string, or null when unset. */
static void json_path(FILE *f, const char *s)
{
    if (s[0])
        plan_json_write_string(f, s);
    else
        fputs("null", f);
}

/* The first line of MPI_Get_library_version with runs of blanks folded to one space. */
static void library_name(char *out, size_t cap)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    size_t n = 0;
    if (PMPI_Get_library_version(v, &len) != MPI_SUCCESS)
        len = 0;
    v[len < (int)sizeof v ? len : (int)sizeof v - 1] = '\0';
    for (const char *c = v; *c && *c != '\n' && n + 1 < cap; c++) {
        int blank = *c == ' ' || *c == '\t';
        if (blank && (n == 0 || out[n - 1] == ' '))
            continue;
        out[n++] = blank ? ' ' : *c;
    }
    while (n > 0 && out[n - 1] == ' ')
        n--;
    out[n] = '\0';
}

/* Writes an HRELAY_NODE_SIZE: "auto" or K. */
static void node_size(FILE *f, int k)
{
    if (k == SHIM_NODE_AUTO)
        fputs("\"auto\"", f);
    else
        fprintf(f, "%d", k);
}

/* Writes the "communicators" array (one object per topology). */
static void write_comms(FILE *f, const shim_comm_summaries *comms)
{
    fputc('[', f);
    for (size_t i = 0; i < comms->n; i++) {
        const shim_comm_summary *s = &comms->v[i];
        fprintf(f,
                "%s{\"size\": %d, \"nodes\": %d, \"ranks_per_node_min\": %d, "
                "\"ranks_per_node_max\": %d, \"consecutive\": %s, \"node_size\": ",
                i ? ",\n  " : "\n  ", (int)s->size, (int)s->nodes, (int)s->lanes_min,
                (int)s->lanes_max, s->consecutive ? "true" : "false");
        node_size(f, s->node_size);
        fprintf(f,
                ", \"count\": %llu, \"calls\": %llu, \"patterns\": %llu, "
                "\"node_patterns\": %llu, \"private\": %llu, \"declined\": %llu}",
                (unsigned long long)s->comms, (unsigned long long)s->calls,
                (unsigned long long)s->patterns, (unsigned long long)s->node_patterns,
                (unsigned long long)s->privates, (unsigned long long)s->declined);
    }
    fputc(']', f);
}

/* Writes the "config" object. */
static void write_config(FILE *f, const shim_config *cfg)
{
    fputs("{\"algo\": ", f);
    plan_json_write_string(f, shim_request_name(cfg->algo));
    if (cfg->min_step == PLAN_MIN_STEP_AUTO)
        fputs(", \"min_step_bytes\": \"auto\"", f);
    else
        fprintf(f, ", \"min_step_bytes\": %llu", (unsigned long long)cfg->min_step);
    fprintf(f, ", \"window\": %d, \"verbose\": %d, \"duplex\": ", cfg->window, cfg->verbose);
    plan_json_write_string(f, cfg->duplex == PLAN_DUPLEX_HALF ? "half" : "full");
    fputs(", \"report\": ", f);
    json_path(f, cfg->report);
    fputs(", \"dump\": ", f);
    json_path(f, cfg->dump);
    fputs(", \"node_size\": ", f);
    node_size(f, cfg->node_size);
    if (cfg->node_steps == SHIM_NODE_STEPS_AUTO)
        fputs(", \"node_steps\": \"auto\"", f);
    else
        fprintf(f, ", \"node_steps\": %d", cfg->node_steps);
    if (cfg->node_sync == SHIM_NODE_SYNC_AUTO)
        fputs(", \"node_sync\": \"auto\"", f);
    else
        fprintf(f, ", \"node_sync\": %d", cfg->node_sync);
    if (cfg->node_join == SHIM_NODE_JOIN_AUTO)
        fputs(", \"node_join_bytes\": \"auto\"", f);
    else
        fprintf(f, ", \"node_join_bytes\": %llu", (unsigned long long)cfg->node_join);
    if (cfg->node_shm == SHIM_NODE_SHM_AUTO)
        fputs(", \"node_shm\": \"auto\"", f);
    else
        fprintf(f, ", \"node_shm\": %d", cfg->node_shm);
    fprintf(f, ", \"rank_sync\": %d", cfg->rank_sync);
    if (cfg->grain)
        fprintf(f, ", \"grain_bytes\": %llu", (unsigned long long)cfg->grain);
    else
        fputs(", \"grain_bytes\": null", f);
    fprintf(f,
            ", \"packet_bytes\": %llu, \"max_staging_bytes\": %llu, \"max_plan_segments\": %llu, "
            "\"cache_size\": %d, \"tune\": %d, \"tune_margin_percent\": %d, "
            "\"explore_budget_percent\": %d, "
            "\"recheck\": %d, \"inherit\": %d, "
            "\"site_depth\": %d, \"calibration\": ",
            (unsigned long long)cfg->packet, (unsigned long long)cfg->max_staging,
            (unsigned long long)cfg->max_plan, cfg->cache_size, cfg->tune, cfg->margin, cfg->budget,
            cfg->recheck, cfg->inherit, cfg->site_depth);
    json_path(f, cfg->calibrated ? cfg->config : "");
    fputs(", \"cost\": {", f);
    const char *name;
    double v;
    for (int i = 0; plan_cost_field(&cfg->cost, i, &name, &v); i++)
        fprintf(f, "%s\"%s\": %.9g", i ? ", " : "", name, v);
    fputs("}}", f);
}

/* Writes the figures of one site (or of the total) after its opening brace. */
static void write_stats(FILE *f, const shim_stats *s)
{
    fprintf(f, "\"calls\": %llu, \"bytes\": %llu, \"algorithms\": {",
            (unsigned long long)s->calls, (unsigned long long)s->bytes);
    const char *sep = "";
    for (int a = 0; a < PLAN_ALGO_COUNT; a++) {
        if (!s->algo_calls[a])
            continue;
        fputs(sep, f);
        plan_json_write_string(f, plan_algo_name((plan_algo)a));
        fprintf(f, ": %llu", (unsigned long long)s->algo_calls[a]);
        sep = ", ";
    }
    fputs("}, \"variants\": {", f);
    sep = "";
    for (int a = 0; a < PLAN_ALGO_COUNT; a++)
        for (int v = PLAN_VARIANT_BASE + 1; v <= PLAN_VARIANT_NODE_WINDOW; v++) {
            char name[48];
            if (!s->variant_calls[a][v])
                continue;
            fputs(sep, f);
            plan_json_write_string(f, shim_run_name((plan_algo)a, v, name, sizeof name));
            fprintf(f, ": %llu", (unsigned long long)s->variant_calls[a][v]);
            sep = ", ";
        }
    fprintf(f,
            "}, \"plans_computed\": %llu, \"cache_hits\": %llu, \"unchecked\": %llu, "
            "\"new_patterns\": %llu, \"decided_before_gather\": %llu, "
            "\"explore_calls\": %llu, \"explore_s\": %.9g, "
            "\"time_s\": %.9g, \"native_s\": %.9g, \"saved_s\": %.9g, "
            "\"modeled_native_s\": %.9g}",
            (unsigned long long)s->plans_computed, (unsigned long long)s->cache_hits,
            (unsigned long long)s->unchecked, (unsigned long long)s->new_patterns,
            (unsigned long long)s->before_gather, (unsigned long long)s->explore_calls,
            s->explore_s, s->time_s, s->native_s, s->native_s - s->time_s,
            s->modeled_native_s);
}

/* Orders sites by time, largest first. */
static int by_time(const void *a, const void *b)
{
    double x = ((const shim_site_report *)a)->st.time_s, y = ((const shim_site_report *)b)->st.time_s;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Writes the report (see report.h). */
int shim_report_write(const char *path, const shim_config *cfg, const shim_comm_summaries *comms,
                      const shim_site_report *sites, size_t nsites, int ranks)
{
    char lib[256];
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    library_name(lib, sizeof lib);
    shim_site_report *sorted = nsites ? malloc(nsites * sizeof *sorted) : NULL;
    if (sorted) {
        memcpy(sorted, sites, nsites * sizeof *sorted);
        qsort(sorted, nsites, sizeof *sorted, by_time);
        sites = sorted;
    }

    fputs("{\"version\": ", f);
    plan_json_write_string(f, HRELAY_VERSION_STRING);
    fputs(", \"mpi_library\": ", f);
    plan_json_write_string(f, lib);
    fprintf(f, ", \"ranks\": %d,\n \"config\": ", ranks);
    write_config(f, cfg);
    fputs(",\n \"communicators\": ", f);
    write_comms(f, comms);
    fputs(",\n \"callsites\": [", f);
    shim_stats total = {0};
    for (size_t i = 0; i < nsites; i++) {
        fputs(i ? ",\n  {\"site\": " : "\n  {\"site\": ", f);
        plan_json_write_string(f, sites[i].name);
        fputs(", ", f);
        write_stats(f, &sites[i].st);
        shim_stats_fold(&total, &sites[i].st);
    }
    fputs("],\n \"total\": {", f);
    write_stats(f, &total);
    fputs("}\n", f);
    free(sorted);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        if (!errno)
            errno = EIO;
        return -1;
    }
    return 0;
}
