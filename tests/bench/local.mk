# tests/bench: the benchmark must not rot. smoke.sh runs bench/alltoallv_bench on 2, 3 and 4
# ranks with tiny sizes and 1-2 repetitions (about 15 seconds): it runs every pattern (fixed,
# drifting, MPI_Alltoall), every candidate's result equals PMPI's, the tables are complete
# (whole-run sums, node-level bounds with --node-size), and a corrupted result is caught.
# round_order checks the candidates' order in the rounds of each run (bench/random.c).
# median_interval checks the interval a median of runs lies in (bench/stats.c).
# ab.sh checks scripts/bench-ab's comparison of benchmark directories and its refusals.
TESTS += tests/bench/smoke.sh tests/bench/ab.sh
EXTRA_DIST += tests/bench/smoke.sh tests/bench/ab.sh
check_PROGRAMS += tests/bench/round_order
TESTS += tests/bench/round_order
tests_bench_round_order_SOURCES = tests/bench/round_order.c bench/random.c bench/bench.h
check_PROGRAMS += tests/bench/median_interval
TESTS += tests/bench/median_interval
tests_bench_median_interval_SOURCES = tests/bench/median_interval.c bench/stats.c bench/bench.h
tests_bench_median_interval_LDADD = -lm
