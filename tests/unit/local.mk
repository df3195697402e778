# Check unit tests of plan/ (MPI-free).
if HAVE_CHECK
check_PROGRAMS += tests/unit/test_plan
TESTS += tests/unit/test_plan
tests_unit_test_plan_SOURCES = tests/unit/test_plan.c tests/unit/random_matrix.c tests/unit/random_matrix.h \
	tests/unit/plan_testlib.c tests/unit/plan_testlib.h \
	tests/unit/walker_otto_figures.h
tests_unit_test_plan_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_plan_LDADD = libhrelay_plan.la $(CHECK_LIBS)
endif
