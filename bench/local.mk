# bench/alltoallv_bench: MPI_Alltoallv timed side by side (PMPI, native, every hrelay family,
# auto) on exchange patterns, against the network's lower bound. An MPI program that finds
# hrelay with dlsym, so it runs under hrelay-run without linking libhrelay. Built with the
# rest (not installed); `make bench` builds it, `make bench-alltoallv` also runs it on
# BENCH_RANKS ranks of this machine (default 2) with BENCH_ALLTOALLV_ARGS, and scripts/bench
# runs it, writes the tables and plots, on any launcher. tests/bench/smoke.sh runs it in
# make check.
noinst_PROGRAMS += bench/alltoallv_bench
bench_alltoallv_bench_SOURCES = bench/alltoallv_bench.c bench/bench.h bench/options.c \
	bench/patterns.c bench/pattern_redist.c bench/pattern_samplesort.c bench/candidates.c \
	bench/measure.c bench/rate.c bench/stats.c bench/output.c
bench_alltoallv_bench_LDADD = -ldl -lm

dist_noinst_SCRIPTS += scripts/bench bench/plot.sh bench/summary.sh
EXTRA_DIST += docs/performance

bench: bench/alltoallv_bench$(EXEEXT)

BENCH_RANKS = 2
.PHONY: bench-alltoallv
bench-alltoallv: bench/alltoallv_bench$(EXEEXT) libhrelay.la
	UCX_TLS=self,sm $(MPIEXEC) -n $(BENCH_RANKS) -genv UCX_TLS self,sm \
	  -genv LD_PRELOAD $(abs_top_builddir)/.libs/libhrelay.so \
	  ./bench/alltoallv_bench$(EXEEXT) $(BENCH_ALLTOALLV_ARGS)
