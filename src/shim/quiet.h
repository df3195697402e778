/* The unchecked path's common case, inlined into the entry points (alltoallv.c): a call on one
 * of the thread's last communicators, from the line of its last call there, in a run of calls
 * left to MPI's algorithm (exchange_native.c) or a tiny MPI_Alltoall after an agreed one
 * (shim_tiny_alltoall), and not sampled, runs the PMPI function at once with its own
 * arguments. Tiny repeated exchanges take 0.4 - 0.7 us natively; this path costs them about 75
 * instructions, against about 200 through shim_alltoall_any, which decides every other call
 * (and would decide these the same way). */
#ifndef HRELAY_SHIM_QUIET_H
#define HRELAY_SHIM_QUIET_H

#include <mpi.h>
#include <stdint.h>

#include "shim/comm.h"
#include "shim/history.h"
#include "shim/site.h"
#include "shim/state.h"

/* Thread-local variables of the preloaded library use the initial-exec model: a plain load,
 * no call to __tls_get_addr (the library is loaded at start-up, where static TLS is there). */
#define SHIM_TLS _Thread_local __attribute__((tls_model("initial-exec")))

/* Unchecked calls: time and bytes measured on one in this many per site (exchange_native.c). */
enum { SHIM_SAMPLE = 16 };

/* Communicators a thread remembers with their records: a 2-D FFT's transposes alternate
 * between two, a code's phases may use a few more. */
enum { SHIM_THREAD_COMMS = 4 };

/* What a thread knows between its intercepted calls (exchange.c owns it). */
typedef struct shim_thread {
    int depth;      /* intercepted calls in progress: a nested call (from inside hrelay or
                       MPI) passes through */
    unsigned epoch; /* shim_comm_epoch when the entries below were valid (a record's deletion
                       moves it, so a freed communicator's handle reused for a new one is never
                       mistaken for the old one) */
    int next;       /* the entry the next communicator takes (round robin) */
    int last;       /* the entry of the last call's communicator */
    MPI_Comm comm[SHIM_THREAD_COMMS];  /* the last communicators with a record */
    shim_comm *rec[SHIM_THREAD_COMMS]; /* and their records (NULL: an empty entry) */
} shim_thread;

/* The record of comm if thread t remembers it (see shim_thread; the last call's entry is looked
 * at first), else NULL. */
static inline shim_comm *shim_thread_find(shim_thread *t, MPI_Comm comm)
{
    if (shim_comm_epoch() != t->epoch)
        return NULL;
    if (t->comm[t->last] == comm && t->rec[t->last])
        return t->rec[t->last];
    for (int i = 0; i < SHIM_THREAD_COMMS; i++)
        if (t->comm[i] == comm && t->rec[i]) {
            t->last = i;
            return t->rec[i];
        }
    return NULL;
}

extern SHIM_TLS shim_thread shim_this_thread;

/* The most bytes per pair of an MPI_Alltoall(_c) on a communicator of p ranks that is too small
 * to explore: its busiest rank's bytes (plan_summary_bound: every rank sends and receives them
 * to and from each other rank, the same on every rank, as MPI requires) under
 * SHIM_EXPLORE_MIN_BYTES. */
static inline uint64_t shim_tiny_pair_bytes(int p)
{
    uint64_t peers = (uint64_t)(p - 1) * (shim_g.cfg.duplex == PLAN_DUPLEX_HALF ? 2u : 1u);
    return peers ? (SHIM_EXPLORE_MIN_BYTES - 1) / peers : UINT64_MAX - 1;
}

/* Whether an MPI_Alltoall(_c) of count elements of size bytes per pair on rec runs MPI's
 * algorithm unchecked without agreement: under auto with re-checks, once rec agreed an
 * MPI_Alltoall too small to explore by its bytes (rec->tiny_alltoall), where this one is too
 * (shim_tiny_pair_bytes). */
static inline int shim_tiny_alltoall(const shim_comm *rec, int request, MPI_Count count,
                                     MPI_Count size)
{
    if (!rec->tiny_alltoall || rec->no_private || request != SHIM_AUTO || shim_g.cfg.recheck == 0 ||
        count < 0 || size < 0)
        return 0;
    return size == 0 || (uint64_t)count <= (rec->tiny_alltoall - 1) / (uint64_t)size;
}

/* An MPI_Alltoall(_c)'s count and type per pair (the receive side's under MPI_IN_PLACE: recv)
 * for shim_quiet_begin; count -1 for an MPI_Alltoallv(_c). */
typedef struct shim_pair {
    MPI_Count count;
    MPI_Datatype type;
    int recv;
} shim_pair;

/* The shim_pair of an MPI_Alltoall(_c) with these arguments (a macro, not a function: the
 * entry points pick the count before it widens to MPI_Count, as they did by hand). */
#define SHIM_PAIR_OF(sendbuf, sendcount, sendtype, recvcount, recvtype)          \
    ((shim_pair){.count = (sendbuf) == MPI_IN_PLACE ? (recvcount) : (sendcount), \
                 .type = (sendbuf) == MPI_IN_PLACE ? (recvtype) : (sendtype),    \
                 .recv = (sendbuf) == MPI_IN_PLACE})

/* A call taking the unchecked path's common case, between shim_quiet_begin and shim_quiet_end:
 * its record, its site, and whether it reuses the communicator's decision (else
 * HRELAY_ALGO=native). */
typedef struct shim_quiet {
    shim_comm *rec;
    shim_site *site;
    int quiet;
} shim_quiet;

/* Counts a successful call run unchecked at site (quiet: it reused the communicator's
 * decision, counted as a cache hit) on its record rec. */
static inline void shim_count_unchecked(shim_comm *rec, shim_site *site, int quiet)
{
    shim_stats *st = &site->st;
    st->calls++;
    st->algo_calls[PLAN_ALGO_NATIVE]++;
    st->cache_hits += (uint64_t)quiet;
    st->unchecked += (uint64_t)quiet; /* the agreement's count too (site.h's unchecked_mark) */
    rec->last = PLAN_ALGO_NATIVE;
    rec->last_variant = PLAN_VARIANT_BASE;
}

/* Whether a call on comm from return address caller (an MPI_Alltoall's: pair) runs MPI's
 * algorithm unchecked and unsampled, decided as shim_alltoall_any decides it (the same record,
 * the same site, the same run of unchecked calls, the same shim_tiny_alltoall where the type is
 * the record's memo of a common one): then the call is counted on its communicator, *q is
 * filled, and the caller runs the PMPI function and hands its result to shim_quiet_end. Returns
 * 0, changing nothing, for every other call (it goes to shim_alltoall_any). Inlined always: the
 * entry points' common case must not pay a call. */
__attribute__((always_inline)) static inline int shim_quiet_begin(MPI_Comm comm, uintptr_t caller,
                                                                  shim_pair pair, shim_quiet *q)
{
    /* shim_alltoall_any's checks with record_of's and shim_site_of's cached cases (an entry
     * holds a record only once record_of found one, so MPI_COMM_NULL never matches), then its
     * unchecked branches before its counting; a call run_unchecked would time goes there */
    shim_thread *t = &shim_this_thread;
    if (!shim_g.active || t->depth > 0 || shim_g.cfg.site_depth != 1)
        return 0;
    shim_comm *rec = shim_thread_find(t, comm);
    if (!rec || caller != rec->sites.last_ra)
        return 0;
    shim_site *site = &rec->sites.site[rec->sites.last_site];
    int request = shim_comm_request(rec);
    int quiet = request != PLAN_ALGO_NATIVE;
    if (site->st.calls % SHIM_SAMPLE == 0)
        return 0;
    if (quiet && rec->calls >= rec->quiet_until) {
        const exec_type *m = &rec->type_memo[pair.recv];
        if (pair.count < 0 || m->size <= 0 || m->type != pair.type ||
            !shim_tiny_alltoall(rec, request, pair.count, m->size))
            return 0;
    }
    rec->calls++;
    t->depth++;
    *q = (shim_quiet){.rec = rec, .site = site, .quiet = quiet};
    return 1;
}

/* Ends a call that shim_quiet_begin let through: accounts it to its site as
 * shim_alltoall_any's unchecked path does. Returns rc, the PMPI function's result. */
static inline int shim_quiet_end(const shim_quiet *q, int rc)
{
    shim_this_thread.depth--;
    if (rc == MPI_SUCCESS)
        shim_count_unchecked(q->rec, q->site, q->quiet);
    return rc;
}

#endif
