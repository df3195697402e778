# Tools: the offline planner CLI (no MPI) and the calibration program (MPI: measures the cost
# model's parameters).
bin_PROGRAMS += hrelay-plan hrelay-calibrate
hrelay_plan_SOURCES = src/tools/hrelay_plan.c
hrelay_plan_LDADD = libhrelay_plan.la
hrelay_calibrate_SOURCES = src/tools/hrelay_calibrate.c src/tools/calibrate.h \
	src/tools/calibrate_measure.c src/tools/calibrate_output.c
hrelay_calibrate_LDADD = libhrelay_exec.la libhrelay_plan.la
