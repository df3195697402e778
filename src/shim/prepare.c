/* Planning one call: the family's plan, this rank's part of it, and the exec view with its
 * staging. No communication: the caller agrees on the outcome across ranks. */
#include <stdlib.h>
#include <string.h>

#include "shim/shim.h"

/* The transpose grain (see shim.h). */
uint64_t shim_grain(uint64_t cfg_grain, uint64_t size_gcd, int dense)
{
    if (cfg_grain)
        return cfg_grain;
    if (size_gcd == 0)
        return 1;
    if (!dense || size_gcd >= SHIM_DENSE_GRAIN)
        return size_gcd;
    return SHIM_DENSE_GRAIN / size_gcd * size_gcd;
}

/* Plans and prepares this rank's part (see shim.h). */
int shim_call_plan(shim_call *cs, plan_algo algo, const plan_options *o, const plan_matrix *m,
                   const exec_exchange *x, uint64_t max_staging)
{
    plan_error err;
    if (plan_build(algo, m, o, &cs->pl, &err) != 0) {
        memset(&cs->pl, 0, sizeof cs->pl); /* holds no memory after a failure */
        return -1;
    }
    if (plan_local_extract(&cs->pl, x->rank, &cs->lo, &err) != 0)
        return -1;
    if (exec_view_create(&cs->lo, x, &cs->view) != MPI_SUCCESS)
        return -1;
    if (exec_view_staging(cs->view) <= max_staging && exec_view_alloc(cs->view) != MPI_SUCCESS)
        return -1;
    return 0;
}

/* Releases the plan and the views (see shim.h). */
void shim_call_release_plan(shim_call *cs)
{
    exec_view_free(cs->view);
    cs->view = NULL;
    plan_local_free(&cs->lo);
    plan_free(&cs->pl);
}

/* Releases everything (see shim.h). */
void shim_call_free(shim_call *cs)
{
    shim_call_release_plan(cs);
    free(cs->stage);
    cs->stage = NULL;
}
