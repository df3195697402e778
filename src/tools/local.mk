# Tools: the offline planner CLI and the planning-time benchmark (no MPI in either), and the
# calibration program (MPI: measures the cost model's parameters).
bin_PROGRAMS += hrelay-plan hrelay-calibrate
hrelay_plan_SOURCES = src/tools/hrelay_plan.c
hrelay_plan_LDADD = libhrelay_plan.la
hrelay_calibrate_SOURCES = src/tools/hrelay_calibrate.c
hrelay_calibrate_LDADD = libhrelay_exec.la libhrelay_plan.la

# bench/plan_time: planning time and memory of every family (plan_build) for P = 64, 256, 1024.
# `make bench` builds and runs it; BENCH_ARGS passes options (e.g. BENCH_ARGS='--reps 9').
noinst_PROGRAMS += bench/plan_time
bench_plan_time_SOURCES = bench/plan_time.c
bench_plan_time_LDADD = libhrelay_plan.la

# bench/node_plan_time: node-level planning (node matrix, node plans, one rank's program) at
# P = 1024 and 4096 with 32 and 128 ranks per node (docs/algorithms.md, "Node-level families").
noinst_PROGRAMS += bench/node_plan_time
bench_node_plan_time_SOURCES = bench/node_plan_time.c
bench_node_plan_time_LDADD = libhrelay_plan.la

.PHONY: bench
bench: bench/plan_time$(EXEEXT)
	./bench/plan_time$(EXEEXT) $(BENCH_ARGS)
