/* The half-duplex engine (plan/half_engine.c and its parts): Sanders and Solis-Oba's schedule
 * for half-duplex h-relations, with or without forwarding. Private to plan/: the families built
 * on it (plan_forward, plan_direct_half, plan_stepwise_half in plan/families.h) call it. */
#ifndef HRELAY_PLAN_HALF_ENGINE_H
#define HRELAY_PLAN_HALF_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "plan/error.h"
#include "plan/matrix.h"
#include "plan/plan.h"

/* What the engine builds (the families that share it: plan_forward, plan_direct_half,
 * plan_stepwise_half). */
typedef struct half_mode {
    plan_algo algo;      /* label of the plan */
    uint64_t packet;     /* bytes per packet; 0: every message is one packet, sent whole */
    int forwarding;      /* 1: pairs of odd cycles help each other in 12 rounds (Sec. 2.3);
                            0: every 2-relation in at most three steps, nothing forwarded */
    uint64_t min_step;   /* 0: exact super-packets; otherwise an iteration moves at least this
                            many grains over every matched edge (capped by its current part) */
    size_t max_segments; /* 0: no limit; otherwise fail once the plan holds more segments */
} half_mode;

/* Builds the half-duplex plan of m that mode describes into pl (labelled mode->algo, duplex
 * PLAN_DUPLEX_HALF, min_step_bytes and packet_bytes left 0 for the family to set). Every byte of
 * every off-diagonal message is delivered exactly once; each rank takes part in at most one
 * transfer per step. Deterministic (integer arithmetic only). Returns 0, or -1 with err set (out
 * of memory, the segment limit reached; pl then holds no memory). */
int half_engine_plan(const plan_matrix *m, const half_mode *mode, plan *pl, plan_error *err);

#endif
