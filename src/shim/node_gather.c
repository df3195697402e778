/* node-direct's miss path at node scale (node_gather.h). What a rank receives for a new
 * pattern: N (N + 1) words of node matrix (and the pattern's identity) and P words of column,
 * O(N^2 + P), where the usual gather brings P (P + 2). Phases: the node matrix and the column;
 * the node plan and this rank's program; one agreement; the slot and the run. */
#include <stdlib.h>
#include <string.h>

#include "plan/hash.h"
#include "plan/node.h"
#include "shim/decide.h"
#include "shim/log.h"
#include "shim/node_gather.h"
#include "shim/state.h"
#include "shim/validate.h"

int shim_node_path(const shim_comm *rec, int request)
{
    return request == PLAN_ALGO_NODE_DIRECT && shim_topo_plan(&rec->topo) != NULL;
}

/* Makes sure rec->topo.meta exists; 0 or -1. */
static int meta_buffer(shim_comm *rec)
{
    size_t n = (size_t)rec->topo.nodes;
    if (!rec->topo.meta)
        rec->topo.meta = malloc(((n + 1) * (n + 1) + (size_t)rec->p) * sizeof *rec->topo.meta);
    return rec->topo.meta ? 0 : -1;
}

int shim_miss_buffer(shim_comm *rec, int request)
{
    if (shim_node_path(rec, request))
        return meta_buffer(rec);
    if (request == SHIM_AUTO && shim_topo_nodes(&rec->topo) && meta_buffer(rec))
        return -1; /* auto may take the node path too (shim_node_miss) */
    return shim_comm_gather_buffer(rec);
}

/* A result saying the call is over with rc. */
static shim_miss_result done(int rc)
{
    return (shim_miss_result){.outcome = SHIM_MISS_DONE, .slot = -1, .rc = rc};
}

/* No error in the minimum of errors(): below 2^63, since MPICH 4.0.2 compares unsigned
 * integers as signed in MPI_MIN and MPI_MAX (pmodels/mpich#6083). */
#define NO_ERROR ((uint64_t)INT64_MAX)

/* Some rank's arguments are erroneous (or ask for MPI's exchange): one allreduce (minima) of
 * [lowest erroneous rank and its class, no rank asks for MPI]; this rank's own class, else the
 * lowest erroneous rank's, raised on every rank, as the gather of shim_miss does. */
static shim_miss_result errors(shim_call *c)
{
    uint64_t w[2] = {c->status > 0 ? (uint64_t)c->rec->rank << 32 | (uint32_t)c->status : NO_ERROR,
                     c->status != SHIM_STATUS_NATIVE};
    int rc = PMPI_Allreduce(MPI_IN_PLACE, w, 2, MPI_UINT64_T, MPI_MIN, c->rec->priv);
    if (rc != MPI_SUCCESS)
        return done(shim_raise(c->a, rc));
    if (w[0] != NO_ERROR)
        return done(shim_raise(c->a, c->status > 0 ? c->status : (int)(w[0] & 0xffffffffu)));
    return (shim_miss_result){.outcome = SHIM_MISS_NATIVE, .slot = -1};
}

/* Phase 1: the node matrix into nm (N x N at the start of the metadata's node part) and this
 * rank's column into col; *id receives the pattern's identity (the sum over ranks of a hash of
 * each rank's row and type facts: the same on every rank). Returns an MPI error code. */
static int exchange(shim_call *c, plan_matrix *nm, uint64_t **col, uint64_t *id)
{
    shim_comm *rec = c->rec;
    shim_topo *st = &rec->topo;
    const plan_topo *t = &st->t;
    size_t n = (size_t)t->n, w = n + 1;
    uint64_t *vec = st->meta, *all = vec + w;
    *col = all + n * w;
    memset(vec, 0, w * sizeof *vec);
    for (int j = 0; j < rec->p; j++)
        if (j != rec->rank)
            vec[t->node_of[j]] += rec->row[j];
    uint64_t mine[2] = {(uint64_t)rec->rank, c->facts.types};
    vec[n] = plan_hash_words(plan_hash_words(PLAN_HASH_START, mine, 2), rec->row, (size_t)rec->p);
    int rc = shim_topo_comms(st, rec->priv);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Alltoall(rec->row, 1, MPI_UINT64_T, *col, 1, MPI_UINT64_T, rec->priv);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Reduce(t->lane_of[rec->rank] ? vec : MPI_IN_PLACE, vec, (int)w, MPI_UINT64_T,
                         MPI_SUM, 0, st->node);
    if (rc == MPI_SUCCESS && st->leaders != MPI_COMM_NULL)
        rc = PMPI_Allgather(vec, (int)w, MPI_UINT64_T, all, (int)w, MPI_UINT64_T, st->leaders);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Bcast(all, (int)(n * w), MPI_UINT64_T, 0, st->node);
    if (rc != MPI_SUCCESS)
        return rc;
    *id = 0;
    for (size_t a = 0; a < n; a++) { /* rows of w words -> the n x n matrix, identities summed */
        *id += all[a * w + n];
        memmove(all + a * n, all + a * w, n * sizeof *all);
    }
    *nm = (plan_matrix){.p = (int)n, .bytes = all};
    shim_log(2,
             "%s on %d ranks: node-level metadata of a new pattern: %zu nodes, %zu words per "
             "rank",
             shim_args_name(c->a), rec->p, n, n * w + (size_t)rec->p);
    return MPI_SUCCESS;
}

/* The steps of the whole node-direct plan of node plan np for node matrix nm: np's, or one
 * when only messages within nodes move (step 0, beside the node plan's first step). */
static size_t plan_steps(const plan *np, const plan_matrix *nm)
{
    for (int a = 0; !np->nsteps && a < nm->p; a++)
        if (plan_matrix_at(nm, a, a))
            return 1;
    return np->nsteps;
}

/* Phase 2: this rank's program of node-direct for the node matrix nm and its column col
 * (NULL: planning failed here). */
static shim_prog *plan_own(shim_comm *rec, const plan_matrix *nm, const uint64_t *col)
{
    plan_options no = {.min_step_bytes = shim_g.cfg.min_step,
                       .duplex = shim_g.cfg.duplex,
                       .max_segments = (size_t)shim_g.cfg.max_plan,
                       .node_step_bytes = shim_topo_step_bytes(rec->p)};
    plan np;
    plan_error err;
    if (plan_build_node_matrix(PLAN_ALGO_NODE_DIRECT, nm, &no, &np, &err) != 0) {
        shim_log(2, "node-direct cannot plan this pattern: %s", err.text);
        return NULL;
    }
    shim_prog *prog = calloc(1, sizeof *prog);
    plan_node_view v = {.rank = rec->rank, .row = rec->row, .col = col};
    if (!prog || plan_node_local_own(&np, nm, &rec->topo.t, &v, &prog->lo, &err) != 0) {
        free(prog);
        plan_free(&np);
        return NULL;
    }
    prog->refs = 1;
    prog->algo = PLAN_ALGO_NODE_DIRECT;
    prog->nsteps = plan_steps(&np, nm);
    prog->nsegments = np.nsegments; /* of the node plan: no rank has the whole plan */
    prog->model_ps = plan_cost_plan(&np, &shim_g.cfg.cost); /* the NICs' time */
    shim_prog_set_run(prog, &rec->topo, rec->p, &np, NULL); /* np's ranks are the nodes */
    plan_free(&np);
    return prog;
}

/* 1 if some rank sends this rank more than its receive region for that rank holds. */
static int truncated(const uint64_t *col, const exec_exchange *x)
{
    for (int i = 0; i < x->p; i++)
        if (col[i] > (uint64_t)x->recv.count[i] * (uint64_t)x->recv.type.size)
            return 1;
    return 0;
}

/* The agreement of a new pattern on the node path: maxima over ranks. */
enum { W_TRUNCATED, W_UNPLANNED, W_UNPREPARED, WORDS };

shim_miss_result shim_node_miss(shim_call *c, int ok)
{
    if (!ok)
        return errors(c);
    shim_comm *rec = c->rec;
    plan_matrix nm;
    uint64_t *col, id;
    int rc = exchange(c, &nm, &col, &id);
    if (rc != MPI_SUCCESS)
        return done(shim_raise(c->a, rc));

    /* propose: a slot, this rank's program and its run, unless a message to it is truncated */
    uint64_t w[WORDS] = {truncated(col, &c->x), 0, 0};
    int trunc_here = (int)w[W_TRUNCATED], si = -1;
    shim_slot *s = NULL;
    if (!trunc_here) {
        s = &rec->slot[si = shim_cache_victim(rec, -1)];
        s->facts = c->facts;
        shim_prog *prog = plan_own(rec, &nm, col);
        w[W_UNPLANNED] = !prog;
        w[W_UNPREPARED] = prog && shim_run_prepare(c->a, rec, &c->x, prog, &c->run) != 0;
        s->prog[PLAN_ALGO_NODE_DIRECT] = prog;
    }
    rc = PMPI_Allreduce(MPI_IN_PLACE, w, WORDS, MPI_UINT64_T, MPI_MAX, rec->priv);
    if (rc != MPI_SUCCESS || w[W_TRUNCATED]) {
        if (s)
            shim_slot_clear(s);
        return done(rc != MPI_SUCCESS ? shim_raise(c->a, rc)
                                      : shim_truncated_call(c->a, trunc_here));
    }

    /* the choice: node-direct unless it failed to plan somewhere, native as the fallback */
    s->ncand = 0;
    s->cand[s->ncand++] = (plan_candidate){.algo = PLAN_ALGO_NODE_DIRECT, .model_ps = 0};
    s->cand[s->ncand++] = (plan_candidate){.algo = PLAN_ALGO_NATIVE, .model_ps = 2};
    s->planned = 1;
    if (w[W_UNPLANNED]) {
        shim_prog_release(s->prog[PLAN_ALGO_NODE_DIRECT]);
        s->prog[PLAN_ALGO_NODE_DIRECT] = NULL;
    }
    shim_decide_choose(rec, s, w[W_UNPLANNED] ? 1u << PLAN_ALGO_NODE_DIRECT : 0);
    /* MPI's algorithm modeled on the node matrix (no rank has the P x P matrix) */
    s->model_native_ps = plan_cost_native(&nm, shim_args_native_kind(c->a), &shim_g.cfg.cost);
    s->used = s->gen = rec->calls;
    s->row_hash = c->row_hash;
    s->site = c->site ? c->site->key : 0;
    s->matrix_hash = plan_hash_words(PLAN_HASH_START, &id, 1);
    memcpy(s->row, rec->row, (size_t)rec->p * sizeof *s->row);
    memcpy(s->col, col, (size_t)rec->p * sizeof *s->col);
    rec->patterns++;
    rec->topo.node_patterns++;
    c->run.algo = w[W_UNPLANNED] || w[W_UNPREPARED] ? PLAN_ALGO_NATIVE
                                                    : plan_choice_next(&s->choice);
    return (shim_miss_result){
        .outcome = SHIM_MISS_RUN, .slot = si, .algo = c->run.algo, .planned = s->planned};
}
