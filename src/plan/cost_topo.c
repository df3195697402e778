/* The cost model at node level (see cost.h): NICs shared by the ranks of a node, on-node
 * copies at their own rate. With one rank per node every figure equals the rank-level one. */
#include <stdlib.h>
#include <string.h>

#include "plan/cost.h"
#include "plan/cost_math.h"

uint64_t plan_cost_topo_bound(const plan_matrix *m, const plan_topo *t, plan_duplex duplex,
                              const plan_cost_params *c)
{
    if (!t)
        return plan_cost_bound(m, duplex, c);
    uint64_t nic = bytes_ps(plan_topo_nic_bound(t, m, duplex), c->beta_fs, 100);
    uint64_t local = bytes_ps(plan_topo_local_bound(t, m, duplex), c->local_beta_fs, 100);
    return nic > local ? nic : local;
}

/* Per-rank tallies of one step (or of a whole plan). */
enum { R_SENDS, R_RECVS, R_LSENDS, R_LRECVS, R_LSENT, R_LRECVD, R_FIELDS };

/* Scratch of plan_cost_topo_plan: per node bytes sent and received off-node (2 n), per rank
 * R_FIELDS tallies; zero between steps. */
typedef struct tally {
    const int32_t *node_of;
    int n;
    uint64_t *nic, *rank;
} tally;

/* Adds (sign 1) or removes (sign 0: clears) transfer x to/from the tallies. */
static void count(tally *y, const plan_transfer *x, int sign)
{
    int a = y->node_of[x->src], b = y->node_of[x->dst];
    uint64_t *s = y->rank + (size_t)x->src * R_FIELDS, *d = y->rank + (size_t)x->dst * R_FIELDS;
    if (!sign) {
        y->nic[a] = y->nic[y->n + b] = 0;
        memset(s, 0, R_FIELDS * sizeof *s);
        memset(d, 0, R_FIELDS * sizeof *d);
        return;
    }
    s[R_SENDS]++;
    d[R_RECVS]++;
    if (a != b) {
        y->nic[a] = sat_add(y->nic[a], x->bytes);
        y->nic[y->n + b] = sat_add(y->nic[y->n + b], x->bytes);
    } else {
        s[R_LSENDS]++;
        d[R_LRECVS]++;
        s[R_LSENT] = sat_add(s[R_LSENT], x->bytes);
        d[R_LRECVD] = sat_add(d[R_LRECVD], x->bytes);
    }
}

/* A rank's own work in a step (or, with gaps 0, over a plan): gap_ps per message beyond the
 * first of the larger count, local_alpha per on-node message of the larger count, local_beta
 * per on-node byte of the larger side (half: per byte sent and received). */
static uint64_t rank_ps(const uint64_t *r, const plan_cost_params *c, int gaps, plan_duplex d)
{
    uint64_t ops = r[R_SENDS] > r[R_RECVS] ? r[R_SENDS] : r[R_RECVS];
    uint64_t lops = r[R_LSENDS] > r[R_LRECVS] ? r[R_LSENDS] : r[R_LRECVS];
    uint64_t lbytes = d == PLAN_DUPLEX_HALF ? sat_add(r[R_LSENT], r[R_LRECVD])
                      : r[R_LSENT] > r[R_LRECVD] ? r[R_LSENT] : r[R_LRECVD];
    uint64_t t = gaps && ops > 1 ? sat_mul(c->gap_ps, ops - 1) : 0;
    return sat_add(sat_add(t, sat_mul(c->local_alpha_ps, lops)),
                   bytes_ps(lbytes, c->local_beta_fs, 100));
}

/* The time of step s of pl (see plan_cost_topo_plan); y is zero on entry and on return. */
static uint64_t step_time(const plan *pl, size_t s, tally *y, const plan_cost_params *c)
{
    size_t t0 = pl->step_begin[s], t1 = pl->step_begin[s + 1];
    for (size_t k = t0; k < t1; k++)
        count(y, &pl->transfers[k], 1);
    uint64_t nic = 0, own = 0;
    int both = 0;
    for (size_t k = t0; k < t1; k++) {
        const plan_transfer *x = &pl->transfers[k];
        int a = y->node_of[x->src], b = y->node_of[x->dst];
        if (a != b) {
            uint64_t la = y->nic[a] > y->nic[y->n + a] ? y->nic[a] : y->nic[y->n + a];
            uint64_t lb = y->nic[b] > y->nic[y->n + b] ? y->nic[b] : y->nic[y->n + b];
            nic = la > nic ? la : nic;
            nic = lb > nic ? lb : nic;
            both = both || y->nic[b] != 0; /* the receiving node sends too */
        }
        uint64_t ts = rank_ps(y->rank + (size_t)x->src * R_FIELDS, c, 1, pl->duplex);
        uint64_t td = rank_ps(y->rank + (size_t)x->dst * R_FIELDS, c, 1, pl->duplex);
        own = ts > own ? ts : own;
        own = td > own ? td : own;
    }
    for (size_t k = t0; k < t1; k++)
        count(y, &pl->transfers[k], 0);
    uint64_t nic_ps = bytes_ps(nic, c->beta_fs,
                               pl->duplex == PLAN_DUPLEX_FULL && both ? c->duplex_pct : 100);
    return sat_add(c->step_ps, nic_ps > own ? nic_ps : own);
}

/* The overlapped time of a half-duplex plan (see plan_cost_topo_plan); y is zero on entry. */
static uint64_t overlapped(const plan *pl, tally *y, const plan_cost_params *c)
{
    for (size_t k = 0; k < pl->ntransfers; k++)
        count(y, &pl->transfers[k], 1);
    uint64_t worst = 0;
    for (int a = 0; a < y->n; a++) {
        uint64_t t = both_ways_ps(y->nic[a], y->nic[y->n + a], c->beta_fs, c->duplex_pct);
        worst = t > worst ? t : worst;
    }
    for (int r = 0; r < pl->p; r++) {
        uint64_t t = rank_ps(y->rank + (size_t)r * R_FIELDS, c, 0, pl->duplex);
        worst = t > worst ? t : worst;
    }
    return sat_add(worst, sat_mul(c->step_ps, pl->nsteps));
}

uint64_t plan_cost_topo_plan(const plan *pl, const plan_topo *t, const plan_cost_params *c)
{
    int32_t *own = NULL;
    tally y = {.node_of = t ? t->node_of : pl->node_of, .n = t ? t->n : pl->nnodes};
    if (!y.node_of || (t && t->p != pl->p)) { /* one rank per node */
        own = malloc((size_t)pl->p * sizeof *own);
        for (int r = 0; own && r < pl->p; r++)
            own[r] = r;
        y.node_of = own;
        y.n = pl->p;
    }
    y.nic = calloc(2 * (size_t)y.n, sizeof *y.nic);
    y.rank = calloc((size_t)pl->p * R_FIELDS, sizeof *y.rank);
    uint64_t total = y.node_of && y.nic && y.rank ? 0 : UINT64_MAX;
    for (size_t s = 0; s < pl->nsteps && total != UINT64_MAX; s++)
        total = sat_add(total, step_time(pl, s, &y, c));
    if (total != UINT64_MAX && pl->duplex == PLAN_DUPLEX_HALF && c->duplex_pct < 200) {
        uint64_t o = overlapped(pl, &y, c);
        total = o < total ? o : total;
    }
    free(own);
    free(y.nic);
    free(y.rank);
    return total;
}

/* One round of a shift exchange: every rank r sends `bytes` to r + d and receives as much
 * from r - d (mod p): alpha plus the larger of the busiest NIC's duplex-weighted bytes and, if
 * some partner is on the same node, the on-node bytes. nic is scratch for 2 n entries. */
static uint64_t shift_round(const plan_topo *t, int d, uint64_t bytes, uint64_t *nic,
                            const plan_cost_params *c)
{
    int p = t->p, local = 0;
    memset(nic, 0, 2 * (size_t)t->n * sizeof *nic);
    for (int r = 0; r < p; r++) {
        int a = t->node_of[r], b = t->node_of[(r + d) % p];
        if (a == b) {
            local = 1;
            continue;
        }
        nic[a] = sat_add(nic[a], bytes);
        nic[t->n + b] = sat_add(nic[t->n + b], bytes);
    }
    uint64_t big = 0;
    for (int a = 0; a < 2 * t->n; a++)
        big = nic[a] > big ? nic[a] : big;
    uint64_t n_ps = bytes_ps(big, c->beta_fs, c->duplex_pct);
    uint64_t l_ps = local ? bytes_ps(bytes, c->local_beta_fs, c->duplex_pct) : 0;
    return sat_add(c->alpha_ps, n_ps > l_ps ? n_ps : l_ps);
}

/* Per rank of one block of the scattered algorithm: messages, whether any goes off-node, and
 * on-node bytes sent and received. */
typedef struct block_rank {
    uint64_t n, off, lsent, lrecvd;
} block_rank;

/* The time of the block of peer offsets [b0, b0 + ss) (see plan_cost_topo_native); nic is
 * scratch for 2 n entries, br for p. */
static uint64_t scattered_block(const plan_matrix *m, const plan_topo *t, int b0, int ss,
                                uint64_t *nic, block_rank *br, const plan_cost_params *c)
{
    int p = m->p;
    memset(nic, 0, 2 * (size_t)t->n * sizeof *nic);
    memset(br, 0, (size_t)p * sizeof *br);
    for (int r = 0; r < p; r++) {
        int a = t->node_of[r];
        for (int off = b0 > 0 ? b0 : 1; off < b0 + ss; off++) { /* offset 0: the self-copy */
            int from = (r + off) % p, to = (r - off % p + p) % p;
            uint64_t in = plan_matrix_at(m, from, r), out = plan_matrix_at(m, r, to);
            br[r].n += (in != 0) + (out != 0);
            if (t->node_of[from] != a) {
                nic[t->n + a] = sat_add(nic[t->n + a], in);
                br[r].off |= in != 0;
            } else {
                br[r].lrecvd = sat_add(br[r].lrecvd, in);
            }
            if (t->node_of[to] != a) {
                nic[a] = sat_add(nic[a], out);
                br[r].off |= out != 0;
            } else {
                br[r].lsent = sat_add(br[r].lsent, out);
            }
        }
    }
    uint64_t worst = 0;
    for (int r = 0; r < p; r++) {
        if (br[r].n == 0)
            continue;
        int a = t->node_of[r];
        uint64_t s = nic[a], v = nic[t->n + a];
        uint64_t n_ps = !br[r].off ? 0
                        : sat_add(bytes_ps(s > v ? s : v, c->beta_fs, 100),
                                  bytes_ps(s > v ? v : s, c->beta_fs, c->native_pct));
        s = br[r].lsent, v = br[r].lrecvd;
        uint64_t l_ps = sat_add(bytes_ps(s > v ? s : v, c->local_beta_fs, 100),
                                bytes_ps(s > v ? v : s, c->local_beta_fs, c->native_pct));
        uint64_t tr = sat_add(sat_add(c->alpha_ps, sat_mul(c->gap_ps, br[r].n - 1)),
                              n_ps > l_ps ? n_ps : l_ps);
        worst = tr > worst ? tr : worst;
    }
    return worst;
}

/* The alltoall rounds of plan_cost_topo_native for a uniform matrix of `per` bytes per message:
 * Bruck's (log2 p rounds of p / 2 messages to rank + 2^k) or pairwise (p - 1 shifts). */
static uint64_t alltoall_rounds(const plan_topo *t, uint64_t per, int bruck, uint64_t *nic,
                                const plan_cost_params *c)
{
    uint64_t total = 0;
    if (bruck)
        for (int d = 1; d < t->p; d *= 2)
            total = sat_add(total, shift_round(t, d, per * (uint64_t)t->p / 2, nic, c));
    else
        for (int d = 1; d < t->p; d++)
            total = sat_add(total, shift_round(t, d, per, nic, c));
    return total;
}

uint64_t plan_cost_topo_native(const plan_matrix *m, plan_native_kind kind, const plan_topo *t,
                               const plan_cost_params *c)
{
    int p = m->p;
    if (!t || t->p != p || p < 2 || kind == PLAN_NATIVE_INPLACE)
        return plan_cost_native(m, kind, c);
    uint64_t *nic = calloc(2 * (size_t)t->n, sizeof *nic), per = 0, total = 0;
    block_rank *br = malloc((size_t)p * sizeof *br);
    if (!nic || !br)
        total = UINT64_MAX;
    else if (kind == PLAN_NATIVE_ALLTOALL && plan_matrix_is_uniform(m, &per) &&
             ((per <= 256 && p >= 8) || per > 32768))
        total = alltoall_rounds(t, per, per <= 256, nic, c);
    else
        for (int b0 = 0, th = c->throttle ? (int)c->throttle : 1; b0 < p; b0 += th)
            total = sat_add(total, scattered_block(m, t, b0, p - b0 < th ? p - b0 : th, nic, br,
                                                   c));
    free(nic);
    free(br);
    return total;
}
