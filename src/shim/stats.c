/* Per-call statistics: accumulation on each rank, merging over ranks for the report, and the
 * model of the native exchange the report compares against. */
#include <string.h>

#include "shim/shim.h"

/* Adds one call (see shim.h). */
void shim_stats_add(shim_world *w, plan_algo algo, uint64_t bytes, double time_s,
                    double modeled_native_s, int planned)
{
    shim_world_lock(w);
    w->stats.calls++;
    w->stats.bytes += bytes;
    if ((unsigned)algo < PLAN_ALGO_COUNT)
        w->stats.algo_calls[algo]++;
    w->stats.plans_computed += planned != 0;
    w->stats.time_s += time_s;
    w->stats.modeled_native_s += modeled_native_s;
    shim_world_unlock(w);
}

/* Words of one rank's statistics on the wire (doubles travel as their bit patterns). */
enum {
    W_CALLS,
    W_BYTES,
    W_PLANS,
    W_HITS,
    W_TIME,
    W_MODEL,
    W_ALGO,
    W_COUNT = W_ALGO + PLAN_ALGO_COUNT
};

/* Stores a double's bits in a word. */
static uint64_t dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* The double whose bits a word holds. */
static double dval(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

/* Merges statistics on rank 0 (see shim.h): the representative rank (most calls, lowest rank
 * on ties) by MPI_MAXLOC, its row by broadcast, bytes by sum and time by maximum. */
int shim_stats_merge(shim_world *w, shim_stats *out)
{
    uint64_t row[W_COUNT];
    shim_world_lock(w);
    row[W_CALLS] = w->stats.calls;
    row[W_BYTES] = w->stats.bytes;
    row[W_PLANS] = w->stats.plans_computed;
    row[W_HITS] = w->stats.cache_hits;
    row[W_TIME] = dbits(w->stats.time_s);
    row[W_MODEL] = dbits(w->stats.modeled_native_s);
    for (int a = 0; a < PLAN_ALGO_COUNT; a++)
        row[W_ALGO + a] = w->stats.algo_calls[a];
    shim_world_unlock(w);

    struct {
        double calls;
        int rank;
    } mine = {(double)row[W_CALLS], 0}, rep;
    uint64_t my_bytes = row[W_BYTES], bytes = 0;
    double my_time = dval(row[W_TIME]), time_s = 0;
    int rc;
    PMPI_Comm_rank(MPI_COMM_WORLD, &mine.rank);
    if ((rc = PMPI_Allreduce(&mine, &rep, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD)) ||
        (rc = PMPI_Bcast(row, W_COUNT, MPI_UINT64_T, rep.rank, MPI_COMM_WORLD)) ||
        (rc = PMPI_Reduce(&my_bytes, &bytes, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD)) ||
        (rc = PMPI_Reduce(&my_time, &time_s, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD)))
        return rc;

    memset(out, 0, sizeof *out);
    out->calls = row[W_CALLS];
    out->bytes = bytes;
    out->plans_computed = row[W_PLANS];
    out->cache_hits = row[W_HITS];
    out->time_s = time_s;
    out->modeled_native_s = dval(row[W_MODEL]);
    for (int a = 0; a < PLAN_ALGO_COUNT; a++)
        out->algo_calls[a] = row[W_ALGO + a];
    return MPI_SUCCESS;
}

/* Pairwise-rounds model of the native exchange (see shim.h). */
double shim_model_native(const plan_matrix *m)
{
    double t = 0;
    int p = m->p;
    for (int r = 1; r < p; r++) {
        uint64_t big = 0;
        for (int i = 0; i < p; i++) {
            uint64_t b = plan_matrix_at(m, i, (i + r) % p);
            if (b > big)
                big = b;
        }
        if (big)
            t += SHIM_ALPHA_S + SHIM_BETA_S_PER_BYTE * (double)big;
    }
    return t;
}
