# bench/: benchmarks, built with the rest (not installed, not tests). `make bench` builds them all
# and runs plan_time; the others run through their own targets or scripts.

# bench/plan_time: planning time and memory of every family (plan_build) for P = 64, 256, 1024
# (no MPI). `make bench` runs it; BENCH_ARGS passes options (e.g. BENCH_ARGS='--reps 9');
# scripts/bench-plan runs it with options.
noinst_PROGRAMS += bench/plan_time
bench_plan_time_SOURCES = bench/plan_time.c
bench_plan_time_LDADD = libhrelay_plan.la

# bench/node_plan_time: node-level planning (node matrix, node plans, one rank's program) at
# P = 1024 and 4096 with 32 and 128 ranks per node (docs/algorithms.md, "Node-level families").
noinst_PROGRAMS += bench/node_plan_time
bench_node_plan_time_SOURCES = bench/node_plan_time.c
bench_node_plan_time_LDADD = libhrelay_plan.la

# bench/node_meta: a new pattern's metadata, the P x P gather against node-direct's node-level
# exchange (shim/node_gather.c) and an allreduce of the node matrix; run it with mpiexec (on the
# emulated cluster: hrelay-emucluster run -n P -- bench/node_meta). docs/algorithms.md has runs.
noinst_PROGRAMS += bench/node_meta
bench_node_meta_SOURCES = bench/node_meta.c

# bench/node_steps: what one node step costs beyond its bytes, with a barrier between steps,
# readiness tokens from the destination node, or neither (node-direct's synchronised steps and
# their groups, HRELAY_NODE_SYNC and HRELAY_NODE_JOIN); run it with mpiexec, e.g. on the
# emulated cluster: hrelay-emucluster run -n 32 -- bench/node_steps --rate 200M.
noinst_PROGRAMS += bench/node_steps
bench_node_steps_SOURCES = bench/node_steps.c

# bench/alltoallv_bench: MPI_Alltoallv timed side by side (PMPI, native, every hrelay family,
# auto) on fixed and drifting exchange patterns, against the network's lower bounds (per rank
# and per node), per call and over the whole run. An MPI program that finds
# hrelay with dlsym, so it runs under hrelay-run without linking libhrelay. `make
# bench-alltoallv` runs it on BENCH_RANKS ranks of this machine (default 2) with
# BENCH_ALLTOALLV_ARGS, and scripts/bench runs it, writes the tables and plots, on any launcher.
# tests/bench/smoke.sh runs it in make check.
noinst_PROGRAMS += bench/alltoallv_bench
bench_alltoallv_bench_SOURCES = bench/alltoallv_bench.c bench/bench.h bench/options.c \
	bench/random.c bench/patterns.c bench/pattern_redist.c bench/pattern_samplesort.c \
	bench/pattern_fft.c bench/pattern_bfs.c bench/pattern_moe.c bench/pattern_particles.c \
	bench/sequence.c bench/nodes.c bench/candidates.c bench/exchange.c bench/measure.c \
	bench/merge_runs.c bench/rows.c bench/rate.c bench/stats.c bench/output.c \
	bench/run_summary.c bench/calls_log.c
bench_alltoallv_bench_LDADD = -ldl -lm

# bench/overhead: hrelay's cost on tiny exchanges, side by side with PMPI in one run (2 ranks
# under libhrelay.so). `make overhead` runs it; OVERHEAD_ARGS passes options.
noinst_PROGRAMS += bench/overhead
bench_overhead_SOURCES = bench/overhead.c bench/stats.c bench/bench.h
bench_overhead_LDADD = -ldl -lm

# bench/agreement_cost: what a small allreduce (hrelay's agreement) right before an exchange
# costs the exchange, plain MPI without hrelay, on matrices alltoallv_bench --matrices writes
# (docs/performance has runs on the emulated cluster); run it with mpiexec -n P.
noinst_PROGRAMS += bench/agreement_cost
bench_agreement_cost_SOURCES = bench/agreement_cost.c bench/stats.c bench/bench.h
bench_agreement_cost_LDADD = libhrelay_plan.la -lm

# bench/bench_window: exec_run (without the shim) for windows 1 .. 64, to choose
# EXEC_DEFAULT_WINDOW (see the comment in bench_window.c); run it with mpiexec -n 2.
noinst_PROGRAMS += bench/bench_window
bench_bench_window_SOURCES = bench/bench_window.c
bench_bench_window_LDADD = libhrelay_exec.la libhrelay_plan.la

dist_noinst_SCRIPTS += scripts/bench bench/plot.sh bench/summary.sh
EXTRA_DIST += docs/performance

.PHONY: bench
bench: bench/plan_time$(EXEEXT) bench/alltoallv_bench$(EXEEXT) bench/overhead$(EXEEXT) \
	bench/bench_window$(EXEEXT)
	./bench/plan_time$(EXEEXT) $(BENCH_ARGS)

BENCH_RANKS = 2
.PHONY: bench-alltoallv
bench-alltoallv: bench/alltoallv_bench$(EXEEXT) libhrelay.la
	UCX_TLS=self,sm $(MPIEXEC) -n $(BENCH_RANKS) -genv UCX_TLS self,sm \
	  -genv LD_PRELOAD $(abs_top_builddir)/.libs/libhrelay.so \
	  ./bench/alltoallv_bench$(EXEEXT) $(BENCH_ALLTOALLV_ARGS)

.PHONY: overhead
overhead: bench/overhead$(EXEEXT) libhrelay.la
	UCX_TLS=$${UCX_TLS:-self,sm} $(MPIEXEC) -n 2 -genv LD_PRELOAD $(abs_top_builddir)/.libs/libhrelay.so \
	  ./bench/overhead$(EXEEXT) $(OVERHEAD_ARGS)
