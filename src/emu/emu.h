/* emu/: libhrelay-emu.so, the helper hrelay-emucluster preloads into every rank it launches. It
 * interposes a few dynamic symbols of libucp and libucs (UCX 1.13, as called by MPICH 4.0.2's
 * ch4:ucx netmod) and changes three things, nothing else:
 *   - idle ranks block: UCP_FEATURE_WAKEUP is added at ucp_init, and a worker whose progress
 *     found nothing HRELAY_EMU_SPIN times in a row waits on its event fd (ucp_worker_arm, then
 *     poll with a timeout starting at HRELAY_EMU_WAIT_MS) instead of busy-polling, or sleeps
 *     HRELAY_EMU_PAUSE_US when UCX refuses to arm (its shared memory has sends waiting for room);
 *   - MPI_Finalize cannot hang: from the first endpoint close until ucp_worker_destroy, a helper
 *     thread per worker keeps the worker progressing, so a peer's late flush round trip is
 *     answered while MPICH waits in its PMI barrier without progressing UCX;
 *   - each emulated host is a machine of its own: ucs_get_system_id, by which UCX's
 *     shared-memory transports decide which peers share memory, differs between network
 *     namespaces (the real one comes from the boot id, the same in all of them).
 * No MPI here (the library is MPI-agnostic; it only sees UCX calls). */
#ifndef HRELAY_EMU_EMU_H
#define HRELAY_EMU_EMU_H

#include <stdbool.h>

#include <ucp/api/ucp.h>
#include <ucs/sys/uid.h>

/* Marks a function exported from libhrelay-emu.so (everything else is hidden). */
#define EMU_EXPORT __attribute__((visibility("default")))

/* ---- settings (settings.c) ---- */

/* The HRELAY_EMU_* environment, read once. */
typedef struct emu_settings {
    bool wakeup;      /* HRELAY_EMU_WAKEUP: add UCP_FEATURE_WAKEUP and block when idle */
    bool finalize;    /* HRELAY_EMU_FINALIZE: progress workers from a thread after first close */
    unsigned spin;    /* HRELAY_EMU_SPIN: empty progress calls before blocking */
    int wait_ms;      /* HRELAY_EMU_WAIT_MS: first wait on the event fd (then doubling) */
    int pause_us;     /* HRELAY_EMU_PAUSE_US: sleep of an idle rank UCX keeps busy; 0: spin */
    int verbose;      /* HRELAY_EMU_VERBOSE: 1 prints one line per worker on stderr */
} emu_settings;

enum { EMU_DEFAULT_SPIN = 10, EMU_DEFAULT_WAIT_MS = 2, EMU_DEFAULT_PAUSE_US = 50 };

/* The longest wait of an idle owner: after each wait that timed out the next one doubles, up
 * to this (or HRELAY_EMU_WAIT_MS if larger); real progress resets it to HRELAY_EMU_WAIT_MS. */
enum { EMU_MAX_WAIT_MS = 64 };

/* The settings of this process; always valid (defaults replace invalid values, with a warning
 * on stderr the first time). */
const emu_settings *emu_settings_get(void);

/* Prints "hrelay-emu[pid]: message" on stderr. */
void emu_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- the real UCX functions (real.c) ---- */

typedef struct emu_ucp {
    ucs_status_t (*init_version)(unsigned, unsigned, const ucp_params_t *, const ucp_config_t *,
                                 ucp_context_h *);
    ucs_status_t (*worker_create)(ucp_context_h, const ucp_worker_params_t *, ucp_worker_h *);
    void (*worker_destroy)(ucp_worker_h);
    unsigned (*worker_progress)(ucp_worker_h);
    ucs_status_t (*worker_arm)(ucp_worker_h);
    ucs_status_t (*worker_get_efd)(ucp_worker_h, int *);
    ucs_status_t (*worker_signal)(ucp_worker_h);
    ucs_status_ptr_t (*disconnect_nb)(ucp_ep_h);
    ucs_status_ptr_t (*ep_close_nb)(ucp_ep_h, unsigned);
    ucs_status_ptr_t (*ep_close_nbx)(ucp_ep_h, const ucp_request_param_t *);
    int (*request_is_completed)(void *);
    void (*request_release)(void *);
    void (*request_free)(void *);
    ucs_status_t (*request_check_status)(void *);
    uint64_t (*get_system_id)(void);
} emu_ucp;

/* The next definitions of the UCX functions above (the ones libucp exports), resolved once with
 * dlsym(RTLD_NEXT). A missing one aborts the process with a message: it means the program calls
 * a UCX entry point through this library although libucp is not loaded, which cannot happen. */
const emu_ucp *emu_real(void);

/* ---- workers (worker.c) ---- */

/* Registers a worker just created by the calling thread (its owner). */
void emu_worker_created(ucp_worker_h worker);

/* One progress call as the owner sees it: the real progress and, after HRELAY_EMU_SPIN empty
 * calls in a row, one wait of at most HRELAY_EMU_WAIT_MS on the worker's event fd, or, when UCX
 * refuses to arm it (busy with work it cannot signal), a pause of HRELAY_EMU_PAUSE_US. Returns
 * what the real progress returned. Unregistered workers and foreign threads get the real call. */
unsigned emu_worker_progress(ucp_worker_h worker);

/* Stops the worker's helper thread (if any) and unregisters it; call before the real destroy. */
void emu_worker_destroying(ucp_worker_h worker);

/* An endpoint is being closed: starts the helper threads of every registered worker (once). */
void emu_closing(void);

/* Serialises the calling thread's UCX call with the helper threads while they run: returns true
 * when the lock was taken (then emu_unlock must follow). Foreign threads (neither a worker owner
 * nor a helper, e.g. UCX's own async thread) never take it. Recursive. */
bool emu_lock(void);
void emu_unlock(bool taken);

#endif
