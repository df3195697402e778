/* The JSON report rank 0 writes at MPI_Finalize (HRELAY_REPORT). Shape (DESIGN.md "Report"):
 *
 * {"version": "0.1.0", "mpi_library": "MPICH Version: 4.0.2", "ranks": 4,
 *  "config": {"algo": "direct", "min_step_bytes": 0, "window": 4, "verbose": 0,
 *             "duplex": "full", "report": "r.json", "dump": null, "grain_bytes": null,
 *             "packet_bytes": 65536, "max_staging_bytes": 268435456},
 *  "callsites": [{"site": "unknown", "calls": 3, "bytes": 12345,
 *                 "algorithms": {"direct": 3}, "plans_computed": 3, "cache_hits": 0,
 *                 "time_s": 0.00123, "modeled_native_s": 0.00098}]}
 *
 * "callsites" is empty when no call was intercepted; "algorithms" lists only families that ran
 * at least one call. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hrelay.h"
#include "shim/shim.h"

/* Writes s as a JSON string (quotes included). */
static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* Writes a path setting: a JSON string, or null when unset. */
static void json_path(FILE *f, const char *s)
{
    if (s[0])
        json_string(f, s);
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

/* Writes the report (see shim.h). */
int shim_report_write(const char *path, const shim_config *cfg, const shim_stats *s, int ranks)
{
    char lib[256];
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    library_name(lib, sizeof lib);

    fputs("{\"version\": ", f);
    json_string(f, HRELAY_VERSION_STRING);
    fputs(", \"mpi_library\": ", f);
    json_string(f, lib);
    fprintf(f, ", \"ranks\": %d,\n \"config\": {\"algo\": ", ranks);
    json_string(f, plan_algo_name(cfg->algo));
    fprintf(f, ", \"min_step_bytes\": %llu, \"window\": %d, \"verbose\": %d, \"duplex\": ",
            (unsigned long long)cfg->min_step, cfg->window, cfg->verbose);
    json_string(f, cfg->duplex == PLAN_DUPLEX_HALF ? "half" : "full");
    fputs(", \"report\": ", f);
    json_path(f, cfg->report);
    fputs(", \"dump\": ", f);
    json_path(f, cfg->dump);
    if (cfg->grain)
        fprintf(f, ", \"grain_bytes\": %llu", (unsigned long long)cfg->grain);
    else
        fputs(", \"grain_bytes\": null", f);
    fprintf(f, ", \"packet_bytes\": %llu, \"max_staging_bytes\": %llu",
            (unsigned long long)cfg->packet, (unsigned long long)cfg->max_staging);
    fputs("},\n \"callsites\": [", f);
    if (s->calls) {
        fprintf(f, "{\"site\": \"unknown\", \"calls\": %llu, \"bytes\": %llu, \"algorithms\": {",
                (unsigned long long)s->calls, (unsigned long long)s->bytes);
        const char *sep = "";
        for (int a = 0; a < PLAN_ALGO_COUNT; a++) {
            if (!s->algo_calls[a])
                continue;
            fputs(sep, f);
            json_string(f, plan_algo_name((plan_algo)a));
            fprintf(f, ": %llu", (unsigned long long)s->algo_calls[a]);
            sep = ", ";
        }
        fprintf(f,
                "}, \"plans_computed\": %llu, \"cache_hits\": %llu, \"time_s\": %.9g, "
                "\"modeled_native_s\": %.9g}",
                (unsigned long long)s->plans_computed, (unsigned long long)s->cache_hits,
                s->time_s, s->modeled_native_s);
    }
    fputs("]}\n", f);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        if (!errno)
            errno = EIO;
        return -1;
    }
    return 0;
}
