/* A communicator's topology (topo.h): the node of every rank under HRELAY_NODE_SIZE, agreed
 * when the communicator's record is created, and the node and leader communicators of the
 * node-level metadata exchange, created the first time it runs. */
#include <stdlib.h>
#include <string.h>

#include "plan/cost.h"
#include "plan/hash.h"
#include "plan/node.h"
#include "shim/state.h"
#include "shim/topo.h"

/* This rank's node label in comm: the lowest rank of its shared-memory node (auto), or its
 * rank in MPI_COMM_WORLD divided by K. Returns an MPI error code. */
static int own_label(MPI_Comm comm, int rank, int node_size, int32_t *label)
{
    if (node_size != SHIM_NODE_AUTO) {
        int world;
        int rc = PMPI_Comm_rank(MPI_COMM_WORLD, &world);
        *label = world / node_size;
        return rc;
    }
    MPI_Comm shm;
    int rc = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shm);
    if (rc != MPI_SUCCESS)
        return rc;
    int lowest = rank;
    rc = PMPI_Allreduce(&rank, &lowest, 1, MPI_INT, MPI_MIN, shm);
    PMPI_Comm_free(&shm);
    *label = lowest;
    return rc;
}

/* Fills the figures of st and its layout from st->t (or one rank per node on p ranks). */
static void describe(shim_topo *st, int p)
{
    const plan_topo *t = &st->t;
    st->layout = plan_hash_bytes(PLAN_HASH_START, t->node_of, (size_t)t->p * sizeof *t->node_of);
    if (t->p == 0) {
        st->nodes = p;
        st->lanes_min = st->lanes_max = st->consecutive = 1;
        return;
    }
    st->nodes = t->n;
    st->lanes_min = plan_topo_min_lanes(t);
    st->lanes_max = plan_topo_max_lanes(t);
    st->consecutive = 1;
    for (int a = 0; a < t->n; a++)
        for (int k = t->first[a] + 1; k < t->first[a + 1]; k++)
            st->consecutive &= t->rank_at[k] == t->rank_at[k - 1] + 1;
}

int shim_topo_init(shim_topo *st, MPI_Comm comm, int p, int rank, int node_size)
{
    memset(st, 0, sizeof *st);
    st->node = st->leaders = MPI_COMM_NULL;
    st->node_size = node_size;
    int rc = MPI_SUCCESS;
    if (node_size != 1) {
        int32_t *label = malloc((size_t)p * sizeof *label);
        int ok = label != NULL;
        rc = PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
        if (rc == MPI_SUCCESS && ok)
            rc = own_label(comm, rank, node_size, &label[rank]);
        if (rc == MPI_SUCCESS && ok)
            rc = PMPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, label, 1, MPI_INT32_T, comm);
        if (rc == MPI_SUCCESS && ok) {
            plan_error err;
            ok = plan_topo_init(&st->t, p, label, &err) == 0;
            rc = PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
        }
        free(label);
        if (rc != MPI_SUCCESS || !ok || st->t.n == p)
            plan_topo_free(&st->t); /* one rank per node */
    }
    describe(st, p);
    return rc;
}

/* The world rank of each of comm's p ranks into world; 1 if all are ranks of MPI_COMM_WORLD,
 * 0 if some is not, -1 if MPI failed. */
static int world_ranks(MPI_Comm comm, int p, int *world)
{
    MPI_Group g, wg;
    if (PMPI_Comm_group(comm, &g) != MPI_SUCCESS)
        return -1;
    if (PMPI_Comm_group(MPI_COMM_WORLD, &wg) != MPI_SUCCESS) {
        PMPI_Group_free(&g);
        return -1;
    }
    int *in = malloc((size_t)p * sizeof *in), rc = in ? 1 : -1;
    for (int i = 0; in && i < p; i++)
        in[i] = i;
    if (in && PMPI_Group_translate_ranks(g, p, in, wg, world) != MPI_SUCCESS)
        rc = -1;
    for (int i = 0; rc == 1 && i < p; i++)
        if (world[i] == MPI_UNDEFINED)
            rc = 0;
    free(in);
    PMPI_Group_free(&g);
    PMPI_Group_free(&wg);
    return rc;
}

int shim_topo_init_local(shim_topo *st, MPI_Comm comm, int p, int node_size, int *ok)
{
    memset(st, 0, sizeof *st);
    st->node = st->leaders = MPI_COMM_NULL;
    st->node_size = node_size;
    *ok = 1;
    const int32_t *world_label = shim_g.world ? shim_g.world->node_label : NULL;
    if (node_size == SHIM_NODE_AUTO && !world_label)
        return 0;
    if (node_size != 1) {
        int *world = malloc((size_t)p * sizeof *world);
        int32_t *label = malloc((size_t)p * sizeof *label);
        int found = world && label ? world_ranks(comm, p, world) : -1;
        if (found == 0) {
            free(world);
            free(label);
            return 0;
        }
        plan_error err;
        for (int i = 0; found == 1 && i < p; i++)
            label[i] = node_size == SHIM_NODE_AUTO ? world_label[world[i]] : world[i] / node_size;
        *ok = found == 1 && plan_topo_init(&st->t, p, label, &err) == 0;
        free(world);
        free(label);
        if (!*ok || st->t.n == p)
            plan_topo_free(&st->t); /* one rank per node */
    }
    describe(st, p);
    return 1;
}

void shim_topo_one(shim_topo *st, int p)
{
    plan_topo_free(&st->t);
    describe(st, p);
}

const plan_topo *shim_topo_plan(const shim_topo *st)
{
    return st->t.p ? &st->t : NULL;
}

const plan_topo *shim_topo_nodes(const shim_topo *st)
{
    return st->t.p && st->t.n >= 2 && st->t.n < st->t.p ? &st->t : NULL;
}

int shim_topo_comms(shim_topo *st, MPI_Comm priv)
{
    if (st->have_comms)
        return MPI_SUCCESS;
    int rank, rc = PMPI_Comm_rank(priv, &rank);
    const plan_topo *t = shim_topo_plan(st);
    int node = t ? t->node_of[rank] : rank, lane = t ? t->lane_of[rank] : 0;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Comm_split(priv, node, lane, &st->node);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Comm_split(priv, lane == 0 ? 0 : MPI_UNDEFINED, node, &st->leaders);
    if (rc != MPI_SUCCESS) {
        if (st->node != MPI_COMM_NULL)
            PMPI_Comm_free(&st->node);
        if (st->leaders != MPI_COMM_NULL)
            PMPI_Comm_free(&st->leaders);
        return rc;
    }
    PMPI_Comm_set_errhandler(st->node, MPI_ERRORS_RETURN);
    if (st->leaders != MPI_COMM_NULL)
        PMPI_Comm_set_errhandler(st->leaders, MPI_ERRORS_RETURN);
    st->have_comms = 1;
    return MPI_SUCCESS;
}

int shim_topo_steps(const shim_topo *st, plan_algo algo)
{
    if (!plan_algo_is_node(algo))
        return 0;
    return shim_g.cfg.node_steps == SHIM_NODE_STEPS_AUTO ? plan_topo_steps_default(&st->t)
                                                          : shim_g.cfg.node_steps;
}

size_t shim_topo_sync(const shim_topo *st, plan_algo algo, size_t nsteps, uint64_t model_ps,
                      int p)
{
    int sync = shim_g.cfg.node_sync;
    if (nsteps < 2)
        return 0;
    if (!plan_algo_is_node(algo) || !shim_topo_plan(st))
        return shim_g.cfg.rank_sync ? nsteps : 0; /* a rank-level plan */
    if (sync == 0)
        return 0;
    if (sync == 1)
        return nsteps;
    unsigned __int128 barriers = (unsigned __int128)plan_cost_barrier(p, &shim_g.cfg.cost) *
                                 (nsteps - 1) * SHIM_NODE_SYNC_SHARE;
    return barriers <= model_ps ? nsteps : 0;
}

uint64_t shim_topo_step_bytes(int p)
{
    const plan_cost_params *c = &shim_g.cfg.cost;
    unsigned __int128 ps = c->step_ps;
    if (shim_g.cfg.node_sync != 0)
        ps += plan_cost_barrier(p, c);
    unsigned __int128 bytes = ps * 1000 / (c->beta_fs ? c->beta_fs : 1);
    return bytes < 1 ? 1 : bytes > UINT64_MAX ? UINT64_MAX : (uint64_t)bytes;
}

uint64_t shim_topo_join_bytes(int p)
{
    if (shim_g.cfg.node_join != SHIM_NODE_JOIN_AUTO)
        return shim_g.cfg.node_join;
    uint64_t step = shim_topo_step_bytes(p);
    return step > UINT64_MAX / SHIM_NODE_JOIN_STEPS ? UINT64_MAX : step * SHIM_NODE_JOIN_STEPS;
}

void shim_topo_free(shim_topo *st)
{
    /* a zero-initialised st holds handles that are neither communicators nor MPI_COMM_NULL */
    exec_window_free(&st->window);
    if (st->node && st->node != MPI_COMM_NULL)
        PMPI_Comm_free(&st->node);
    if (st->leaders && st->leaders != MPI_COMM_NULL)
        PMPI_Comm_free(&st->leaders);
    plan_topo_free(&st->t);
    free(st->meta);
    st->meta = NULL;
    st->have_comms = 0;
}
