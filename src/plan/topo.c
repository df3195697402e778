/* The topology of ranks on nodes: construction, the node matrix and the node-level bounds. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plan/topo.h"

/* A rank and its node label, for sorting by label. */
typedef struct labelled {
    int64_t label;
    int32_t rank;
} labelled;

/* qsort order: by label, then by rank. */
static int by_label(const void *a, const void *b)
{
    const labelled *x = a, *y = b;
    if (x->label != y->label)
        return x->label < y->label ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Allocates t's arrays for p ranks and n nodes. Returns 0, or -1 with err set. */
static int topo_alloc(plan_topo *t, int p, int n, plan_error *err)
{
    memset(t, 0, sizeof *t);
    t->node_of = malloc((size_t)p * sizeof *t->node_of);
    t->lane_of = malloc((size_t)p * sizeof *t->lane_of);
    t->first = calloc((size_t)n + 1, sizeof *t->first);
    t->rank_at = malloc((size_t)p * sizeof *t->rank_at);
    if (!t->node_of || !t->lane_of || !t->first || !t->rank_at) {
        plan_topo_free(t);
        return plan_error_set(err, 0, "out of memory for the topology of %d ranks", p);
    }
    t->p = p;
    t->n = n;
    return 0;
}

/* Fills lane_of, first and rank_at from node_of (a counting sort: rank order kept per node). */
static void topo_index(plan_topo *t)
{
    for (int r = 0; r < t->p; r++)
        t->first[t->node_of[r] + 1]++;
    for (int a = 0; a < t->n; a++)
        t->first[a + 1] += t->first[a];
    int32_t *fill = t->lane_of; /* its first n entries: per-node cursors (n <= p) */
    memset(fill, 0, (size_t)t->n * sizeof *fill);
    for (int r = 0; r < t->p; r++) {
        int a = t->node_of[r];
        t->rank_at[t->first[a] + fill[a]++] = r;
    }
    for (int a = 0; a < t->n; a++)
        for (int k = t->first[a]; k < t->first[a + 1]; k++)
            t->lane_of[t->rank_at[k]] = k - t->first[a];
}

int plan_topo_init(plan_topo *t, int p, const int32_t *label, plan_error *err)
{
    memset(t, 0, sizeof *t);
    if (p < 1)
        return plan_error_set(err, 0, "topology of %d ranks: need at least one", p);
    labelled *v = malloc((size_t)p * sizeof *v);
    int32_t *node = malloc((size_t)p * sizeof *node);
    if (!v || !node) {
        free(v);
        free(node);
        return plan_error_set(err, 0, "out of memory for the topology of %d ranks", p);
    }
    int rc = 0;
    for (int r = 0; r < p && rc == 0; r++) {
        if (label[r] < 0)
            rc = plan_error_set(err, 0, "rank %d: negative node label %d", r, (int)label[r]);
        v[r] = (labelled){label[r], r};
    }
    if (rc == 0) {
        qsort(v, (size_t)p, sizeof *v, by_label);
        /* each label group's lowest rank is its first member; mark it, then number the
         * nodes in rank order of those lowest ranks */
        for (int r = 0; r < p; r++)
            node[r] = -1;
        for (int k = 0; k < p; k++)
            if (k == 0 || v[k].label != v[k - 1].label)
                node[v[k].rank] = 0;
        int n = 0;
        for (int r = 0; r < p; r++)
            if (node[r] == 0)
                node[r] = ++n; /* 1-based while marking */
        for (int k = 0; k < p; k++) /* spread each group's number to its members */
            if (k > 0 && v[k].label == v[k - 1].label)
                node[v[k].rank] = node[v[k - 1].rank];
        rc = topo_alloc(t, p, n, err);
        for (int r = 0; r < p && rc == 0; r++)
            t->node_of[r] = node[r] - 1;
        if (rc == 0)
            topo_index(t);
    }
    free(v);
    free(node);
    return rc;
}

int plan_topo_consecutive(plan_topo *t, int p, int k, plan_error *err)
{
    memset(t, 0, sizeof *t);
    if (p < 1 || k < 1)
        return plan_error_set(err, 0, "topology of %d ranks in groups of %d: need at least one",
                              p, k);
    if (topo_alloc(t, p, (p + k - 1) / k, err))
        return -1;
    for (int r = 0; r < p; r++)
        t->node_of[r] = r / k;
    topo_index(t);
    return 0;
}

int plan_topo_copy(plan_topo *dst, const plan_topo *src, plan_error *err)
{
    if (topo_alloc(dst, src->p, src->n, err))
        return -1;
    memcpy(dst->node_of, src->node_of, (size_t)src->p * sizeof *src->node_of);
    memcpy(dst->lane_of, src->lane_of, (size_t)src->p * sizeof *src->lane_of);
    memcpy(dst->first, src->first, ((size_t)src->n + 1) * sizeof *src->first);
    memcpy(dst->rank_at, src->rank_at, (size_t)src->p * sizeof *src->rank_at);
    return 0;
}

void plan_topo_free(plan_topo *t)
{
    free(t->node_of);
    free(t->lane_of);
    free(t->first);
    free(t->rank_at);
    memset(t, 0, sizeof *t);
}

int plan_topo_max_lanes(const plan_topo *t)
{
    int mx = 0;
    for (int a = 0; a < t->n; a++)
        mx = plan_topo_lanes(t, a) > mx ? plan_topo_lanes(t, a) : mx;
    return mx;
}

int plan_topo_steps_default(const plan_topo *t)
{
    int k = (t->n - 1) / 4;
    return k < 1 ? 1 : k > 4 ? 4 : k;
}

int plan_topo_min_lanes(const plan_topo *t)
{
    int mn = t->p;
    for (int a = 0; a < t->n; a++)
        mn = plan_topo_lanes(t, a) < mn ? plan_topo_lanes(t, a) : mn;
    return mn;
}

int plan_topo_node_matrix(const plan_topo *t, const plan_matrix *m, plan_matrix *nm,
                          plan_error *err)
{
    nm->p = 0;
    nm->bytes = NULL;
    if (m->p != t->p)
        return plan_error_set(err, 0, "matrix of %d ranks, topology of %d", m->p, t->p);
    if (plan_matrix_init(nm, t->n, err))
        return -1;
    int n = t->n;
    for (int i = 0; i < m->p; i++) {
        uint64_t *row = nm->bytes + (size_t)t->node_of[i] * (size_t)n;
        const uint64_t *src = m->bytes + (size_t)i * (size_t)m->p;
        for (int j = 0; j < m->p; j++) {
            uint64_t *e = &row[t->node_of[j]];
            if (j != i && __builtin_add_overflow(*e, src[j], e)) {
                plan_matrix_free(nm);
                return plan_error_set(err, 0, "node %d sends 2^64 bytes or more",
                                      (int)t->node_of[i]);
            }
        }
    }
    return 0;
}

uint64_t plan_topo_nic_bound(const plan_topo *t, const plan_matrix *m, plan_duplex duplex)
{
    plan_matrix nm;
    if (plan_topo_node_matrix(t, m, &nm, NULL))
        return UINT64_MAX;
    uint64_t b = plan_matrix_lower_bound(&nm, duplex);
    plan_matrix_free(&nm);
    return b;
}

uint64_t plan_topo_local_bound(const plan_topo *t, const plan_matrix *m, plan_duplex duplex)
{
    uint64_t best = 0;
    for (int i = 0; i < m->p; i++) {
        uint64_t sent = 0, recvd = 0;
        int a = t->node_of[i];
        for (int k = t->first[a]; k < t->first[a + 1]; k++) {
            int j = t->rank_at[k];
            if (j == i)
                continue;
            sent += plan_matrix_at(m, i, j);
            recvd += plan_matrix_at(m, j, i);
        }
        uint64_t load = duplex == PLAN_DUPLEX_HALF ? sent + recvd : (sent > recvd ? sent : recvd);
        best = load > best ? load : best;
    }
    return best;
}

int plan_topo_parse(const char *list, plan_topo *t, plan_error *err)
{
    memset(t, 0, sizeof *t);
    size_t n = 1;
    for (const char *c = list; *c; c++)
        n += *c == ',';
    if (n > INT32_MAX)
        return plan_error_set(err, 0, "too many ranks in the placement");
    int32_t *label = malloc(n * sizeof *label);
    if (!label)
        return plan_error_set(err, 0, "out of memory reading the placement");
    const char *c = list;
    int rc = 0;
    for (size_t r = 0; r < n && rc == 0; r++) {
        char *end;
        errno = 0;
        long v = *c >= '0' && *c <= '9' ? strtol(c, &end, 10) : -1;
        if (v < 0 || errno || v > INT32_MAX || (*end != ',' && *end != '\0'))
            rc = plan_error_set(err, 0, "placement entry %zu: expected a node label (a "
                                "non-negative integer)", r + 1);
        else
            label[r] = (int32_t)v, c = end + (*end == ',');
    }
    if (rc == 0)
        rc = plan_topo_init(t, (int)n, label, err);
    free(label);
    return rc;
}
