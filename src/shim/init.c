/* MPI_Init, MPI_Init_thread and MPI_Finalize hooks, and hrelay_version. Start-up happens after
 * PMPI_Init: rank 0 of MPI_COMM_WORLD reads the environment and broadcasts it, so every rank
 * decides the same. Shut-down (report, freeing) happens before PMPI_Finalize. */
#include <stdio.h>
#include <stdlib.h>

#include "hrelay.h"
#include "shim/agree.h"
#include "shim/clock.h"
#include "shim/comm.h"
#include "shim/export.h"
#include "shim/init.h"
#include "shim/log.h"
#include "shim/report.h"
#include "shim/site_report.h"
#include "shim/state.h"

/* The version string of this library (see hrelay.h). */
SHIM_EXPORT const char *hrelay_version(void)
{
    return HRELAY_VERSION_STRING;
}

/* What start-up sets up besides the configuration (freed again by undo_setup). */
typedef struct setup {
    shim_world *world;
    int keyval, request_keyval; /* MPI_KEYVAL_INVALID if not created (both or neither) */
    int lineage_keyval;         /* MPI_KEYVAL_INVALID if not created */
    int have_op;
    MPI_Datatype few_type; /* shim_agree_few's element; MPI_DATATYPE_NULL if not created */
    MPI_Comm self;         /* MPI_COMM_NULL if not created */
} setup;

/* Creates the process-wide record, the records' attribute key, the lineages' (MPI_COMM_WORLD's
 * the first where cfg lets it: lineage.h), the agreement's operation, shim_agree_few's
 * element type and the duplicate of MPI_COMM_SELF whose errors return. Returns 1 if all of
 * them exist. */
static int set_up(setup *s, const shim_config *cfg)
{
    int level = MPI_THREAD_SINGLE;
    s->world = shim_world_create();
    if (s->world && PMPI_Query_thread(&level) == MPI_SUCCESS)
        s->world->threaded = level == MPI_THREAD_MULTIPLE;
    if (s->world == NULL ||
        shim_comm_keyval_create(&s->keyval, &s->request_keyval) != MPI_SUCCESS ||
        shim_lineage_create(s->world, &s->lineage_keyval,
                            cfg->inherit > 0 && !s->world->threaded) != MPI_SUCCESS ||
        !(s->have_op = shim_agree_op_create(&shim_g.agree_op) == MPI_SUCCESS) ||
        shim_agree_few_type_create(&s->few_type) != MPI_SUCCESS ||
        PMPI_Comm_dup(MPI_COMM_SELF, &s->self) != MPI_SUCCESS)
        return 0;
    return PMPI_Comm_set_errhandler(s->self, MPI_ERRORS_RETURN) == MPI_SUCCESS;
}

/* Frees what set_up made. */
static void undo_setup(setup *s)
{
    if (s->keyval != MPI_KEYVAL_INVALID) {
        PMPI_Comm_free_keyval(&s->keyval);
        PMPI_Comm_free_keyval(&s->request_keyval);
    }
    if (s->lineage_keyval != MPI_KEYVAL_INVALID)
        PMPI_Comm_free_keyval(&s->lineage_keyval);
    if (s->have_op)
        PMPI_Op_free(&shim_g.agree_op);
    if (s->few_type != MPI_DATATYPE_NULL)
        PMPI_Type_free(&s->few_type);
    if (s->self != MPI_COMM_NULL)
        PMPI_Comm_free(&s->self);
    shim_world_free(s->world);
}

/* Prints the settings in effect (HRELAY_VERBOSE >= 1). */
static void log_settings(const shim_config *cfg, int size)
{
    char grain[32] = "auto", min_step[32] = "auto", node_size[32] = "auto", steps[32] = "auto",
         sync[32] = "auto", join[32] = "auto", shm[32] = "auto";
    if (cfg->grain)
        snprintf(grain, sizeof grain, "%llu", (unsigned long long)cfg->grain);
    if (cfg->node_size != SHIM_NODE_AUTO)
        snprintf(node_size, sizeof node_size, "%d", cfg->node_size);
    if (cfg->node_steps != SHIM_NODE_STEPS_AUTO)
        snprintf(steps, sizeof steps, "%d", cfg->node_steps);
    if (cfg->node_sync != SHIM_NODE_SYNC_AUTO)
        snprintf(sync, sizeof sync, "%d", cfg->node_sync);
    if (cfg->node_shm != SHIM_NODE_SHM_AUTO)
        snprintf(shm, sizeof shm, "%d", cfg->node_shm);
    if (cfg->node_join != SHIM_NODE_JOIN_AUTO)
        snprintf(join, sizeof join, "%llu", (unsigned long long)cfg->node_join);
    if (cfg->min_step != PLAN_MIN_STEP_AUTO)
        snprintf(min_step, sizeof min_step, "%llu", (unsigned long long)cfg->min_step);
    shim_log(1,
             "%s on %d ranks: algo=%s duplex=%s min_step=%s window=%d grain=%s packet=%llu "
             "max_staging=%llu max_plan=%llu cache=%d tune=%d margin=%d%% budget=%d%% "
             "recheck=%d inherit=%d "
             "site_depth=%d node_size=%s node_steps=%s node_sync=%s node_join=%s "
             "node_shm=%s rank_sync=%d costs=%s report=%s dump=%s",
             HRELAY_VERSION_STRING, size, shim_request_name(cfg->algo),
             cfg->duplex == PLAN_DUPLEX_HALF ? "half" : "full", min_step, cfg->window, grain,
             (unsigned long long)cfg->packet, (unsigned long long)cfg->max_staging,
             (unsigned long long)cfg->max_plan, cfg->cache_size, cfg->tune, cfg->margin,
             cfg->budget, cfg->recheck, cfg->inherit, cfg->site_depth, node_size, steps, sync, join,
             shm, cfg->rank_sync, cfg->calibrated ? cfg->config : "built-in",
             cfg->report[0] ? cfg->report : "-", cfg->dump[0] ? cfg->dump : "-");
}

/* After PMPI_Init: agree on the configuration and, unless disabled, set up interception
 * (see init.h). */
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
    int flags[2] = {shim_env_hash() == cfg.env_hash, 1};
    setup s = {.keyval = MPI_KEYVAL_INVALID,
               .request_keyval = MPI_KEYVAL_INVALID,
               .lineage_keyval = MPI_KEYVAL_INVALID,
               .few_type = MPI_DATATYPE_NULL,
               .self = MPI_COMM_NULL};
    if (!cfg.disable)
        flags[1] = set_up(&s, &cfg);
    if (PMPI_Allreduce(MPI_IN_PLACE, flags, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
        flags[1] = 0;

    if (rank == 0) {
        shim_warn_lines(warn);
        if (!flags[0])
            shim_warn("the HRELAY_* environment differs between ranks; rank 0's is used");
        if (!cfg.disable && !flags[1])
            shim_warn("could not initialise (out of memory); passing every call through");
    }
    shim_g.cfg = cfg;
    shim_g.world_rank = rank;
    shim_g.world_size = size;
    if (cfg.disable || !flags[1]) {
        undo_setup(&s);
        return;
    }
    shim_clock_init();
    shim_site_init();
    /* every communicator's nodes come from these without communication (topo.c) */
    if (cfg.node_size == SHIM_NODE_AUTO)
        shim_world_labels(s.world, rank, size);
    shim_g.keyval = s.keyval;
    shim_g.request_keyval = s.request_keyval;
    shim_g.lineage_keyval = s.lineage_keyval;
    shim_g.few_type = s.few_type;
    shim_g.self = s.self;
    shim_g.world = s.world;
    shim_g.active = 1;
    log_settings(&cfg, size);
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
 * hrelay's state (see init.h). */
void shim_shutdown(void)
{
    shim_comm_release_world(); /* its sites join the retired ones */
    shim_sites all;
    int ok = shim_world_sites(shim_g.world, &all) == 0;
    shim_site_report *sites = NULL;
    size_t n = 0;
    int rc = shim_sites_gather(&all, &sites, &n);
    shim_sites_free(&all);
    shim_comm_summaries comms;
    if (rc == MPI_SUCCESS)
        rc = shim_comm_summaries_gather(shim_g.world, &comms);

    if (rc == MPI_SUCCESS && shim_g.world_rank == 0) {
        if (!ok)
            shim_warn("out of memory collecting statistics; the report is incomplete");
        log_summary(sites, n);
        if (shim_g.cfg.report[0] &&
            shim_report_write(shim_g.cfg.report, &shim_g.cfg, &comms, sites, n,
                              shim_g.world_size))
            shim_warn("cannot write the report to %s", shim_g.cfg.report);
    } else if (rc != MPI_SUCCESS && shim_g.world_rank == 0) {
        shim_warn("could not merge statistics; no report written");
    }
    free(sites);
    if (rc == MPI_SUCCESS)
        shim_comm_summaries_free(&comms);

    shim_g.active = 0;
    PMPI_Comm_free_keyval(&shim_g.keyval);
    PMPI_Comm_free_keyval(&shim_g.request_keyval);
    if (shim_g.lineage_keyval != MPI_KEYVAL_INVALID)
        PMPI_Comm_free_keyval(&shim_g.lineage_keyval);
    PMPI_Op_free(&shim_g.agree_op);
    PMPI_Type_free(&shim_g.few_type);
    PMPI_Comm_free(&shim_g.self);
    shim_world_free(shim_g.world);
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
