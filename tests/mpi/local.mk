# tests/mpi: MPI integration tests. Each tests/mpi/*.sh launches $(MPIEXEC) itself (see
# tests/mpi/common.sh): libhrelay.so is preloaded for the ranks only (-genv), UCX_TLS=self,sm,
# and every launch runs under a timeout so that a hang fails instead of blocking make check.
#   exec.sh     exec/ alone with random element-cutting plans, forwarding ones included
#               (test_exec), P = 1..8
#   agree.sh    the few words of a fresh communicator's agreements (shim_agree_few) against
#               MPI_Allgather of every rank's words (tests/mpi/agree), P = 1..8
#   compare.sh  the shim against PMPI, byte for byte, guard bytes, report check, P = 1..8
#   families.sh the same for every other schedule family, element-cutting grains and packets
#   nodes.sh    the node-level families under HRELAY_NODE_SIZE=K (uneven, non-consecutive
#               nodes), the report's topologies, node-direct's node-level metadata path
#   fortran.sh  MPI_ALLTOALLV / MPI_ALLTOALL from Fortran are rescheduled and right (skipped,
#               saying why, when configure found no MPI Fortran compiler: --enable-fortran)
#   report.sh   environment variables and what the report counts
#   control.sh  the tool API of hrelay.h (hrelay_set_algorithm, hrelay_last_algorithm,
#               hrelay_last_run)
#   cache.sh    plan cache, call sites, unchecked native runs, calibration files (sites.c)
#   auto.sh     HRELAY_ALGO=auto (the default) against PMPI
#   drift.sh    counts that change on every call: results, the same decision on every rank,
#               calls decided before gathering, a model 30 times wrong corrected (drift.c)
#   calibrate.sh hrelay-calibrate writes a calibration file hrelay reads back
#   run_wrapper.sh hrelay-run: options, forwarding, a real run
#   examples.sh the demo's programs (examples/) verify their exchanges under hrelay
#   errors.sh   erroneous calls: the error class MPI returns natively, on every rank, no hang
#   threads.sh  MPI_THREAD_MULTIPLE: concurrent calls on different communicators
#   comms.sh    many communicators: private duplicates only where a pattern is gathered, at
#               most 128 live, given back when freed (comms.c); fresh ones deciding by what
#               earlier ones settled, inherited and lost (plans made slow by slow_sends.c)
#   large.sh    MPI_Alltoallv_c beyond 2^31 bytes: displacements, a 2 GiB message (2 ranks)
#   valgrind.sh compare on 2 ranks under valgrind memcheck
#   oom.sh      hrelay's own allocations failing at different points on different ranks
#               (fail_alloc.c): results still PMPI's, no hang, no crash
#   environment.sh  an invalid value on a rank other than 0: rank 0's settings win, one warning
#   version.sh  configure's version in hrelay.h, the report and every tool's --version
TESTS += tests/mpi/exec.sh tests/mpi/agree.sh tests/mpi/compare.sh tests/mpi/families.sh tests/mpi/nodes.sh \
	tests/mpi/fortran.sh \
	tests/mpi/report.sh tests/mpi/control.sh tests/mpi/cache.sh tests/mpi/auto.sh \
	tests/mpi/drift.sh tests/mpi/examples.sh \
	tests/mpi/calibrate.sh tests/mpi/run_wrapper.sh tests/mpi/errors.sh tests/mpi/threads.sh \
	tests/mpi/comms.sh tests/mpi/oom.sh tests/mpi/valgrind.sh tests/mpi/environment.sh \
	tests/mpi/version.sh
EXTRA_DIST += tests/mpi/exec.sh tests/mpi/agree.sh tests/mpi/compare.sh tests/mpi/families.sh tests/mpi/nodes.sh \
	tests/mpi/fortran.sh \
	tests/mpi/report.sh tests/mpi/control.sh tests/mpi/cache.sh tests/mpi/auto.sh \
	tests/mpi/drift.sh tests/mpi/examples.sh \
	tests/mpi/calibrate.sh tests/mpi/run_wrapper.sh tests/mpi/errors.sh tests/mpi/threads.sh \
	tests/mpi/comms.sh tests/mpi/oom.sh tests/mpi/large.sh tests/mpi/valgrind.sh \
	tests/mpi/environment.sh tests/mpi/version.sh \
	tests/mpi/report_field.py \
	tests/sanitizers/lsan.supp tests/sanitizers/valgrind.supp \
	tests/fuzz/fuzz_plan.c tests/fuzz/seeds/text-3 tests/fuzz/seeds/direct-4 \
	tests/fuzz/seeds/family-2 tests/fuzz/seeds/family-3 tests/fuzz/seeds/family-4 \
	tests/fuzz/seeds/family-5 tests/fuzz/seeds/family-6 \
	tests/mpi/common.sh tests/mpi/fortran_alltoallv.f90

check_PROGRAMS += tests/mpi/test_exec tests/mpi/agree tests/mpi/compare tests/mpi/control tests/mpi/sites \
	tests/mpi/errors tests/mpi/threads tests/mpi/drift tests/mpi/comms
tests_mpi_test_exec_SOURCES = tests/mpi/test_exec.c tests/mpi/plans.c tests/mpi/plans.h \
	tests/mpi/testlib.c tests/mpi/testlib.h
tests_mpi_test_exec_LDADD = libhrelay_exec.la libhrelay_plan.la
tests_mpi_agree_SOURCES = tests/mpi/agree.c src/shim/agree.c
# (its own objects: agree.c is also in libhrelay.la)
tests_mpi_agree_CPPFLAGS = $(AM_CPPFLAGS)
tests_mpi_compare_SOURCES = tests/mpi/compare.c tests/mpi/testlib.c tests/mpi/testlib.h
tests_mpi_control_SOURCES = tests/mpi/control.c
tests_mpi_control_LDADD = -ldl
tests_mpi_sites_SOURCES = tests/mpi/sites.c
tests_mpi_drift_SOURCES = tests/mpi/drift.c
tests_mpi_drift_LDADD = -ldl
tests_mpi_comms_SOURCES = tests/mpi/comms.c
tests_mpi_comms_LDADD = -ldl
# plans made slow for comms.sh (a shared library, preloaded ahead of libhrelay.so; the rpath
# only makes libtool build it shared, it is never installed)
check_LTLIBRARIES = tests/mpi/libslow_sends.la tests/mpi/libfail_alloc.la
tests_mpi_libslow_sends_la_SOURCES = tests/mpi/slow_sends.c
tests_mpi_libslow_sends_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
tests_mpi_libslow_sends_la_LIBADD = -ldl
# hrelay's allocations made to fail for oom.sh (the same way)
tests_mpi_libfail_alloc_la_SOURCES = tests/mpi/fail_alloc.c
tests_mpi_libfail_alloc_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
tests_mpi_libfail_alloc_la_LIBADD = -ldl
tests_mpi_errors_SOURCES = tests/mpi/errors.c tests/mpi/testlib.c tests/mpi/testlib.h
tests_mpi_threads_SOURCES = tests/mpi/threads.c tests/mpi/testlib.c tests/mpi/testlib.h
tests_mpi_threads_LDADD = -lpthread
if HRELAY_LARGE_COUNT
TESTS += tests/mpi/large.sh
check_PROGRAMS += tests/mpi/large
endif
tests_mpi_large_SOURCES = tests/mpi/large.c tests/mpi/testlib.c tests/mpi/testlib.h

# The Fortran test program, built with the MPI Fortran wrapper found by configure, once per
# binding: mpif.h, use mpi, use mpi_f08 (with -g: the report names its lines); only when
# configure found one (--enable-fortran).
fortran_tests = tests/mpi/fortran_mpifh tests/mpi/fortran_usempi tests/mpi/fortran_f08
if HRELAY_FORTRAN
check_SCRIPTS += $(fortran_tests)
endif
check_SCRIPTS += tests/mpi/mpi-env.sh
CLEANFILES += $(fortran_tests) tests/mpi/mpi-env.sh tests/mpi/*.mod
fortran_build = $(MKDIR_P) tests/mpi && $(MPIFC) -g -cpp -Jtests/mpi -o $@
# mpif.h declares no interfaces: gfortran would reject one buffer argument passed as an array
# and as a scalar (MPI_IN_PLACE) in the same file
tests/mpi/fortran_mpifh: $(srcdir)/tests/mpi/fortran_alltoallv.f90 Makefile
	$(AM_V_GEN)$(fortran_build) -DHR_MPIF_H -fallow-argument-mismatch \
	  $(srcdir)/tests/mpi/fortran_alltoallv.f90
tests/mpi/fortran_usempi: $(srcdir)/tests/mpi/fortran_alltoallv.f90 Makefile
	$(AM_V_GEN)$(fortran_build) $(srcdir)/tests/mpi/fortran_alltoallv.f90
tests/mpi/fortran_f08: $(srcdir)/tests/mpi/fortran_alltoallv.f90 Makefile
	$(AM_V_GEN)$(fortran_build) -DHR_F08 $(srcdir)/tests/mpi/fortran_alltoallv.f90

# Configured values the test scripts source: the launcher and the built library.
tests/mpi/mpi-env.sh: Makefile
	@$(MKDIR_P) tests/mpi
	$(AM_V_GEN){ echo "MPIEXEC='$(MPIEXEC)'"; \
	  echo "HRELAY_MPI_FAMILY='$(HRELAY_MPI_FAMILY)'"; \
	  echo "HRELAY_ASAN_RT='$(HRELAY_ASAN_RT)'"; \
	  echo "HRELAY_LSAN_SUPP='$(abs_top_srcdir)/tests/sanitizers/lsan.supp'"; \
	  echo "HRELAY_LIB='$(abs_top_builddir)/.libs/libhrelay.so'"; \
	  echo "HRELAY_SLOW_SENDS='$(abs_top_builddir)/tests/mpi/.libs/libslow_sends.so'"; \
	  echo "HRELAY_FAIL_ALLOC='$(abs_top_builddir)/tests/mpi/.libs/libfail_alloc.so'"; } > $@
