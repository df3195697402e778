# plan/: pure C, no MPI. A convenience library linked into libhrelay.so and the tools.
noinst_LTLIBRARIES += libhrelay_plan.la
libhrelay_plan_la_SOURCES = \
	src/plan/error.h src/plan/error.c \
	src/plan/matrix.h src/plan/matrix.c src/plan/matrix_parse.c \
	src/plan/plan.h src/plan/plan.c src/plan/build.c \
	src/plan/families.h \
	src/plan/bigmem.h src/plan/bigmem.c \
	src/plan/sort.h src/plan/sort.c \
	src/plan/load_matching.h src/plan/load_matching.c \
	src/plan/decompose.c src/plan/direct.c src/plan/widest.c src/plan/widest_tail.c \
	src/plan/greedy.c \
	src/plan/regular.c \
	src/plan/split_half.c \
	src/plan/transpose.c \
	src/plan/half_engine.h src/plan/half_state.h src/plan/half_engine.c \
	src/plan/half_cut.c src/plan/half_cycles.c src/plan/half_rounds.c \
	src/plan/forward.c \
	src/plan/walker_otto.h src/plan/walker_otto.c \
	src/plan/verify.c \
	src/plan/hash.h \
	src/plan/json_out.h src/plan/json_out.c \
	src/plan/plan_json.c \
	src/plan/plan_svg.c \
	src/plan/local.h src/plan/local.c \
	src/plan/cost.h src/plan/cost.c src/plan/cost_math.h src/plan/cost_topo.c \
	src/plan/topo.h src/plan/topo.c \
	src/plan/node.h src/plan/node_pieces.h src/plan/node_pieces.c \
	src/plan/node_build.c src/plan/node_own.c src/plan/node_aggregate.c \
	src/plan/node_local.c src/plan/node_verify.c src/plan/node_groups.c \
	src/plan/node_shm.h src/plan/node_shm.c \
	src/plan/choose.h src/plan/choose_rules.h src/plan/choose.c src/plan/choose_round.c \
	src/plan/choose_window.c src/plan/choose_watch.c src/plan/choose_lost.h src/plan/choose_lost.c \
	src/plan/summary.h src/plan/summary.c \
	src/plan/learn.h src/plan/learn.c \
	src/plan/budget.h src/plan/budget.c \
	src/plan/forecast.h src/plan/forecast.c
libhrelay_plan_la_LIBADD = -lm
