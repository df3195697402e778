# tests/unit: Check unit and property tests of plan/ (MPI-free), built when configure finds Check
# (--enable-unit-tests, the default when found). Without Check, make check runs check_missing.sh
# instead, which reports them as skipped and says what to install.
#   test_plan     matrix figures, the direct planner, the verifier and the per-rank view
#   test_duplex   the half-duplex form of every family, and plan_split_half
#   test_heldout  every family on held-out matrix classes up to P = 256, against each paper's bound
#   test_forward  the forwarding planner (plan/forward.c and the half-duplex engine)
#   test_cost     the cost model and the family choice (plan/cost.c, plan/choose.c)
#   test_node     node-level plans: topology, node families in both modes, node verifier, local
#                 programs
#   test_node_cost the cost model at node level and the on-node calibration figures
#   test_learn    drifting patterns: the summary against the matrix (plan/summary.c), the
#                 learned corrections (plan/learn.c), the forecast and its budget (forecast.c)
EXTRA_DIST += tests/unit/check_missing.sh
unit_testlib = tests/unit/random_matrix.c tests/unit/random_matrix.h \
	tests/unit/plan_testlib.c tests/unit/plan_testlib.h \
	tests/unit/matrix_classes.c tests/unit/matrix_classes.h
unit_cflags = $(AM_CFLAGS) $(CHECK_CFLAGS)
unit_ldadd = libhrelay_plan.la $(CHECK_LIBS) -lm
if HRELAY_UNIT_TESTS
unit_tests = tests/unit/test_plan tests/unit/test_duplex tests/unit/test_heldout \
	tests/unit/test_forward tests/unit/test_cost tests/unit/test_node \
	tests/unit/test_node_cost \
	tests/unit/test_learn
check_PROGRAMS += $(unit_tests)
TESTS += $(unit_tests)
else
TESTS += tests/unit/check_missing.sh
endif
tests_unit_test_plan_SOURCES = tests/unit/test_plan.c tests/unit/walker_otto_figures.h \
	$(unit_testlib)
tests_unit_test_plan_CFLAGS = $(unit_cflags)
tests_unit_test_plan_LDADD = $(unit_ldadd)
tests_unit_test_duplex_SOURCES = tests/unit/test_duplex.c $(unit_testlib)
tests_unit_test_duplex_CFLAGS = $(unit_cflags)
tests_unit_test_duplex_LDADD = $(unit_ldadd)
tests_unit_test_heldout_SOURCES = tests/unit/test_heldout.c $(unit_testlib)
tests_unit_test_heldout_CFLAGS = $(unit_cflags)
tests_unit_test_heldout_LDADD = $(unit_ldadd)
tests_unit_test_forward_SOURCES = tests/unit/test_forward.c $(unit_testlib)
tests_unit_test_forward_CFLAGS = $(unit_cflags)
tests_unit_test_forward_LDADD = $(unit_ldadd)
tests_unit_test_cost_SOURCES = tests/unit/test_cost.c $(unit_testlib)
tests_unit_test_cost_CFLAGS = $(unit_cflags)
tests_unit_test_cost_LDADD = $(unit_ldadd)
tests_unit_test_node_SOURCES = tests/unit/test_node.c $(unit_testlib)
tests_unit_test_node_CFLAGS = $(unit_cflags)
tests_unit_test_node_LDADD = $(unit_ldadd)
tests_unit_test_node_cost_SOURCES = tests/unit/test_node_cost.c $(unit_testlib)
tests_unit_test_node_cost_CFLAGS = $(unit_cflags)
tests_unit_test_node_cost_LDADD = $(unit_ldadd)
tests_unit_test_learn_SOURCES = tests/unit/test_learn.c $(unit_testlib)
tests_unit_test_learn_CFLAGS = $(unit_cflags)
tests_unit_test_learn_LDADD = $(unit_ldadd)
