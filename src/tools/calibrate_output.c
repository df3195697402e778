/* What hrelay-calibrate writes on rank 0: the calibration file HRELAY_CONFIG reads (the
 * figures as plan_cost_write writes them, and in its comments the version, the MPI library,
 * the date and what measured each figure), the figures and the pairs on standard output, and
 * the lists of pairs and the note on the window's making that both show. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "exec/exec.h"
#include "hrelay.h"
#include "plan/cost.h"
#include "tools/calibrate.h"

/* Rank 0: the pairs of one kind (every rank's partner in `partner`, p entries) as "0-2 1-3"
 * (the first 8, then how many in all) into buf, or "none". */
void calibrate_pair_list(const int *partner, int p, char *buf, size_t cap)
{
    size_t n = 0;
    int count = 0;
    buf[0] = '\0';
    for (int r = 0; r < p; r++) {
        if (partner[r] <= r)
            continue;
        if (count++ < 8 && n < cap)
            n += (size_t)snprintf(buf + n, cap - n, "%s%d-%d", count > 1 ? " " : "", r, partner[r]);
    }
    if (count > 8 && n < cap)
        snprintf(buf + n, cap - n, " ... (%d pairs)", count);
    if (!count)
        snprintf(buf, cap, "none");
}

/* What measured the window's figures, or why they were not measured, into buf. */
static void window_note(const figures *f, char *buf, size_t cap)
{
    if (f->window_why == 0)
        snprintf(buf, cap,
                 "the first at %llu bytes in %.3g s, then at %llu bytes in %.3g s, at "
                 "%llu bytes in %.3g s",
                 (unsigned long long)f->window_small_bytes, f->window_first,
                 (unsigned long long)f->window_small_bytes, f->window_small,
                 (unsigned long long)f->window_big_bytes, f->window_big);
    else
        snprintf(buf, cap, "not measured: built-in (%s)",
                 f->window_why == 1 ? "one rank per node"
                                    : "a node could not make a window: its ranks share no "
                                      "memory, or MPI_Win_allocate_shared failed");
}

/* Rank 0: the calibration file (figures, and in its comments what measured them). Returns 0,
 * or 1 when it cannot be written. */
int calibrate_write_file(const options *o, const figures *f, const char *nic_pairs,
                         const char *local_pairs, int p, int nodes)
{
    plan_cost_params c = plan_cost_defaults();
    c.alpha_ps = (uint64_t)(f->alpha * 1e12 + 0.5);
    c.gap_ps = (uint64_t)(f->gap * 1e12 + 0.5);
    c.beta_fs = (uint64_t)(f->beta * 1e15 + 0.5);
    c.beta_fs = c.beta_fs ? c.beta_fs : 1;
    c.duplex_pct = (uint32_t)(f->duplex + 0.5);
    c.step_ps = (uint64_t)(f->step * 1e12 + 0.5);
    c.native_pct = (uint32_t)(f->native_pct + 0.5);
    c.throttle = (uint32_t)f->throttle;
    c.plan_ps = (uint64_t)(f->plan_unit * 1e12 + 0.5);
    c.local_alpha_ps = (uint64_t)(f->local_alpha * 1e12 + 0.5);
    c.local_beta_fs = (uint64_t)(f->local_beta * 1e15 + 0.5);
    c.local_beta_fs = c.local_beta_fs ? c.local_beta_fs : 1;
    if (!f->local_measured) { /* exactly what a file without them would get */
        c.local_alpha_ps = plan_cost_local_alpha(c.alpha_ps);
        c.local_beta_fs = plan_cost_local_beta(c.beta_fs);
    }
    if (f->window_why == 0) {
        c.window_make_ps = (uint64_t)(f->window_make * 1e12 + 0.5);
        c.window_make_fs = (uint64_t)(f->window_per_byte * 1e15 + 0.5);
    }
    char windows[256];
    window_note(f, windows, sizeof windows);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "", when[64];
    int len = 0;
    PMPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n")] = '\0';
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    FILE *out = fopen(o->output, "w");
    if (!out) {
        perror(o->output);
        return 1;
    }
    fprintf(out,
            "# hrelay calibration: %s %s, %d ranks on %d nodes, %s\n# %s\n"
            "# size %ld bytes, %d repetitions; measured: ping-pong 8 B %.3g s, %ld B "
            "%.3g s, exchange %.3g s, executor step %.3g s, MPI_Alltoallv %.3g s\n"
            "# NIC pairs (alpha_s, gap_s, beta_s_per_byte, duplex_percent): %s\n"
            "# on-node pairs (local_alpha_s, local_beta_s_per_byte): %s\n"
            "# node windows (window_make_s, window_make_s_per_byte): %s\n",
            prog, HRELAY_VERSION_STRING, p, nodes, when, lib, o->size, o->reps, f->alpha, o->size,
            f->big, f->both, f->step, f->native, nic_pairs, local_pairs, windows);
    int status = plan_cost_write(out, &c) != 0;
    status |= fclose(out) != 0;
    if (status)
        fprintf(stderr, "%s: cannot write %s\n", prog, o->output);
    return status;
}

/* Rank 0: the figures and the pairs on standard output. */
void calibrate_print_figures(const options *o, const figures *f, const char *nic_pairs,
                             const char *local_pairs, int p, int nodes)
{
    printf("%s: %d ranks on %d nodes, %ld-byte messages, %d repetitions\n", prog, p, nodes, o->size,
           o->reps);
    printf("  NIC pairs       %s\n", nic_pairs);
    printf("  on-node pairs   %s\n", local_pairs);
    printf("  alpha           %.3g s (8-byte ping-pong, half round trip)\n", f->alpha);
    printf("  beta            %.3g s/byte (%.3g MB/s one way)\n", f->beta, 1e-6 / f->beta);
    printf("  duplex          %.0f %% (both directions at once against one way)\n", f->duplex);
    printf("  gap             %.3g s per further message of a burst\n", f->gap);
    printf("  local alpha     %.3g s (%s)\n", f->local_alpha,
           f->local_measured ? "on-node 8-byte ping-pong" : "not measured: alpha / 5");
    printf("  local beta      %.3g s/byte (%s)\n", f->local_beta,
           f->local_measured ? "on-node ping-pong" : "not measured: beta / 10");
    char windows[256];
    window_note(f, windows, sizeof windows);
    printf("  window making   %.3g s + %.3g s/byte (%s)\n", f->window_make, f->window_per_byte,
           windows);
    printf("  step            %.3g s per executor step (window %d)\n", f->step,
           EXEC_DEFAULT_WINDOW);
    printf("  native penalty  %.0f %% (MPI_Alltoallv %.3g s for %ld bytes per rank)\n",
           f->native_pct, f->native, o->size);
    printf("  planning        %.3g s per unit\n", f->plan_unit);
}
