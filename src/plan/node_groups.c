/* Groups of consecutive light node steps that run without barriers between them. */
#include "plan/node.h"

size_t plan_node_step_groups(const uint64_t *loads, size_t nsteps, uint64_t join_bytes,
                             unsigned char *starts)
{
    size_t groups = 0;
    uint64_t sum = 0;
    for (size_t s = 0; s < nsteps; s++) {
        int joins = s > 0 && join_bytes > 0 && loads[s] <= join_bytes &&
                    sum <= join_bytes - loads[s];
        starts[s] = (unsigned char)!joins;
        sum = joins ? sum + loads[s] : loads[s];
        groups += !joins;
    }
    return groups;
}
