/* The 12 rounds of a forwarding iteration of the half-duplex engine (Sec. 2.3 of "How Helpers
 * Hasten h-Relations"). Odd cycles of a 2-relation are paired (half_pair) and exchange their
 * data in 12 rounds of a fifth of the super-packet each: in the first six rounds three ranks of
 * cycle B forward three fifths of one packet of cycle A while both cycles move the rest
 * directly, in the last six the roles swap. An odd cycle left over is paired with an idle rank
 * or a path (a path's missing closing edge plays the part of the forwarded packet). The type of
 * an edge (edge_type) fixes the rounds of its five pieces.
 *
 * Conflict-freedom, for a helped odd cycle a_0 .. a_{n-1} (closing edge a_{n-1} -> a_0) and its
 * partner b_0 .. b_{m-1}: in the helped rounds o + 2i the even edges occupy a_0 .. a_{n-2} and
 * a_{n-1} sends to b_i, in o + 2i + 1 the odd edges occupy a_1 .. a_{n-1} and b_i passes the
 * piece to a_0; meanwhile the partner's odd edges leave b_0 free (rounds o, o+1), its even
 * edges from 2 on leave b_1 free (o+2, o+3), and its edge 0 leaves b_2 free (o+4, o+5).
 *
 * A round is f or f + 1 bytes long (f = floor(n / 5) for a super-packet of n bytes), with the
 * fewest longer rounds that still give every edge its n bytes (half_choose_round_sizes). */
#include <string.h>

#include "plan/half_state.h"

/* The pieces of an edge of type t, in byte order: piece k is sent in round a[k], directly if
 * b[k] < 0, else to a helper in round a[k] and from it to its target in round b[k]. Returns
 * the number of pieces (5). */
static int type_pieces(int t, int a[5], int b[5])
{
    static const int plain[2][5] = {{0, 2, 4, 6, 8}, {1, 3, 5, 7, 9}};
    for (int k = 0; k < 5; k++)
        b[k] = -1;
    if (t < T_SINGLE) {
        memcpy(a, plain[t], sizeof plain[t]);
        return 5;
    }
    int o = t >= T_SINGLE + 5 ? 6 : 0, o2 = 6 - o;
    switch (t - (o ? 5 : 0)) {
    case T_SINGLE:
        for (int k = 0; k < 5; k++)
            a[k] = o + k;
        break;
    case T_SPECIAL:
        for (int k = 0; k < 3; k++) {
            a[k] = o + 2 * k;
            b[k] = o + 2 * k + 1;
        }
        a[3] = o2 + 2;
        a[4] = o2 + 3;
        break;
    default: { /* edge 0, other even edges, odd edges */
        int odd = t - (o ? 5 : 0) == T_ODD;
        int helping = odd ? o2 : t - (o ? 5 : 0) == T_EDGE0 ? o2 + 4 : o2 + 2;
        for (int k = 0; k < 3; k++)
            a[k] = o + 2 * k + odd;
        a[3] = helping;
        a[4] = helping + 1;
    }
    }
    return 5;
}

/* Size of a piece sent in round a (and, forwarded, b). */
static uint64_t piece_size(const half_state *st, int a, int b)
{
    unsigned e = (st->extra >> a) & 1;
    if (b >= 0)
        e &= (st->extra >> b) & 1;
    return st->f + e;
}

/* The type of edge k of component c in a forwarding iteration (roles assigned). */
static int edge_type(const half_comp *c, int k)
{
    if (c->role == ROLE_PLAIN)
        return k % 2 ? T_PLAIN_ODD : T_PLAIN_EVEN;
    int base = c->helped_off ? 5 : 0;
    if (c->n == 2)
        return T_SINGLE + base;
    if (k == c->n - 1)
        return T_SPECIAL + base;
    return base + (k == 0 ? T_EDGE0 : k % 2 ? T_ODD : T_EVEN);
}

/* Emits what edge k of component c sends in round r of a forwarding iteration: its pieces
 * take the rounds of its type in turn, each as large as the round (the last ones may be
 * shorter or empty where the link ends). */
static int emit_edge_round(half_state *st, plan *pl, const half_comp *c, int k, int r,
                           plan_error *err)
{
    int li = half_link_at(st, c, k);
    if (li < 0)
        return 0;
    const half_link *l = &st->links[li];
    int a[5], b[5], np = type_pieces(edge_type(c, k), a, b);
    uint64_t off = l->lo;
    for (int q = 0; q < np; q++) {
        uint64_t size = piece_size(st, a[q], b[q]);
        uint64_t end = l->hi - off < size ? l->hi : off + size;
        if (a[q] == r || b[q] == r) {
            int src = l->src, dst = l->dst;
            if (b[q] >= 0) { /* forwarded through helper q of the component */
                if (a[q] == r)
                    dst = c->hp[q];
                else
                    src = c->hp[q];
            }
            return half_emit(pl, src, dst, l->src, l->dst, off, end, err);
        }
        off = end;
    }
    return 0;
}

unsigned half_present_types(const half_state *st)
{
    unsigned present = 0;
    for (int ci = 0; ci < st->ncomps; ci++) {
        const half_comp *c = &st->comps[ci];
        for (int k = 0; k < c->n; k++)
            if (half_link_at(st, c, k) >= 0)
                present |= 1u << edge_type(c, k);
    }
    return present;
}

/* Emits round r (0..11) of a forwarding iteration for component c. */
static int emit_round(half_state *st, plan *pl, const half_comp *c, int r, plan_error *err)
{
    int rc = 0;
    for (int k = 0; k < c->n && rc == 0; k++)
        rc = emit_edge_round(st, pl, c, k, r, err);
    return rc;
}

int half_schedule_rounds(half_state *st, plan *pl, plan_error *err)
{
    int rc = 0;
    for (int r = 0; r < 12 && rc == 0; r++) {
        rc = plan_begin_step(pl, err);
        for (int ci = 0; ci < st->ncomps && rc == 0; ci++)
            rc = emit_round(st, pl, &st->comps[ci], r, err);
        plan_end_step(pl);
    }
    return rc;
}

void half_choose_round_sizes(half_state *st, uint64_t f, unsigned rho, unsigned present)
{
    st->f = f;
    short *cache = &st->extra_cache[rho * 4096 + present];
    if (*cache < 0) {
        int best = 4095, best_pop = 13;
        for (int mask = 0; mask < 4096; mask++) {
            int pop = __builtin_popcount((unsigned)mask), ok = pop < best_pop;
            for (int t = 0; t < T_COUNT && ok; t++) {
                if (!(present >> t & 1))
                    continue;
                int a[5], b[5], np = type_pieces(t, a, b);
                unsigned got = 0;
                for (int q = 0; q < np; q++)
                    got += (mask >> a[q] & 1) && (b[q] < 0 || (mask >> b[q] & 1));
                ok = got >= rho;
            }
            if (ok) {
                best = mask;
                best_pop = pop;
            }
        }
        *cache = (short)best;
    }
    st->extra = (unsigned)*cache;
}

void half_pair(half_state *st, half_comp *a, half_comp *b)
{
    half_comp *both[2] = {a, b};
    for (int w = 0; w < 2; w++) {
        half_comp *me = both[w], *other = both[1 - w];
        me->role = ROLE_PAIRED;
        me->helped_off = 6 * w;
        for (int i = 0; i < 3; i++)
            me->hp[i] = st->verts[other->start + (other->n >= 3 ? i : 0)];
    }
}
