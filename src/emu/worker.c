/* Registered UCX workers: idle blocking on the owner thread, and the helper threads that keep
 * the workers progressing from the first endpoint close until ucp_worker_destroy.
 *
 * The registry below is the library's only mutable state shared between threads: an
 * interposition library has no caller that could own it. Slots are written by owner threads
 * (create, destroy); the counters of a slot by its owner (progress) or by its helper thread. */
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "emu/emu.h"

enum { MAX_WORKERS = 64 };

/* Who the calling thread is to this library. */
enum { ROLE_FOREIGN = 0, ROLE_OWNER, ROLE_HELPER };

typedef struct emu_worker {
    _Atomic(ucp_worker_h) handle; /* NULL: free slot */
    int efd;                      /* the worker's event fd; -1 when wakeup is unavailable */
    unsigned idle;                /* empty progress calls in a row (owner) */
    unsigned busy;                /* refused arms since the last progress (owner) */
    int wait_ms;                  /* the owner's next wait: doubles while waits time out */
    bool helper_running;          /* owner */
    bool stop;                    /* guarded by registry.lock */
    pthread_t helper;
    unsigned long calls, waits, timeouts;      /* owner's progress calls, waits, waits that
                                                  timed out */
    unsigned long pauses;                      /* owner's pauses while UCX was busy */
    double waited_s, timed_out_s;              /* owner's time in waits, in waits that timed
                                                  out */
    unsigned long helper_rounds, helper_events; /* helper's progress calls and their events */
} emu_worker;

static struct {
    pthread_mutex_t lock; /* recursive; serialises owners with helpers once closing is set */
    atomic_bool closing;  /* an endpoint close started the helper threads */
    emu_worker slots[MAX_WORKERS];
} registry;

static pthread_once_t registry_once = PTHREAD_ONCE_INIT;
static _Thread_local int role = ROLE_FOREIGN;

/* Makes registry.lock a recursive mutex (run once). Recursive because UCX calls its own
 * exported functions (ucp_request_free, ucp_ep_close_nb, ...) through the PLT, so a hooked
 * function can be entered again from inside a locked one, and from completion callbacks. */
static void registry_init(void)
{
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&registry.lock, &attr);
    pthread_mutexattr_destroy(&attr);
}

/* The slot of worker, or NULL when it is not registered (the calling thread's last answer is
 * checked first: progress calls come by the million). */
static emu_worker *find(ucp_worker_h worker)
{
    static _Thread_local emu_worker *last;
    if (last && worker && atomic_load(&last->handle) == worker)
        return last;
    for (int i = 0; i < MAX_WORKERS; i++)
        if (atomic_load(&registry.slots[i].handle) == worker) {
            last = &registry.slots[i];
            return last;
        }
    return NULL;
}

/* Takes the lock for owners once closing is set, and always for helpers (see emu.h). */
bool emu_lock(void)
{
    if (role == ROLE_HELPER || (role == ROLE_OWNER && atomic_load(&registry.closing))) {
        pthread_mutex_lock(&registry.lock);
        return true;
    }
    return false;
}

/* Releases what emu_lock took. */
void emu_unlock(bool taken)
{
    if (taken)
        pthread_mutex_unlock(&registry.lock);
}

/* Registers worker with its event fd (see emu.h). */
void emu_worker_created(ucp_worker_h worker)
{
    const emu_settings *s = emu_settings_get();
    pthread_once(&registry_once, registry_init);
    role = ROLE_OWNER;
    emu_worker *w = find(NULL);
    if (!w) {
        emu_say("warning: more than %d UCX workers; worker %p busy-polls and has no finalize "
                "helper",
                MAX_WORKERS, (void *)worker);
        return;
    }
    w->efd = -1;
    w->idle = w->busy = 0;
    w->wait_ms = s->wait_ms;
    w->helper_running = false;
    w->stop = false;
    w->calls = w->waits = w->timeouts = w->pauses = w->helper_rounds = w->helper_events = 0;
    w->waited_s = w->timed_out_s = 0;
    int fd;
    if (s->wakeup && emu_real()->worker_get_efd(worker, &fd) == UCS_OK)
        w->efd = fd;
    atomic_store(&registry.slots[w - registry.slots].handle, worker);
    if (s->verbose) {
        if (w->efd >= 0)
            emu_say("worker %p: blocks on event fd %d after %u empty progress calls (waits of "
                    "at most %d ms); finalize helper %s",
                    (void *)worker, w->efd, s->spin, s->wait_ms, s->finalize ? "on" : "off");
        else
            emu_say("worker %p: no event fd (wakeup %s): busy-polls; finalize helper %s",
                    (void *)worker, s->wakeup ? "unavailable" : "off",
                    s->finalize ? "on" : "off");
    }
}

/* Waits until fd is readable or wait_ms passed; returns true when it became readable. */
static bool wait_fd(int fd, int wait_ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, wait_ms) > 0;
}

/* Sleeps for the given number of microseconds. */
static void pause_us(long us)
{
    struct timespec t = {.tv_sec = 0, .tv_nsec = us * 1000};
    nanosleep(&t, NULL);
}

/* The owner's progress with idle blocking (see emu.h). */
unsigned emu_worker_progress(ucp_worker_h worker)
{
    const emu_ucp *real = emu_real();
    emu_worker *w = role == ROLE_OWNER ? find(worker) : NULL;
    if (!w)
        return real->worker_progress(worker);
    const emu_settings *s = emu_settings_get();
    bool taken = emu_lock();
    unsigned n = real->worker_progress(worker);
    w->calls++;
    if (n) {
        w->idle = w->busy = 0;
        w->wait_ms = s->wait_ms;
        emu_unlock(taken);
        return n;
    }
    if (w->efd < 0 || ++w->idle < s->spin) {
        emu_unlock(taken);
        return 0;
    }
    /* Stay at the threshold: after a wait that brought nothing, the next empty call waits
     * again at once; only real progress restarts the spinning. */
    w->idle = s->spin;
    ucs_status_t armed = real->worker_arm(worker);
    emu_unlock(taken);
    if (armed == UCS_ERR_BUSY && ++w->busy > 1 && s->pause_us > 0) {
        /* UCX refused to arm again without progress in between: not events waiting to be
         * read (the next progress takes those), but work it cannot signal on the fd: its
         * shared-memory transport refuses while sends wait for room in a peer's queue, and
         * would spin until the peer, which may need this core, makes room. */
        w->pauses++;
        pause_us(s->pause_us);
    } else if (armed == UCS_OK) {
        w->waits++;
        /* The timeout only guards against work that does not signal the fd; a long idle
         * period backs off to EMU_MAX_WAIT_MS between checks. */
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        bool event = wait_fd(w->efd, w->wait_ms);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double dt = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
        w->waited_s += dt;
        if (!event) {
            w->timed_out_s += dt;
            w->timeouts++;
            if (w->wait_ms < EMU_MAX_WAIT_MS)
                w->wait_ms = w->wait_ms * 2 < EMU_MAX_WAIT_MS ? w->wait_ms * 2 : EMU_MAX_WAIT_MS;
        }
    }
    return 0;
}

/* Body of a helper thread: progresses its worker until told to stop, waiting on the event fd
 * (or sleeping 1 ms without one) whenever there is nothing to do. */
static void *helper_main(void *arg)
{
    emu_worker *w = arg;
    ucp_worker_h worker = atomic_load(&w->handle);
    const emu_ucp *real = emu_real();
    const emu_settings *s = emu_settings_get();
    role = ROLE_HELPER;
    for (;;) {
        pthread_mutex_lock(&registry.lock);
        if (w->stop) {
            pthread_mutex_unlock(&registry.lock);
            break;
        }
        unsigned n = real->worker_progress(worker);
        ucs_status_t armed = UCS_ERR_BUSY;
        if (n == 0 && w->efd >= 0)
            armed = real->worker_arm(worker);
        pthread_mutex_unlock(&registry.lock);
        w->helper_rounds++;
        w->helper_events += n;
        if (n)
            continue;
        if (armed == UCS_OK)
            wait_fd(w->efd, s->wait_ms);
        else
            pause_us(w->efd >= 0 ? 100 : 1000);
    }
    return NULL;
}

/* Starts the helper threads of all registered workers, once (see emu.h). */
void emu_closing(void)
{
    if (!emu_settings_get()->finalize || role != ROLE_OWNER)
        return;
    if (atomic_exchange(&registry.closing, true))
        return;
    for (int i = 0; i < MAX_WORKERS; i++) {
        emu_worker *w = &registry.slots[i];
        if (!atomic_load(&w->handle))
            continue;
        if (pthread_create(&w->helper, NULL, helper_main, w) == 0)
            w->helper_running = true;
        else
            emu_say("warning: cannot start the finalize helper thread of worker %p",
                    (void *)atomic_load(&w->handle));
    }
}

/* Stops the helper of worker and unregisters it (see emu.h). */
void emu_worker_destroying(ucp_worker_h worker)
{
    emu_worker *w = role == ROLE_OWNER ? find(worker) : NULL;
    if (!w)
        return;
    if (w->helper_running) {
        pthread_mutex_lock(&registry.lock);
        w->stop = true;
        pthread_mutex_unlock(&registry.lock);
        if (w->efd >= 0)
            emu_real()->worker_signal(worker);
        pthread_join(w->helper, NULL);
        w->helper_running = false;
    }
    if (emu_settings_get()->verbose)
        emu_say("worker %p: %lu progress calls, %lu waits of %.3f s (%lu timed out, %.3f s), "
                "%lu pauses; finalize helper: %lu progress calls, %lu events",
                (void *)worker, w->calls, w->waits, w->waited_s, w->timeouts, w->timed_out_s,
                w->pauses, w->helper_rounds, w->helper_events);
    atomic_store(&w->handle, NULL);
}
