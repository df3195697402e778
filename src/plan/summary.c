/* The summary of an exchange and the figures that follow from it (see summary.h). */
#include <stdlib.h>
#include <string.h>

#include "plan/cost_math.h"
#include "plan/node.h"
#include "plan/summary.h"

size_t plan_summary_blocks(int p, const plan_cost_params *c)
{
    return plan_cost_native_blocks(p, c);
}

/* The percent of the smaller direction that adds to the larger on the calibrated links. */
static uint32_t duplex_share(const plan_cost_params *c)
{
    return (c->duplex_pct < 200 ? c->duplex_pct : 200) - 100;
}

/* A hash of "rank i sends rank j b bytes" (p ranks; splitmix64's finaliser). */
static uint64_t pair_hash(int p, int i, int j, uint64_t b)
{
    uint64_t x = ((uint64_t)i * (uint64_t)p + (uint64_t)j) * 0x9E3779B97F4A7C15ull ^ b;
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

uint64_t plan_summary_balance(int p, int rank, const uint64_t *row, const uint64_t *col)
{
    uint64_t balance = 0;
    for (int j = 0; j < p; j++)
        balance += pair_hash(p, rank, j, row[j]) - pair_hash(p, j, rank, col[j]);
    return balance;
}

void plan_summary_rank(plan_summary *s, int p, int rank, const uint64_t *row,
                       const uint64_t *col, const plan_topo *t, uint64_t packet_bytes,
                       const plan_cost_params *c)
{
    uint64_t sent = 0, recvd = 0, out = 0, in = 0, largest = 0, smallest = UINT64_MAX;
    uint64_t packets = 0, lsent = 0, lrecvd = 0;
    if (t && t->p != p)
        t = NULL;
    for (int j = 0; j < p; j++) {
        if (j == rank)
            continue;
        sent += row[j];
        recvd += col[j];
        if (t && t->node_of[j] == t->node_of[rank]) {
            lsent += row[j];
            lrecvd += col[j];
        }
        out += row[j] != 0;
        in += col[j] != 0;
        largest = row[j] > largest ? row[j] : largest;
        smallest = row[j] < smallest ? row[j] : smallest;
        packets = sat_add(packets, row[j] / packet_bytes + (row[j] % packet_bytes != 0));
    }
    uint64_t big = sent > recvd ? sent : recvd, small = sent > recvd ? recvd : sent;
    s->p = p;
    s->nodes = t ? t->n : p;
    s->max[PLAN_SUMMARY_OFF_SENT] = sent - lsent;
    s->max[PLAN_SUMMARY_OFF_RECEIVED] = recvd - lrecvd;
    s->max[PLAN_SUMMARY_OFF_HALF] = sent - lsent + recvd - lrecvd;
    s->max[PLAN_SUMMARY_LOCAL_FULL] = lsent > lrecvd ? lsent : lrecvd;
    s->max[PLAN_SUMMARY_LOCAL_HALF] = lsent + lrecvd;
    s->sum[PLAN_SUMMARY_OFF_TOTAL] = sent - lsent;
    s->max[PLAN_SUMMARY_SENT] = sent;
    s->max[PLAN_SUMMARY_RECEIVED] = recvd;
    s->max[PLAN_SUMMARY_LOAD_FULL] = big;
    s->max[PLAN_SUMMARY_LOAD_HALF] = big + small;
    s->max[PLAN_SUMMARY_LOAD_SHARED] =
        big + (uint64_t)((unsigned __int128)small * duplex_share(c) / 100);
    s->max[PLAN_SUMMARY_DEGREE_FULL] = out > in ? out : in;
    s->max[PLAN_SUMMARY_DEGREE_HALF] = out + in;
    s->max[PLAN_SUMMARY_LARGEST] = largest;
    s->max[PLAN_SUMMARY_NOT_SMALLEST] = UINT64_MAX - smallest;
    s->sum[PLAN_SUMMARY_MESSAGES] = out;
    s->sum[PLAN_SUMMARY_PACKETS] = packets;
    s->sum[PLAN_SUMMARY_BALANCE] = plan_summary_balance(p, rank, row, col);
    s->nblocks = plan_summary_blocks(p, c);
    plan_cost_native_rank(p, rank, row, col, c, s->block);
}

void plan_summary_merge(plan_summary *into, const plan_summary *from)
{
    for (int k = 0; k < PLAN_SUMMARY_MAX; k++)
        if (from->max[k] > into->max[k])
            into->max[k] = from->max[k];
    for (int k = 0; k < PLAN_SUMMARY_SUM; k++)
        into->sum[k] = k == PLAN_SUMMARY_BALANCE ? into->sum[k] + from->sum[k]
                                                 : sat_add(into->sum[k], from->sum[k]);
    for (size_t b = 0; b < into->nblocks && b < from->nblocks; b++)
        if (from->block[b] > into->block[b])
            into->block[b] = from->block[b];
}

int plan_summary_of_matrix(plan_summary *s, const plan_matrix *m, const plan_topo *t,
                           uint64_t packet_bytes, const plan_cost_params *c)
{
    int p = m->p;
    size_t nb = plan_summary_blocks(p, c);
    uint64_t *col = malloc(((size_t)p + nb) * sizeof *col);
    if (!col)
        return -1;
    plan_summary one = {.block = col + p};
    for (int r = 0; r < p; r++) {
        for (int i = 0; i < p; i++)
            col[i] = plan_matrix_at(m, i, r);
        plan_summary_rank(r ? &one : s, p, r, m->bytes + (size_t)r * (size_t)p, col, t,
                          packet_bytes, c);
        if (r)
            plan_summary_merge(s, &one);
    }
    free(col);
    return 0;
}

int plan_summary_consistent(const plan_summary *s)
{
    return s->sum[PLAN_SUMMARY_BALANCE] == 0;
}

int plan_summary_on_node(const plan_summary *s)
{
    return s->nodes > 0 && s->nodes < s->p && s->sum[PLAN_SUMMARY_OFF_TOTAL] == 0;
}

uint64_t plan_summary_bound(const plan_summary *s, plan_duplex duplex)
{
    return s->max[duplex == PLAN_DUPLEX_HALF ? PLAN_SUMMARY_LOAD_HALF : PLAN_SUMMARY_LOAD_FULL];
}

uint64_t plan_summary_degree(const plan_summary *s, plan_duplex duplex)
{
    return s->max[duplex == PLAN_DUPLEX_HALF ? PLAN_SUMMARY_DEGREE_HALF
                                             : PLAN_SUMMARY_DEGREE_FULL];
}

uint64_t plan_summary_native(const plan_summary *s, plan_native_kind kind,
                             const plan_cost_params *c)
{
    uint64_t largest = s->max[PLAN_SUMMARY_LARGEST];
    uint64_t smallest = UINT64_MAX - s->max[PLAN_SUMMARY_NOT_SMALLEST];
    uint64_t uniform = s->p >= 2 && largest == smallest ? largest : 0;
    return plan_cost_native_figures(s->p, kind, uniform, largest, s->block, s->nblocks, c);
}

/* The busiest NIC's bytes at least (the larger of the rank with the most off-node bytes and the
 * nodes' average, twice the off-node total over the nodes half duplex); the average in *avg. */
static uint64_t topo_nic_bytes(const plan_summary *s, plan_duplex duplex, uint64_t *avg)
{
    int half = duplex == PLAN_DUPLEX_HALF;
    uint64_t nodes = s->nodes > 0 ? (uint64_t)s->nodes : 1, total = s->sum[PLAN_SUMMARY_OFF_TOTAL];
    if (half) /* every off-node byte is sent by one NIC and received by another */
        total = sat_mul(total, 2);
    *avg = total / nodes + (total % nodes != 0); /* the busiest NIC carries at least it */
    uint64_t nic = half ? s->max[PLAN_SUMMARY_OFF_HALF]
                        : (s->max[PLAN_SUMMARY_OFF_SENT] > s->max[PLAN_SUMMARY_OFF_RECEIVED]
                               ? s->max[PLAN_SUMMARY_OFF_SENT]
                               : s->max[PLAN_SUMMARY_OFF_RECEIVED]);
    return *avg > nic ? *avg : nic;
}

uint64_t plan_summary_native_at(const plan_summary *s, plan_native_kind kind, plan_duplex duplex,
                                const plan_cost_params *c)
{
    uint64_t t = plan_summary_native(s, kind, c);
    if (s->nodes > 0 && s->nodes < s->p) {
        uint64_t b = plan_summary_topo_bound(s, duplex, c);
        if (kind == PLAN_NATIVE_ALLTOALLV && duplex == PLAN_DUPLEX_FULL) {
            uint64_t avg, nic = topo_nic_bytes(s, duplex, &avg);
            b = sat_add(b, bytes_ps(avg < nic ? avg : nic, c->beta_fs, c->native_pct));
        }
        t = b > t ? b : t;
    }
    return t;
}

uint64_t plan_summary_topo_bound(const plan_summary *s, plan_duplex duplex,
                                 const plan_cost_params *c)
{
    int half = duplex == PLAN_DUPLEX_HALF;
    uint64_t avg, nic = topo_nic_bytes(s, duplex, &avg);
    uint64_t local = s->max[half ? PLAN_SUMMARY_LOCAL_HALF : PLAN_SUMMARY_LOCAL_FULL];
    uint64_t n_ps = bytes_ps(nic, c->beta_fs, 100), l_ps = bytes_ps(local, c->local_beta_fs, 100);
    return n_ps > l_ps ? n_ps : l_ps;
}

/* The steps of the most optimistic schedule of rank-level family a (see
 * plan_summary_optimistic). */
static uint64_t optimistic_steps(const plan_summary *s, plan_algo a, plan_duplex duplex)
{
    uint64_t p = s->p > 1 ? (uint64_t)s->p : 1;
    if (a == PLAN_ALGO_TRANSPOSE)
        return 2 * (p - 1);
    if (a == PLAN_ALGO_FORWARD && duplex != PLAN_DUPLEX_HALF)
        return s->max[PLAN_SUMMARY_DEGREE_HALF];
    return plan_summary_degree(s, duplex);
}

uint64_t plan_summary_optimistic(const plan_summary *s, plan_algo a, plan_duplex duplex,
                                 const plan_cost_params *c)
{
    if (s->nodes > 0 && s->nodes < s->p) { /* several ranks per node: the two-level model */
        uint64_t steps = !plan_algo_is_node(a)              ? optimistic_steps(s, a, duplex)
                         : plan_summary_degree(s, duplex) != 0 ? 1
                                                               : 0; /* nothing to move */
        return sat_add(plan_summary_topo_bound(s, duplex, c), sat_mul(steps, c->step_ps));
    }
    if (plan_algo_is_node(a))
        a = plan_node_base(a);
    uint64_t p = s->p > 1 ? (uint64_t)s->p : 1;
    uint64_t bound = plan_cost_bytes(plan_summary_bound(s, duplex), c);
    if (a == PLAN_ALGO_TRANSPOSE)
        return 2 * (bound / p) * (p - 1) + 2 * (p - 1) * c->step_ps;
    if (a == PLAN_ALGO_FORWARD && duplex != PLAN_DUPLEX_HALF)
        return plan_cost_bytes(s->max[PLAN_SUMMARY_LOAD_SHARED], c) +
               s->max[PLAN_SUMMARY_DEGREE_HALF] * c->step_ps;
    return bound + plan_summary_degree(s, duplex) * c->step_ps;
}

uint64_t plan_summary_planning(const plan_summary *s, plan_algo a, const plan_cost_params *c)
{
    if (plan_algo_is_node(a))
        a = plan_node_base(a);
    /* as plan_cost_planning: plan_ps per matrix entry and per segment (unit of work) */
    uint64_t units = a == PLAN_ALGO_FORWARD
                         ? sat_mul(s->sum[PLAN_SUMMARY_PACKETS], PLAN_COST_FORWARD_UNITS)
                         : s->sum[PLAN_SUMMARY_MESSAGES];
    uint64_t entries = sat_mul((uint64_t)s->p, (uint64_t)s->p);
    return sat_mul(sat_add(entries, units), c->plan_ps);
}
