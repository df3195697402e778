/* The report's "communicators" (comm_summary.h): each communicator's topology counted by its
 * rank 0 when its record goes (retired in the world's list) or at MPI_Finalize (records still
 * alive), gathered on rank 0 of MPI_COMM_WORLD and merged per topology. */
#include <stdlib.h>
#include <string.h>

#include "shim/comm.h"
#include "shim/comm_summary.h"
#include "shim/gather_root.h"
#include "shim/state.h"

/* Whether a and b describe the same topology (the key fields). */
static int same_key(const shim_comm_summary *a, const shim_comm_summary *b)
{
    return a->size == b->size && a->nodes == b->nodes && a->lanes_min == b->lanes_min &&
           a->lanes_max == b->lanes_max && a->consecutive == b->consecutive &&
           a->node_size == b->node_size;
}

/* Adds s into l (joining the entry of its topology). Returns 0, or -1 when out of memory. */
static int add(shim_comm_summaries *l, const shim_comm_summary *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (same_key(&l->v[i], s)) {
            l->v[i].comms += s->comms;
            l->v[i].calls += s->calls;
            l->v[i].patterns += s->patterns;
            l->v[i].node_patterns += s->node_patterns;
            l->v[i].privates += s->privates;
            l->v[i].declined += s->declined;
            return 0;
        }
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 4;
        shim_comm_summary *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = *s;
    return 0;
}

int shim_comm_summaries_add(shim_comm_summaries *l, const shim_comm *rec)
{
    if (rec->rank != 0)
        return 0;
    const shim_topo *st = &rec->topo;
    shim_comm_summary s = {.size = rec->p,
                           .nodes = st->nodes,
                           .lanes_min = st->lanes_min,
                           .lanes_max = st->lanes_max,
                           .consecutive = st->consecutive,
                           .node_size = st->node_size,
                           .comms = 1,
                           .calls = rec->calls,
                           .patterns = rec->patterns,
                           .node_patterns = st->node_patterns,
                           .privates = rec->priv != MPI_COMM_NULL,
                           .declined = (uint64_t)rec->no_private};
    return add(l, &s);
}

void shim_comm_summaries_free(shim_comm_summaries *l)
{
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* Orders summaries by size, then nodes, largest first, then by the other key fields. */
static int by_size(const void *a, const void *b)
{
    const shim_comm_summary *x = a, *y = b;
    const int32_t kx[] = {x->size,      x->nodes,       x->lanes_max,
                          x->lanes_min, x->consecutive, x->node_size};
    const int32_t ky[] = {y->size,      y->nodes,       y->lanes_max,
                          y->lanes_min, y->consecutive, y->node_size};
    for (size_t i = 0; i < sizeof kx / sizeof kx[0]; i++)
        if (kx[i] != ky[i])
            return kx[i] < ky[i] ? 1 : -1;
    return 0;
}

int shim_comm_summaries_gather(shim_world *w, shim_comm_summaries *out)
{
    shim_comm_summaries mine = {0};
    shim_gathered g;
    int rank, bad = 0;
    memset(out, 0, sizeof *out);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    shim_world_lock(w);
    for (size_t i = 0; i < w->comms.n && !bad; i++)
        bad = add(&mine, &w->comms.v[i]) != 0;
    for (size_t i = 0; i < w->nlive && !bad; i++)
        bad = shim_comm_summaries_add(&mine, w->live[i]) != 0;
    shim_world_unlock(w);

    int rc = shim_gather_root(mine.v, bad ? -1 : (int)(mine.n * sizeof *mine.v), &g);
    size_t total = 0;
    for (int r = 0; rc == MPI_SUCCESS && rank == 0 && r < g.n; r++)
        total += (size_t)g.lens[r];
    const shim_comm_summary *all = (const shim_comm_summary *)g.all;
    for (size_t i = 0; rc == MPI_SUCCESS && i < total / sizeof *all; i++)
        if (add(out, &all[i]) != 0)
            rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS && out->n)
        qsort(out->v, out->n, sizeof *out->v, by_size);
    if (rc != MPI_SUCCESS)
        shim_comm_summaries_free(out);
    shim_comm_summaries_free(&mine);
    shim_gathered_free(&g);
    return rc;
}
