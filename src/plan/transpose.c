/* The two-round transpose (Bader, Helman and JaJa): every message is dealt over all ranks as
 * intermediates, so two regular exchanges replace one irregular one. */
#include "plan/families.h"
#include "plan/plan.h"

/* Rank i's message to j has n grains; it deals them over the p bins starting at bin
 * (i + j) mod p, one grain per bin in turn. Bin (i + j + c) mod p thus receives floor(n / p)
 * grains, plus one if c < n mod p. Here the c-th share is taken as one contiguous run of grains
 * (the same count per bin as dealing single grains, so the paper's bounds hold, and one
 * segment per message and bin). Sets [*first, *first + *count) in grains. */
static void share(uint64_t n, int p, int c, uint64_t *first, uint64_t *count)
{
    uint64_t q = n / (uint64_t)p, r = n % (uint64_t)p, uc = (uint64_t)c;
    *count = q + (uc < r);
    *first = uc * q + (uc < r ? uc : r);
}

uint64_t plan_transpose_share(uint64_t grains, int p, int i, int j, int k)
{
    uint64_t first, count;
    share(grains, p, (int)((((long)k - i - j) % p + p) % p), &first, &count);
    return count;
}

/* Appends the segment of message origin -> target that travels through intermediate k, if it
 * is not empty. A transfer must have been added. */
static int add_share(plan *pl, const plan_matrix *m, uint64_t grain, int origin, int target,
                     int k, plan_error *err)
{
    uint64_t bytes = plan_matrix_at(m, origin, target), n = (bytes + grain - 1) / grain;
    int p = m->p;
    uint64_t first, count;
    share(n, p, (int)((((long)k - origin - target) % p + p) % p), &first, &count);
    if (count == 0)
        return 0;
    uint64_t lo = first * grain, hi = (first + count) * grain;
    hi = hi < bytes ? hi : bytes;
    return plan_add_segment(pl, origin, target, lo, hi - lo, err);
}

/* Adds a transfer src -> dst and its segments; drops it again if it carries nothing. */
static int add_bin(plan *pl, const plan_matrix *m, uint64_t grain, int round, int src, int dst,
                   plan_error *err)
{
    if (plan_add_transfer(pl, src, dst, err))
        return -1;
    int p = m->p;
    for (int x = 0; x < p; x++) {
        /* round 1: src's messages to every target x, via intermediate dst;
         * round 2: every origin x's message to dst, held at intermediate src */
        int origin = round == 1 ? src : x, target = round == 1 ? x : dst;
        int k = round == 1 ? dst : src;
        /* self-messages are local copies; the share a rank deals to itself (k == origin)
         * skips round 1, and the share dealt to its target (k == target) ends there */
        if (origin == target)
            continue;
        if (add_share(pl, m, grain, origin, target, k, err))
            return -1;
    }
    plan_transfer *t = &pl->transfers[pl->ntransfers - 1];
    if (t->nsegs == 0) { /* nothing to carry: drop the empty transfer */
        pl->ntransfers--;
        pl->step_begin[pl->nsteps] = pl->ntransfers;
    }
    return 0;
}

/* Appends round `round` as a full-duplex regular exchange in shift order: in step r, rank i
 * sends its bin for i + r. Returns 0 or -1 with err set. */
static int shift_round(plan *pl, const plan_matrix *m, uint64_t grain, int round, plan_error *err)
{
    int p = m->p, rc = 0;
    for (int r = 1; r < p && rc == 0; r++) {
        rc = plan_begin_step(pl, err);
        for (int i = 0; i < p && rc == 0; i++)
            rc = add_bin(pl, m, grain, round, i, (i + r) % p, err);
        plan_end_step(pl);
    }
    return rc;
}

/* Which round of the transpose a half-duplex pair step belongs to. */
typedef struct round_ctx {
    const plan_matrix *m;
    uint64_t grain;
    int round;
} round_ctx;

/* plan_pair_fn of a half-duplex transpose round: src sends its bin for dst. */
static int bin_pair(plan *pl, int src, int dst, void *ctx, plan_error *err)
{
    const round_ctx *c = ctx;
    return add_bin(pl, c->m, c->grain, c->round, src, dst, err);
}

/* The two-round transpose of m under duplex (see plan_transpose and plan_transpose_half). */
static int transpose(const plan_matrix *m, uint64_t grain, plan_duplex duplex, plan *pl,
                     plan_error *err)
{
    if (grain == 0)
        return plan_error_set(err, 0, "transpose: the grain must be at least one byte");
    if (plan_init(pl, m->p, PLAN_ALGO_TRANSPOSE, duplex, err))
        return -1;
    pl->packet_bytes = grain;
    int rc = 0;
    /* each round a regular exchange: shift order (full duplex), or the 1-factorisation with
     * every pair in two steps (half duplex) */
    for (int round = 1; round <= 2 && rc == 0; round++) {
        round_ctx c = {m, grain, round};
        rc = duplex == PLAN_DUPLEX_HALF ? plan_one_factor_steps(pl, bin_pair, &c, err)
                                        : shift_round(pl, m, grain, round, err);
    }
    if (rc) {
        plan_free(pl);
        return -1;
    }
    return 0;
}

int plan_transpose(const plan_matrix *m, uint64_t grain, plan *pl, plan_error *err)
{
    return transpose(m, grain, PLAN_DUPLEX_FULL, pl, err);
}

int plan_transpose_half(const plan_matrix *m, uint64_t grain, plan *pl, plan_error *err)
{
    return transpose(m, grain, PLAN_DUPLEX_HALF, pl, err);
}
