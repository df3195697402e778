/* Regular exchanges (Sanders and Solis-Oba, Sec. 4.1): schedules in which every pair of ranks
 * meets exactly once, built from rank arithmetic alone. */
#include "plan/families.h"
#include "plan/plan.h"

/* The partner of rank j in round i of the 1-factorisation of the complete graph on p ranks:
 * (i - j) mod p for odd p (j itself when idle); for even p the odd rule on ranks 0..p-2, with
 * the rank that would idle paired with p - 1 instead. */
static int partner(int p, int i, int j)
{
    if (p % 2) {
        return (int)((((long)i - j) % p + p) % p);
    }
    int q = p - 1;
    if (j == q) { /* the j' with 2 j' = i (mod p - 1) */
        for (int k = 0; k < q; k++)
            if ((2 * (long)k - i) % q == 0)
                return k;
        return j;
    }
    int r = (int)((((long)i - j) % q + q) % q);
    return r == j ? q : r;
}

int plan_one_factor_partner(int p, int round, int rank)
{
    return partner(p, round, rank);
}

int plan_one_factor_steps(plan *pl, plan_pair_fn fn, void *ctx, plan_error *err)
{
    int p = pl->p, rounds = p % 2 ? p : p - 1;
    for (int i = 0; i < rounds && p > 1; i++)
        for (int upward = 1; upward >= 0; upward--) {
            if (plan_begin_step(pl, err))
                return -1;
            for (int j = 0; j < p; j++) {
                int k = partner(p, i, j);
                if (k != j && (j < k) == upward && fn(pl, j, k, ctx, err))
                    return -1;
            }
            plan_end_step(pl);
        }
    return 0;
}

/* Appends the transfer i -> j carrying the whole message, if there is one. */
static int whole(plan *pl, const plan_matrix *m, int i, int j, plan_error *err)
{
    uint64_t b = plan_matrix_at(m, i, j);
    if (i == j || b == 0)
        return 0;
    return plan_add_transfer(pl, i, j, err) || plan_add_segment(pl, i, j, 0, b, err) ? -1 : 0;
}

/* plan_pair_fn of the half-duplex regular exchange: the whole message src -> dst of the matrix
 * ctx. */
static int whole_pair(plan *pl, int src, int dst, void *ctx, plan_error *err)
{
    return whole(pl, ctx, src, dst, err);
}

int plan_regular(const plan_matrix *m, plan_duplex duplex, plan_algo algo, plan *pl,
                 plan_error *err)
{
    int p = m->p, rc = plan_init(pl, p, algo, duplex, err);
    if (rc == 0 && duplex == PLAN_DUPLEX_FULL) {
        /* round r: every rank sends to rank + r and receives from rank - r */
        for (int r = 1; r < p && rc == 0; r++) {
            rc = plan_begin_step(pl, err);
            for (int i = 0; i < p && rc == 0; i++)
                rc = whole(pl, m, i, (i + r) % p, err);
            plan_end_step(pl);
        }
    } else if (rc == 0) {
        rc = plan_one_factor_steps(pl, whole_pair, (void *)m, err);
    }
    if (rc) {
        plan_free(pl);
        return -1;
    }
    return 0;
}
