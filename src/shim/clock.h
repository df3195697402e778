/* A cheap clock for timing every intercepted call. */
#ifndef HRELAY_SHIM_CLOCK_H
#define HRELAY_SHIM_CLOCK_H

#include <stdint.h>

/* A cheap monotonic tick counter (the TSC where it is invariant, else nanoseconds). */
uint64_t shim_ticks(void);

/* Calibrates shim_ticks against the clock (once, at MPI_Init; takes about 2 ms). */
void shim_clock_init(void);

/* Seconds in a number of ticks. */
double shim_ticks_seconds(uint64_t ticks);

#endif
