# Scripts: the hrelay-run wrapper (generated), the developer scripts, and the demo program.

# hrelay-run is generated from scripts/hrelay-run.in with the configured paths and MPI family
# substituted, and its options, their checks and the list of settings in its --help generated
# from the library's table of settings (src/shim/hrelay-settings fill).
bin_SCRIPTS += hrelay-run
CLEANFILES += hrelay-run
EXTRA_DIST += scripts/hrelay-run.in

hrelay_run_edit = sed \
	-e 's|@libdir[@]|$(libdir)|g' \
	-e 's|@MPIEXEC[@]|$(MPIEXEC)|g' \
	-e 's|@HRELAY_MPI_FAMILY[@]|$(HRELAY_MPI_FAMILY)|g' \
	-e 's|@PACKAGE_VERSION[@]|$(PACKAGE_VERSION)|g'

hrelay-run: $(srcdir)/scripts/hrelay-run.in src/shim/hrelay-settings$(EXEEXT) Makefile
	$(AM_V_GEN)rm -f $@ $@.tmp && \
	$(hrelay_run_edit) $(srcdir)/scripts/hrelay-run.in | src/shim/hrelay-settings fill > $@.tmp && \
	chmod +x $@.tmp && mv $@.tmp $@

# hrelay-emucluster (the emulated cluster) is generated from scripts/hrelay-emucluster, which also
# runs as it is from the source tree; the build's copy knows the installed library paths. Its
# commands live in scripts/emu/lib-*.sh, installed in $(emudatadir): the build tree's copy
# sources them from the source tree, an installed copy from $(emudatadir). Installed with the
# emulator's helper library (--enable-emu).
if HRELAY_EMU
bin_SCRIPTS += hrelay-emucluster
endif
CLEANFILES += hrelay-emucluster
EXTRA_DIST += scripts/hrelay-emucluster docs/emucluster.md
emudatadir = $(pkgdatadir)/emu
dist_emudata_DATA = \
	scripts/emu/lib-common.sh \
	scripts/emu/lib-create.sh \
	scripts/emu/lib-destroy.sh \
	scripts/emu/lib-status.sh \
	scripts/emu/lib-launch.sh \
	scripts/emu/lib-run.sh
hrelay_emucluster_edit = sed \
	-e 's|@libdir[@]|$(libdir)|g' \
	-e 's|@pkglibdir[@]|$(pkglibdir)|g' \
	-e 's|@emudatadir[@]|$(emudatadir)|g' \
	-e 's|@abs_top_builddir[@]|$(abs_top_builddir)|g' \
	-e 's|@abs_top_srcdir[@]|$(abs_top_srcdir)|g' \
	-e 's|@MPIEXEC[@]|$(MPIEXEC)|g' \
	-e 's|@PACKAGE_VERSION[@]|$(PACKAGE_VERSION)|g'

hrelay-emucluster: $(srcdir)/scripts/hrelay-emucluster Makefile
	$(AM_V_GEN)rm -f $@ $@.tmp && \
	$(hrelay_emucluster_edit) $(srcdir)/scripts/hrelay-emucluster > $@.tmp && \
	chmod +x $@.tmp && mv $@.tmp $@

# Developer scripts: dependencies, build, test suite, demo, planning benchmark, two revisions
# benchmarked side by side, emulator calibration.
dist_noinst_SCRIPTS += \
	scripts/install-deps \
	scripts/build \
	scripts/check \
	scripts/demo \
	scripts/bench-plan \
	scripts/bench-ab \
	scripts/fuzz \
	scripts/emu/calibrate
EXTRA_DIST += scripts/common.sh docs/planning-time.md docs/algorithms.md docs/robustness.md \
	docs/architecture.md docs/decisions.md

# The demo programs (scripts/demo): a sample sort whose MPI_Alltoallv counts are skewed and
# change on every call, and the transposes of a slab-decomposed 3-D FFT, repeated.
noinst_PROGRAMS += examples/samplesort examples/fft_transpose
examples_samplesort_SOURCES = examples/samplesort.c
examples_samplesort_LDADD = -lm
examples_fft_transpose_SOURCES = examples/fft_transpose.c
