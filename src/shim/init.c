/* MPI_Init, MPI_Init_thread and MPI_Finalize hooks, the process state, messages on stderr and
 * hrelay_version. Start-up happens after PMPI_Init: rank 0 of MPI_COMM_WORLD reads the
 * environment and broadcasts it, so every rank decides the same. Shut-down (report, freeing)
 * happens before PMPI_Finalize. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hrelay.h"
#include "shim/shim.h"

shim_state shim_g;

/* The version string of this library (see hrelay.h). */
SHIM_EXPORT const char *hrelay_version(void)
{
    return HRELAY_VERSION_STRING;
}

/* Prints a verbose message on rank 0 (see shim.h). */
void shim_log(int level, const char *fmt, ...)
{
    if (shim_g.cfg.verbose < level || shim_g.world_rank != 0)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "hrelay: %s\n", line);
}

/* Prints a warning (see shim.h). */
void shim_warn(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "hrelay: warning: %s\n", line);
}

/* Prints each line of a newline-separated warning list. */
static void warn_lines(const char *text)
{
    while (*text) {
        const char *nl = strchr(text, '\n');
        int n = nl ? (int)(nl - text) : (int)strlen(text);
        shim_warn("%.*s", n, text);
        text += n + (nl != NULL);
    }
}

/* Allocates the process-wide accumulator; NULL when out of memory. */
static shim_world *world_create(void)
{
    shim_world *w = calloc(1, sizeof *w);
    if (w && pthread_mutex_init(&w->lock, NULL) != 0) {
        free(w);
        w = NULL;
    }
    return w;
}

/* Frees the accumulator. */
static void world_free(shim_world *w)
{
    if (!w)
        return;
    pthread_mutex_destroy(&w->lock);
    shim_sites_free(&w->retired);
    free(w->live);
    free(w->dumped);
    free(w);
}

/* After PMPI_Init: agree on the configuration and, unless disabled, set up interception
 * (see shim.h). */
void shim_startup(void)
{
    if (shim_g.started)
        return;
    shim_g.started = 1;
    shim_config cfg;
    char warn[4096] = "";
    int rank, size;

    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        shim_config_from_env(&cfg, warn, sizeof warn);
    if (PMPI_Bcast(&cfg, (int)sizeof cfg, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        return;

    /* flags: [same environment as rank 0, set-up succeeded]; MIN over ranks */
    int flags[2] = {shim_env_hash() == cfg.env_hash, 1}, keyval = MPI_KEYVAL_INVALID;
    int have_op = 0;
    shim_world *w = NULL;
    if (!cfg.disable) {
        int level = MPI_THREAD_SINGLE;
        w = world_create();
        if (w && PMPI_Query_thread(&level) == MPI_SUCCESS)
            w->threaded = level == MPI_THREAD_MULTIPLE;
        flags[1] = w != NULL && shim_comm_keyval_create(&keyval) == MPI_SUCCESS &&
                   (have_op = shim_agree_op_create(&shim_g.agree_op, &shim_g.agree_pair) ==
                              MPI_SUCCESS);
    }
    if (PMPI_Allreduce(MPI_IN_PLACE, flags, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
        flags[1] = 0;

    if (rank == 0) {
        warn_lines(warn);
        if (!flags[0])
            shim_warn("the HRELAY_* environment differs between ranks; rank 0's is used");
        if (!cfg.disable && !flags[1])
            shim_warn("could not initialise (out of memory); passing every call through");
    }
    shim_g.cfg = cfg;
    shim_g.world_rank = rank;
    shim_g.world_size = size;
    if (cfg.disable || !flags[1]) {
        if (keyval != MPI_KEYVAL_INVALID)
            PMPI_Comm_free_keyval(&keyval);
        if (have_op)
            shim_agree_op_free(&shim_g.agree_op, &shim_g.agree_pair);
        world_free(w);
        return;
    }
    shim_clock_init();
    shim_site_init();
    shim_g.keyval = keyval;
    shim_g.world = w;
    shim_g.active = 1;
    char grain[32] = "auto", min_step[32] = "auto";
    if (cfg.grain)
        snprintf(grain, sizeof grain, "%llu", (unsigned long long)cfg.grain);
    if (cfg.min_step != PLAN_MIN_STEP_AUTO)
        snprintf(min_step, sizeof min_step, "%llu", (unsigned long long)cfg.min_step);
    shim_log(1,
             "%s on %d ranks: algo=%s duplex=%s min_step=%s window=%d grain=%s packet=%llu "
             "max_staging=%llu max_plan=%llu cache=%d tune=%d margin=%d%% slack=%dus "
             "recheck=%d "
             "site_depth=%d costs=%s report=%s dump=%s",
             HRELAY_VERSION_STRING, size, shim_request_name(cfg.algo),
             cfg.duplex == PLAN_DUPLEX_HALF ? "half" : "full", min_step, cfg.window,
             grain, (unsigned long long)cfg.packet, (unsigned long long)cfg.max_staging,
             (unsigned long long)cfg.max_plan, cfg.cache_size, cfg.tune, cfg.margin,
             cfg.slack_us, cfg.recheck, cfg.site_depth, cfg.calibrated ? cfg.config : "built-in",
             cfg.report[0] ? cfg.report : "-", cfg.dump[0] ? cfg.dump : "-");
}

/* Prints the verbose summary of all sites (rank 0). */
static void log_summary(const shim_site_report *sites, size_t n)
{
    shim_stats total = {0};
    for (size_t i = 0; i < n; i++)
        shim_stats_fold(&total, &sites[i].st);
    char algos[256] = "";
    size_t k = 0;
    for (int a = 0; a < PLAN_ALGO_COUNT && k < sizeof algos; a++)
        if (total.algo_calls[a])
            k += (size_t)snprintf(algos + k, sizeof algos - k, "%s%s %llu", k ? ", " : "",
                                  plan_algo_name((plan_algo)a),
                                  (unsigned long long)total.algo_calls[a]);
    shim_log(1,
             "%llu calls at %zu sites (%s), %llu bytes, %.6f s (slowest rank), estimated native "
             "%.6f s, saved %.6f s",
             (unsigned long long)total.calls, n, k ? algos : "none",
             (unsigned long long)total.bytes, total.time_s, total.native_s,
             total.native_s - total.time_s);
}

/* Before PMPI_Finalize: merge the call sites over ranks, write the report (rank 0), free
 * hrelay's state (see shim.h). */
void shim_shutdown(void)
{
    shim_comm_release_world(); /* its sites join the retired ones */
    shim_sites all;
    int ok = shim_world_sites(shim_g.world, &all) == 0;
    shim_site_report *sites = NULL;
    size_t n = 0;
    int rc = shim_sites_gather(&all, &sites, &n);
    shim_sites_free(&all);

    if (rc == MPI_SUCCESS && shim_g.world_rank == 0) {
        if (!ok)
            shim_warn("out of memory collecting statistics; the report is incomplete");
        log_summary(sites, n);
        if (shim_g.cfg.report[0] &&
            shim_report_write(shim_g.cfg.report, &shim_g.cfg, sites, n, shim_g.world_size))
            shim_warn("cannot write the report to %s", shim_g.cfg.report);
    } else if (rc != MPI_SUCCESS && shim_g.world_rank == 0) {
        shim_warn("could not merge statistics; no report written");
    }
    free(sites);

    shim_g.active = 0;
    PMPI_Comm_free_keyval(&shim_g.keyval);
    shim_agree_op_free(&shim_g.agree_op, &shim_g.agree_pair);
    world_free(shim_g.world);
    shim_g.world = NULL;
}

/* MPI_Init: PMPI_Init, then hrelay's start-up. */
SHIM_EXPORT int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        shim_startup();
    return rc;
}

/* MPI_Init_thread: PMPI_Init_thread, then hrelay's start-up (thread-safe at every level:
 * under MPI_THREAD_MULTIPLE the process-wide records are locked, communicator records are
 * used by one thread at a time as MPI requires of collectives, and the configuration is
 * read-only after start-up). */
SHIM_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        shim_startup();
    return rc;
}

/* MPI_Finalize: hrelay's shut-down, then PMPI_Finalize. */
SHIM_EXPORT int MPI_Finalize(void)
{
    if (shim_g.active)
        shim_shutdown();
    return PMPI_Finalize();
}
