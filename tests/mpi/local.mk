# tests/mpi: MPI integration tests. Each tests/mpi/*.sh launches $(MPIEXEC) itself (see
# tests/mpi/common.sh): libhrelay.so is preloaded for the ranks only (-genv), UCX_TLS=self,sm,
# and every launch runs under a timeout so that a hang fails instead of blocking make check.
check_PROGRAMS += tests/mpi/test_exec
tests_mpi_test_exec_SOURCES = tests/mpi/test_exec.c tests/mpi/testlib.c tests/mpi/testlib.h
tests_mpi_test_exec_LDADD = libhrelay_exec.la libhrelay_plan.la
