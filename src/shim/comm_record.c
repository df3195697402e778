/* Per-communicator records: an attribute on the user's communicator holding hrelay's private
 * duplicate (made at the first gather, so that a communicator whose calls never gather takes
 * no context id), the plan cache, the call sites with their statistics and the scratch memory
 * of a call. The attribute is not copied by MPI_Comm_dup (a duplicate gets its own record on
 * first use); its delete callback frees the duplicate and hands the statistics to the
 * process. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shim/agree.h"
#include "shim/comm.h"
#include "shim/describe.h"
#include "shim/lineage.h"
#include "shim/log.h"

atomic_uint shim_comm_epochs;

/* Frees a record's memory (the private communicator is the caller's business). */
static void record_free(shim_comm *rec)
{
    for (int i = 0; i < rec->nslots; i++)
        shim_slot_release(&rec->slot[i]);
    free(rec->slot);
    for (int i = 0; i < SHIM_HISTORY_SITES; i++)
        free(rec->site_hist[i]);
    shim_sites_free(&rec->sites);
    shim_topo_free(&rec->topo);
    free(rec->gather);
    free(rec);
}

/* Adds rec to (add) or removes it from the world's list of live records; 0 or -1. */
static int live(shim_world *w, shim_comm *rec, int add)
{
    int rc = 0;
    shim_world_lock(w);
    if (add) {
        if (w->nlive == w->cap_live) {
            size_t cap = w->cap_live ? 2 * w->cap_live : 8;
            shim_comm **g = realloc(w->live, cap * sizeof *g);
            if (g) {
                w->live = g;
                w->cap_live = cap;
            }
        }
        if (w->nlive < w->cap_live)
            w->live[w->nlive++] = rec;
        else
            rc = -1;
    } else {
        for (size_t i = 0; i < w->nlive; i++)
            if (w->live[i] == rec) {
                w->live[i] = w->live[--w->nlive];
                break;
            }
    }
    shim_world_unlock(w);
    return rc;
}

int shim_world_sites(shim_world *w, shim_sites *out)
{
    int rc = 0;
    memset(out, 0, sizeof *out);
    shim_world_lock(w);
    rc |= shim_sites_merge(out, &w->retired);
    for (size_t i = 0; i < w->nlive; i++)
        rc |= shim_sites_merge(out, &w->live[i]->sites);
    shim_world_unlock(w);
    return rc ? -1 : 0;
}

/* Adds delta to the count of live private duplicates; returns 1 if it stays within
 * SHIM_PRIVATE_MAX (else leaves it unchanged and returns 0). */
static int private_count(shim_world *w, int delta)
{
    shim_world_lock(w);
    int room = w->nprivate + delta <= SHIM_PRIVATE_MAX;
    if (room)
        w->nprivate += delta;
    shim_world_unlock(w);
    return room;
}

/* Attribute delete callback: keeps the record's statistics (world's retired sites), frees
 * the private communicator and the record. */
static int delete_record(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    shim_comm *rec = attr;
    (void)comm;
    (void)keyval;
    (void)extra;
    if (!rec)
        return MPI_SUCCESS;
    atomic_fetch_add_explicit(&shim_comm_epochs, 1, memory_order_acq_rel);
    shim_world *w = shim_g.world;
    if (w) {
        live(w, rec, 0);
        shim_world_lock(w);
        if ((shim_sites_merge(&w->retired, &rec->sites) != 0 ||
             shim_comm_summaries_add(&w->comms, rec) != 0) && !w->dump_warned)
            shim_warn("out of memory keeping the statistics of a freed communicator");
        shim_world_unlock(w);
    }
    if (rec->priv != MPI_COMM_NULL) {
        PMPI_Comm_free(&rec->priv);
        if (w)
            private_count(w, -1);
    }
    PMPI_Type_free(&rec->agree_type);
    record_free(rec);
    return MPI_SUCCESS;
}

/* Why a communicator runs MPI's algorithm only (warn_no_private). */
typedef enum { NO_ROOM, NO_MEMORY, NO_DUP } no_private_why;

/* Prints once per process (rank 0 of the communicator) why a communicator runs MPI's
 * algorithm only. */
static void warn_no_private(shim_comm *rec, no_private_why why)
{
    shim_world *w = shim_g.world;
    shim_world_lock(w);
    int first = !w->private_warned;
    w->private_warned = 1;
    shim_world_unlock(w);
    if (!first || rec->rank != 0)
        return;
    if (why == NO_ROOM)
        shim_warn("a communicator of %d ranks runs MPI's algorithm only: some rank already "
                  "holds %d private duplicates (one per live communicator that gathered a "
                  "pattern)",
                  rec->p, SHIM_PRIVATE_MAX);
    else if (why == NO_MEMORY)
        shim_warn("a communicator of %d ranks runs MPI's algorithm only: some rank is out of "
                  "memory for its pattern cache",
                  rec->p);
    else
        shim_warn("a communicator of %d ranks runs MPI's algorithm only: MPI_Comm_dup failed "
                  "on some rank",
                  rec->p);
}

/* Gives rec its HRELAY_CACHE_SIZE zeroed cache slots, each with its row and column (made at
 * the first gather, so that a communicator whose calls never gather does not pay for them).
 * Returns 0, or -1 when out of memory (rec unchanged). */
static int slots_alloc(shim_comm *rec)
{
    size_t n = (size_t)rec->p, k = (size_t)shim_g.cfg.cache_size;
    shim_slot *slot = calloc(1, k * (sizeof(shim_slot) + 2 * n * sizeof(uint64_t)));
    if (!slot)
        return -1;
    uint64_t *words = (uint64_t *)(slot + k);
    for (size_t i = 0; i < k; i++) {
        slot[i].row = words + 2 * n * i;
        slot[i].col = words + 2 * n * i + n;
    }
    rec->slot = slot;
    rec->nslots = (int)k;
    return 0;
}

int shim_comm_private(shim_comm *rec)
{
    if (rec->priv != MPI_COMM_NULL)
        return 1;
    if (rec->no_private)
        return 0;
    /* ok: [room under the limit, the cache's memory, the duplicate]; MIN over ranks, twice
     * (MPI_Comm_dup is collective: every rank calls it or none) */
    int memory = rec->slot || slots_alloc(rec) == 0;
    int mine = memory && private_count(shim_g.world, 1), ok[3] = {mine, memory, 0};
    int rc = PMPI_Allreduce(MPI_IN_PLACE, ok, 2, MPI_INT, MPI_MIN, rec->comm);
    MPI_Comm priv = MPI_COMM_NULL;
    if (rc == MPI_SUCCESS && ok[0]) {
        ok[2] = PMPI_Comm_dup(rec->comm, &priv) == MPI_SUCCESS;
        rc = PMPI_Allreduce(MPI_IN_PLACE, &ok[2], 1, MPI_INT, MPI_MIN, rec->comm);
    }
    if (rc == MPI_SUCCESS && ok[0] && ok[2]) {
        PMPI_Comm_set_errhandler(priv, MPI_ERRORS_RETURN);
        rec->priv = priv;
        return 1;
    }
    if (priv != MPI_COMM_NULL)
        PMPI_Comm_free(&priv);
    if (mine)
        private_count(shim_g.world, -1);
    rec->no_private = 1;
    warn_no_private(rec, !ok[1] ? NO_MEMORY : !ok[0] ? NO_ROOM : NO_DUP);
    return 0;
}

int shim_comm_gather_buffer(shim_comm *rec)
{
    if (!rec->gather)
        rec->gather = malloc((size_t)rec->p * ((size_t)rec->p + 2) * sizeof *rec->gather);
    return rec->gather ? 0 : -1;
}

/* Creates the attribute keys (see comm.h). */
int shim_comm_keyval_create(int *keyval, int *request_keyval)
{
    int rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_record, keyval, NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, request_keyval,
                                 NULL);
    if (rc != MPI_SUCCESS)
        PMPI_Comm_free_keyval(keyval);
    return rc;
}

/* Allocates a zeroed record for p ranks with all its arrays in one block (but the cache slots:
 * shim_comm_private, the matrix: shim_comm_gather_buffer, and the sites' histories); NULL when
 * out of memory. */
static shim_comm *record_alloc(int p)
{
    size_t n = (size_t)p;
    size_t nblocks = plan_summary_blocks(p, &shim_g.cfg.cost);
    size_t agree = (size_t)shim_agree_words(nblocks);
    size_t words = 2 * n + agree + nblocks;
    size_t bytes = sizeof(shim_comm) + sizeof(plan_history) + words * sizeof(uint64_t) +
                   2 * n * sizeof(MPI_Count) + 2 * n * sizeof(MPI_Aint);
    shim_comm *rec = calloc(1, bytes);
    if (!rec)
        return NULL;
    char *c = (char *)(rec + 1);
    rec->hist = (plan_history *)c;
    c += sizeof(plan_history);
    rec->row = (uint64_t *)c;
    c += n * sizeof(uint64_t);
    rec->col = (uint64_t *)c;
    c += n * sizeof(uint64_t);
    rec->agree_buf = (uint64_t *)c;
    c += agree * sizeof(uint64_t);
    rec->summary.block = (uint64_t *)c;
    rec->summary.nblocks = nblocks;
    c += nblocks * sizeof(uint64_t);
    rec->scount = (MPI_Count *)c;
    c += n * sizeof(MPI_Count);
    rec->rcount = (MPI_Count *)c;
    c += n * sizeof(MPI_Count);
    rec->sdispl = (MPI_Aint *)c;
    c += n * sizeof(MPI_Aint);
    rec->rdispl = (MPI_Aint *)c;
    rec->agree_type = MPI_DATATYPE_NULL;
    return rec;
}

/* The request hrelay_set_algorithm left on comm before it had a record (control.c), else
 * SHIM_REQUEST_ENV. */
static int pending_request(MPI_Comm comm)
{
    void *v = NULL;
    int flag = 0;
    if (PMPI_Comm_get_attr(comm, shim_g.request_keyval, &v, &flag) != MPI_SUCCESS || !flag)
        return SHIM_REQUEST_ENV;
    return (int)(intptr_t)v;
}

/* Frees a record that is no attribute of its communicator (the creation failed). */
static void record_discard(shim_comm *rec)
{
    shim_topo_free(&rec->topo);
    live(shim_g.world, rec, 0);
    if (rec->agree_type != MPI_DATATYPE_NULL)
        PMPI_Type_free(&rec->agree_type);
    free(rec);
}

/* A new record of comm, of lineage `lineage` (shim_lineage_of), with the state of a
 * communicator before its first call, its topology found where that needs no communication
 * (rec->topo_local, this rank's success in rec->topo_ok); not yet an attribute of comm. NULL
 * when out of memory. Local. */
static shim_comm *record_new(MPI_Comm comm, int lineage)
{
    int p, rank;
    PMPI_Comm_size(comm, &p);
    PMPI_Comm_rank(comm, &rank);
    shim_comm *rec = record_alloc(p);
    if (!rec)
        return NULL;
    if (shim_agree_type_create(shim_agree_words(rec->summary.nblocks), &rec->agree_type) !=
            MPI_SUCCESS ||
        live(shim_g.world, rec, 1) != 0) {
        record_discard(rec);
        return NULL;
    }
    rec->topo_ok = 1;
    rec->topo_local = shim_topo_init_local(&rec->topo, comm, p, shim_g.cfg.node_size,
                                           &rec->topo_ok);
    rec->comm = comm;
    rec->priv = MPI_COMM_NULL;
    rec->p = p;
    rec->rank = rank;
    rec->request = pending_request(comm);
    rec->lineage = lineage;
    rec->last = -1;
    rec->prev = shim_prev_none(-1);
    rec->quiet_len = SHIM_QUIET_FIRST;
    return rec;
}

uint64_t shim_comm_flags(const shim_comm *rec, const shim_args *a, uint64_t *load)
{
    *load = 0;
    if (!rec)
        return 0;
    /* nodes of several ranks known here, two or more of them as the agreed calls' summaries
     * see them (shim_topo_nodes; else no node to stay on: a communicator on one node is
     * decided as one with a rank per node) */
    const plan_topo *nodes = rec->topo_local && rec->topo_ok ? shim_topo_nodes(&rec->topo) : NULL;
    const int32_t *node = nodes ? nodes->node_of : NULL;
    uint64_t off = UINT64_MAX;
    *load = shim_args_load(a, rec->p, rec->rank, shim_g.cfg.duplex == PLAN_DUPLEX_HALF, node, &off);
    return SHIM_MADE | (rec->topo_ok ? SHIM_TOPO_OK : 0u) | (node && off == 0 ? SHIM_ON_NODE : 0u);
}

/* Completes rec after its creation's agreement (flags and load agreed): the agreed values, the
 * topology (collective where it was not found locally), and, where attach, the attribute.
 * Returns 0, or -1 (rec untouched but for its topology) where this rank failed. */
static int record_finish(MPI_Comm comm, shim_comm *rec, uint64_t flags, uint64_t load, int attach)
{
    rec->first_load = load;
    rec->first_on_node = (flags & SHIM_ON_NODE) != 0;
    rec->pending = 0;
    if (rec->topo_local && !(flags & SHIM_TOPO_OK))
        shim_topo_one(&rec->topo, rec->p); /* some rank ran out of memory */
    if (!rec->topo_local &&
        shim_topo_init(&rec->topo, comm, rec->p, rec->rank, shim_g.cfg.node_size) != MPI_SUCCESS)
        return -1;
    return !attach || PMPI_Comm_set_attr(comm, shim_g.keyval, rec) == MPI_SUCCESS ? 0 : -1;
}

/* Creates comm's record (see comm.h); NULL on every rank on failure. One allreduce where the
 * topology is known without communication (shim_topo_init_local); no duplicate
 * (shim_comm_private makes it at the first gather). */
shim_comm *shim_comm_create(MPI_Comm comm, const shim_args *a)
{
    shim_comm *rec = record_new(comm, shim_lineage_of(comm));
    /* over ranks: AND of the flags, MAX of the load */
    uint64_t w[2];
    w[0] = shim_comm_flags(rec, a, &w[1]);
    if (shim_agree_few(w, 2, 1, 0, comm) != MPI_SUCCESS)
        w[0] = 0;
    if (rec && (w[0] & SHIM_MADE) && record_finish(comm, rec, w[0], w[1], 1) == 0)
        return rec;
    if (rec)
        record_discard(rec);
    return NULL;
}

int shim_comm_defers(MPI_Comm comm)
{
    int request = pending_request(comm);
    if (request == SHIM_REQUEST_ENV)
        request = shim_g.cfg.algo;
    return request == SHIM_AUTO && shim_g.cfg.recheck > 0 && shim_g.cfg.tune > 0;
}

shim_comm *shim_comm_open(MPI_Comm comm)
{
    int lineage = shim_lineage_of(comm);
    uint32_t defer = shim_lineage_take(lineage);
    shim_comm *rec = record_new(comm, lineage);
    if (rec) {
        rec->pending = 1;
        rec->defer = defer;
        rec->quiet_until = defer; /* the deferred calls but the last, whose time is kept
                                     (deferred_first), are a run of unchecked calls */
        if (PMPI_Comm_set_attr(comm, shim_g.keyval, rec) == MPI_SUCCESS)
            return rec;
        record_discard(rec);
    }
    PMPI_Comm_set_attr(comm, shim_g.request_keyval, (void *)(intptr_t)SHIM_REQUEST_UNMADE);
    shim_lineage_keep(comm, defer);
    return NULL;
}

int shim_comm_unmade(MPI_Comm comm)
{
    return pending_request(comm) == SHIM_REQUEST_UNMADE;
}

shim_comm *shim_comm_settle(MPI_Comm comm, shim_comm *rec, uint64_t flags, uint64_t load)
{
    if (rec && (flags & SHIM_MADE) && record_finish(comm, rec, flags, load, 0) == 0)
        return rec;
    if (rec)
        PMPI_Comm_delete_attr(comm, shim_g.keyval); /* frees rec, keeping its statistics */
    else
        PMPI_Comm_delete_attr(comm, shim_g.request_keyval);
    return NULL;
}

/* The record of comm, if it has one (see comm.h). */
shim_comm *shim_comm_find(MPI_Comm comm)
{
    shim_comm *rec = NULL;
    int flag = 0;
    if (PMPI_Comm_get_attr(comm, shim_g.keyval, &rec, &flag) != MPI_SUCCESS || !flag)
        return NULL;
    return rec;
}

/* Frees MPI_COMM_WORLD's record (see comm.h). */
void shim_comm_release_world(void)
{
    void *rec = NULL;
    int flag = 0;
    if (PMPI_Comm_get_attr(MPI_COMM_WORLD, shim_g.keyval, &rec, &flag) == MPI_SUCCESS && flag)
        PMPI_Comm_delete_attr(MPI_COMM_WORLD, shim_g.keyval);
}
