# bench/overhead: hrelay's cost on tiny exchanges, side by side with PMPI in one run (2 ranks
# under libhrelay.so). `make overhead` builds and runs it; OVERHEAD_ARGS passes options.
noinst_PROGRAMS += bench/overhead
bench_overhead_SOURCES = bench/overhead.c bench/stats.c bench/bench.h
bench_overhead_LDADD = -ldl

.PHONY: overhead
overhead: bench/overhead$(EXEEXT) libhrelay.la
	UCX_TLS=$${UCX_TLS:-self,sm} $(MPIEXEC) -n 2 -genv LD_PRELOAD $(abs_top_builddir)/.libs/libhrelay.so \
	  ./bench/overhead$(EXEEXT) $(OVERHEAD_ARGS)
