/* Checking node plans, independently of the expansion that built them: the recorded topology,
 * the NIC rule and delivery (plan_verify), and the node-level bandwidth term. */
#include <stdlib.h>
#include <string.h>

#include "plan/node.h"

int plan_verify_node(const plan_matrix *m, const plan_topo *t, const plan *pl, plan_error *err)
{
    if (pl->nnodes < 1 || !pl->node_of)
        return plan_error_set(err, 0, "not a node plan (no topology recorded)");
    if (pl->p != t->p || pl->nnodes != t->n)
        return plan_error_set(err, 0, "plan for %d ranks on %d nodes, topology of %d on %d",
                              pl->p, pl->nnodes, t->p, t->n);
    for (int r = 0; r < t->p; r++)
        if (pl->node_of[r] != t->node_of[r])
            return plan_error_set(err, 0, "the plan puts rank %d on node %d, the topology on %d",
                                  r, (int)pl->node_of[r], (int)t->node_of[r]);
    return plan_verify(m, pl, err);
}

/* The largest node load of step s (see plan_node_bandwidth; node_of NULL: every rank its own
 * node); sent and recvd are zero on entry
 * and left zero, touched is scratch for 2 entries per transfer. */
static uint64_t step_load(const plan *pl, size_t s, const int32_t *node_of, plan_duplex duplex,
                          uint64_t *sent, uint64_t *recvd, int32_t *touched)
{
    size_t n = 0;
    for (size_t k = pl->step_begin[s]; k < pl->step_begin[s + 1]; k++) {
        const plan_transfer *tr = &pl->transfers[k];
        int a = node_of ? node_of[tr->src] : tr->src, b = node_of ? node_of[tr->dst] : tr->dst;
        if (a == b)
            continue;
        sent[a] += tr->bytes;
        recvd[b] += tr->bytes;
        touched[n++] = a;
        touched[n++] = b;
    }
    uint64_t most = 0;
    for (size_t k = 0; k < n; k++) {
        int a = touched[k];
        uint64_t load = duplex == PLAN_DUPLEX_HALF ? sent[a] + recvd[a]
                                                   : (sent[a] > recvd[a] ? sent[a] : recvd[a]);
        most = load > most ? load : most;
    }
    for (size_t k = 0; k < n; k++)
        sent[touched[k]] = recvd[touched[k]] = 0;
    return most;
}

uint64_t *plan_node_step_loads(const plan *pl, const int32_t *node_of, plan_duplex duplex)
{
    int n = node_of ? 0 : pl->p;
    for (int r = 0; node_of && r < pl->p; r++)
        n = node_of[r] >= n ? node_of[r] + 1 : n;
    size_t most = 1;
    for (size_t s = 0; s < pl->nsteps; s++)
        if (pl->step_begin[s + 1] - pl->step_begin[s] > most)
            most = pl->step_begin[s + 1] - pl->step_begin[s];
    uint64_t *sent = calloc(2 * (size_t)n, sizeof *sent);
    int32_t *touched = malloc(2 * most * sizeof *touched);
    uint64_t *load = malloc((pl->nsteps ? pl->nsteps : 1) * sizeof *load);
    for (size_t s = 0; sent && touched && load && s < pl->nsteps; s++)
        load[s] = step_load(pl, s, node_of, duplex, sent, sent + n, touched);
    if (!sent || !touched) {
        free(load);
        load = NULL;
    }
    free(sent);
    free(touched);
    return load;
}

uint64_t plan_node_bandwidth(const plan *pl, const int32_t *node_of, plan_duplex duplex)
{
    uint64_t *load = plan_node_step_loads(pl, node_of, duplex), total = 0;
    if (!load)
        return UINT64_MAX;
    for (size_t s = 0; s < pl->nsteps; s++)
        total += load[s];
    free(load);
    return total;
}

double plan_node_modeled_cost(const plan *pl, const plan_model *model)
{
    uint64_t *load = plan_node_step_loads(pl, pl->node_of, pl->duplex);
    if (!load)
        return -1;
    double c = 0;
    for (size_t s = 0; s < pl->nsteps; s++)
        c += model->alpha_s + model->beta_s_per_byte * (double)load[s];
    free(load);
    return c;
}
