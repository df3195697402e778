# tests/bench: the benchmark must not rot. smoke.sh runs bench/alltoallv_bench on 3 ranks
# with tiny sizes and 2 repetitions (a few seconds): it runs, every candidate's result equals
# PMPI's, the tables are complete, and a corrupted result is caught.
TESTS += tests/bench/smoke.sh
EXTRA_DIST += tests/bench/smoke.sh
