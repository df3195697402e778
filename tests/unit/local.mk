# Check unit tests of plan/ (MPI-free).
if HAVE_CHECK
check_PROGRAMS += tests/unit/test_plan
TESTS += tests/unit/test_plan
tests_unit_test_plan_SOURCES = tests/unit/test_plan.c tests/unit/random_matrix.c tests/unit/random_matrix.h \
	tests/unit/plan_testlib.c tests/unit/plan_testlib.h \
	tests/unit/matrix_classes.c tests/unit/matrix_classes.h \
	tests/unit/walker_otto_figures.h
tests_unit_test_plan_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_plan_LDADD = libhrelay_plan.la $(CHECK_LIBS) -lm

# The half-duplex form of every family, and plan_split_half.
check_PROGRAMS += tests/unit/test_duplex
TESTS += tests/unit/test_duplex
tests_unit_test_duplex_SOURCES = tests/unit/test_duplex.c tests/unit/random_matrix.c \
	tests/unit/random_matrix.h tests/unit/plan_testlib.c tests/unit/plan_testlib.h \
	tests/unit/matrix_classes.c tests/unit/matrix_classes.h
tests_unit_test_duplex_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_duplex_LDADD = libhrelay_plan.la $(CHECK_LIBS) -lm

# Every family on held-out matrix classes up to P = 256, against each paper's bound.
check_PROGRAMS += tests/unit/test_heldout
TESTS += tests/unit/test_heldout
tests_unit_test_heldout_SOURCES = tests/unit/test_heldout.c tests/unit/random_matrix.c \
	tests/unit/random_matrix.h tests/unit/plan_testlib.c tests/unit/plan_testlib.h \
	tests/unit/matrix_classes.c tests/unit/matrix_classes.h
tests_unit_test_heldout_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_heldout_LDADD = libhrelay_plan.la $(CHECK_LIBS) -lm

# Node-level plans: topology, node families in both modes, node verifier, local programs.
check_PROGRAMS += tests/unit/test_node
TESTS += tests/unit/test_node
tests_unit_test_node_SOURCES = tests/unit/test_node.c tests/unit/random_matrix.c \
	tests/unit/random_matrix.h tests/unit/plan_testlib.c tests/unit/plan_testlib.h
tests_unit_test_node_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_node_LDADD = libhrelay_plan.la $(CHECK_LIBS) -lm

# The cost model at node level and the on-node calibration figures.
check_PROGRAMS += tests/unit/test_node_cost
TESTS += tests/unit/test_node_cost
tests_unit_test_node_cost_SOURCES = tests/unit/test_node_cost.c tests/unit/random_matrix.c \
	tests/unit/random_matrix.h tests/unit/plan_testlib.c tests/unit/plan_testlib.h
tests_unit_test_node_cost_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_test_node_cost_LDADD = libhrelay_plan.la $(CHECK_LIBS) -lm
endif
