# Scripts: the hrelay-run wrapper (generated), the developer scripts, and the demo program.

# hrelay-run is generated from scripts/hrelay-run.in with the configured paths substituted.
bin_SCRIPTS += hrelay-run
CLEANFILES += hrelay-run
EXTRA_DIST += scripts/hrelay-run.in

# The default window is the library's (EXEC_DEFAULT_WINDOW in src/exec/exec.h).
hrelay_run_window = `sed -n 's/^\#define EXEC_DEFAULT_WINDOW  *\([0-9][0-9]*\).*/\1/p' \
	$(srcdir)/src/exec/exec.h`
hrelay_run_edit = sed \
	-e 's|@libdir[@]|$(libdir)|g' \
	-e 's|@MPIEXEC[@]|$(MPIEXEC)|g' \
	-e 's|@PACKAGE_VERSION[@]|$(PACKAGE_VERSION)|g' \
	-e "s|@WINDOW_DEFAULT[@]|$(hrelay_run_window)|g"

hrelay-run: $(srcdir)/scripts/hrelay-run.in $(srcdir)/src/exec/exec.h Makefile
	$(AM_V_GEN)rm -f $@ $@.tmp && \
	$(hrelay_run_edit) $(srcdir)/scripts/hrelay-run.in > $@.tmp && \
	chmod +x $@.tmp && mv $@.tmp $@

# hrelay-emucluster (the emulated cluster) is generated from scripts/hrelay-emucluster, which also
# runs as it is from the source tree; the build's copy knows the installed library paths.
# Installed with the emulator's helper library (--enable-emu).
if HRELAY_EMU
bin_SCRIPTS += hrelay-emucluster
endif
CLEANFILES += hrelay-emucluster
EXTRA_DIST += scripts/hrelay-emucluster docs/emucluster.md
hrelay_emucluster_edit = sed \
	-e 's|@libdir[@]|$(libdir)|g' \
	-e 's|@pkglibdir[@]|$(pkglibdir)|g' \
	-e 's|@MPIEXEC[@]|$(MPIEXEC)|g' \
	-e 's|@PACKAGE_VERSION[@]|$(PACKAGE_VERSION)|g'

hrelay-emucluster: $(srcdir)/scripts/hrelay-emucluster Makefile
	$(AM_V_GEN)rm -f $@ $@.tmp && \
	$(hrelay_emucluster_edit) $(srcdir)/scripts/hrelay-emucluster > $@.tmp && \
	chmod +x $@.tmp && mv $@.tmp $@

# Developer scripts: dependencies, build, test suite, demo, planning benchmark, emulator
# calibration.
dist_noinst_SCRIPTS += \
	scripts/install-deps \
	scripts/build \
	scripts/check \
	scripts/demo \
	scripts/bench-plan \
	scripts/fuzz \
	scripts/emu/calibrate
EXTRA_DIST += scripts/common.sh docs/planning-time.md docs/algorithms.md docs/robustness.md

# The demo program: a sample sort whose MPI_Alltoallv counts are skewed (scripts/demo).
noinst_PROGRAMS += examples/samplesort
examples_samplesort_SOURCES = examples/samplesort.c
examples_samplesort_LDADD = -lm
