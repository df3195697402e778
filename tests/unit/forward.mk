# Check unit tests of the forwarding planner (plan/forward.c and the half-duplex engine), MPI-free.
if HAVE_CHECK
check_PROGRAMS += tests/unit/test_forward
TESTS += tests/unit/test_forward
tests_unit_test_forward_SOURCES = tests/unit/test_forward.c tests/unit/random_matrix.c \
	tests/unit/plan_testlib.c tests/unit/plan_testlib.h \
	tests/unit/matrix_classes.c tests/unit/matrix_classes.h \
	tests/unit/random_matrix.h
tests_unit_test_forward_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_forward_LDADD = libhrelay_plan.la $(CHECK_LIBS) -lm
endif
