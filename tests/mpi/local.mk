# tests/mpi: MPI integration tests. Each tests/mpi/*.sh launches $(MPIEXEC) itself (see
# tests/mpi/common.sh): libhrelay.so is preloaded for the ranks only (-genv), UCX_TLS=self,sm,
# and every launch runs under a timeout so that a hang fails instead of blocking make check.
#   exec.sh     exec/ alone with random element-cutting plans, forwarding ones included
#               (test_exec), P = 1..8
#   compare.sh  the shim against PMPI, byte for byte, guard bytes, report check, P = 1..8
#   families.sh the same for every other schedule family, element-cutting grains and packets
#   fortran.sh  MPI_ALLTOALLV / MPI_ALLTOALL from Fortran are rescheduled and right
#   report.sh   environment variables and what the report counts
#   control.sh  the tool API of hrelay.h (hrelay_set_algorithm, hrelay_last_algorithm)
#   cache.sh    plan cache, call sites, unchecked native runs, calibration files (sites.c)
#   auto.sh     HRELAY_ALGO=auto (the default) against PMPI
#   calibrate.sh hrelay-calibrate writes a calibration file hrelay reads back
#   run_wrapper.sh hrelay-run: options, forwarding, a real run
TESTS += tests/mpi/exec.sh tests/mpi/compare.sh tests/mpi/families.sh tests/mpi/fortran.sh \
	tests/mpi/report.sh tests/mpi/control.sh tests/mpi/cache.sh tests/mpi/auto.sh \
	tests/mpi/calibrate.sh tests/mpi/run_wrapper.sh
EXTRA_DIST += tests/mpi/exec.sh tests/mpi/compare.sh tests/mpi/families.sh tests/mpi/fortran.sh \
	tests/mpi/report.sh tests/mpi/control.sh tests/mpi/cache.sh tests/mpi/auto.sh \
	tests/mpi/calibrate.sh tests/mpi/run_wrapper.sh \
	tests/mpi/report_field.py \
	tests/mpi/common.sh tests/mpi/fortran_alltoallv.f90

check_PROGRAMS += tests/mpi/test_exec tests/mpi/compare tests/mpi/bench_window tests/mpi/control \
	tests/mpi/sites
tests_mpi_test_exec_SOURCES = tests/mpi/test_exec.c tests/mpi/plans.c tests/mpi/plans.h \
	tests/mpi/testlib.c tests/mpi/testlib.h
tests_mpi_test_exec_LDADD = libhrelay_exec.la libhrelay_plan.la
tests_mpi_compare_SOURCES = tests/mpi/compare.c tests/mpi/testlib.c tests/mpi/testlib.h
tests_mpi_control_SOURCES = tests/mpi/control.c
tests_mpi_control_LDADD = -ldl
tests_mpi_sites_SOURCES = tests/mpi/sites.c

# Not a test: times exec_run for several windows (see the comment in bench_window.c).
tests_mpi_bench_window_SOURCES = tests/mpi/bench_window.c
tests_mpi_bench_window_LDADD = libhrelay_exec.la libhrelay_plan.la

# The Fortran test program, built with the MPI Fortran wrapper found by configure.
check_SCRIPTS += tests/mpi/fortran_alltoallv tests/mpi/mpi-env.sh
CLEANFILES += tests/mpi/fortran_alltoallv tests/mpi/mpi-env.sh
tests/mpi/fortran_alltoallv: $(srcdir)/tests/mpi/fortran_alltoallv.f90
	@$(MKDIR_P) tests/mpi
	$(AM_V_GEN)$(MPIFC) -g -o $@ $(srcdir)/tests/mpi/fortran_alltoallv.f90

# Configured values the test scripts source: the launcher and the built library.
tests/mpi/mpi-env.sh: Makefile
	@$(MKDIR_P) tests/mpi
	$(AM_V_GEN){ echo "MPIEXEC='$(MPIEXEC)'"; \
	  echo "HRELAY_LIB='$(abs_top_builddir)/.libs/libhrelay.so'"; } > $@
