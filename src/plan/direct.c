/* PLACEHOLDER (being replaced by the lead): one step per message. Valid but not optimal. */
#include "plan/plan.h"

int plan_direct(const plan_matrix *m, const plan_direct_opts *opts, plan *pl, plan_error *err)
{
    if (plan_init(pl, m->p, PLAN_ALGO_DIRECT, PLAN_DUPLEX_FULL, err))
        return -1;
    for (int i = 0; i < m->p; i++)
        for (int j = 0; j < m->p; j++) {
            uint64_t b = plan_matrix_at(m, i, j);
            if (i == j || !b)
                continue;
            if (plan_begin_step(pl, err) || plan_add_transfer(pl, i, j, err) ||
                plan_add_segment(pl, i, j, 0, b, err)) {
                plan_free(pl);
                return -1;
            }
        }
    return 0;
}
