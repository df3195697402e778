# Check unit tests of the cost model and the family choice (plan/cost.c, plan/choose.c), MPI-free.
if HAVE_CHECK
check_PROGRAMS += tests/unit/test_cost
TESTS += tests/unit/test_cost
tests_unit_test_cost_SOURCES = tests/unit/test_cost.c tests/unit/random_matrix.c \
	tests/unit/plan_testlib.c tests/unit/plan_testlib.h tests/unit/random_matrix.h
tests_unit_test_cost_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_cost_LDADD = libhrelay_plan.la $(CHECK_LIBS)
endif
