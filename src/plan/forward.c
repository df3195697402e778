/* The forwarding family: Sanders and Solis-Oba's half-duplex schedule with forwarding, the
 * half-duplex engine (plan/half_engine.c) with packets of the given size and helpers on. */
#include "plan/families.h"
#include "plan/half_engine.h"
#include "plan/plan.h"

int plan_forward_capped(const plan_matrix *m, uint64_t packet_bytes, size_t max_segments,
                        plan *pl, plan_error *err)
{
    if (packet_bytes == 0)
        return plan_error_set(err, 0, "forward: the packet must be at least one byte");
    half_mode mode = {.algo = PLAN_ALGO_FORWARD, .packet = packet_bytes, .forwarding = 1,
                      .max_segments = max_segments};
    if (half_engine_plan(m, &mode, pl, err))
        return -1;
    pl->packet_bytes = packet_bytes;
    return 0;
}

int plan_forward(const plan_matrix *m, uint64_t packet_bytes, plan *pl, plan_error *err)
{
    return plan_forward_capped(m, packet_bytes, 0, pl, err);
}
