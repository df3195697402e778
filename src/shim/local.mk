# shim/: the preloaded library libhrelay.so. Only the MPI_* entry points and hrelay_version are
# exported (everything else is built with -fvisibility=hidden and filtered by the regex).

# The table of settings and its parser (no MPI calls): in the library, and in hrelay-settings,
# which prints what is generated from the table (hrelay-run's options and help, the names the
# tests clear, the README rows tests/tools/settings.sh compares).
noinst_LTLIBRARIES += libhrelay_settings.la
libhrelay_settings_la_SOURCES = \
	src/shim/settings.h src/shim/settings.c \
	src/shim/config.c
noinst_PROGRAMS += src/shim/hrelay-settings
src_shim_hrelay_settings_SOURCES = src/shim/settings_doc.c
src_shim_hrelay_settings_LDADD = libhrelay_settings.la libhrelay_plan.la

lib_LTLIBRARIES += libhrelay.la
libhrelay_la_SOURCES = \
	src/shim/export.h \
	src/shim/state.h src/shim/state.c \
	src/shim/log.h src/shim/log.c \
	src/shim/init.h src/shim/init.c \
	src/shim/control.c \
	src/shim/comm.h src/shim/comm_record.c \
	src/shim/args.h src/shim/args.c \
	src/shim/alltoallv.c \
	src/shim/agree.h src/shim/agree.c \
	src/shim/cache.h src/shim/cache.c \
	src/shim/clock.h src/shim/clock.c \
	src/shim/decide.h src/shim/decide.c \
	src/shim/history.h src/shim/history.c \
	src/shim/settled.h src/shim/settled.c \
	src/shim/lost.h src/shim/lost.c \
	src/shim/lineage.h src/shim/lineage.c \
	src/shim/call.h src/shim/quiet.h src/shim/exchange.c \
	src/shim/exchange.h src/shim/exchange_agreed.c src/shim/exchange_native.c \
	src/shim/exchange_feedback.c \
	src/shim/describe.h src/shim/describe.c \
	src/shim/run.h src/shim/run.c \
	src/shim/miss.h src/shim/miss.c \
	src/shim/site.h src/shim/site.c \
	src/shim/site_report.h src/shim/site_report.c \
	src/shim/gather_root.h src/shim/gather_root.c \
	src/shim/validate.h src/shim/validate.c \
	src/shim/stats.h src/shim/stats.c \
	src/shim/dump.h src/shim/dump.c \
	src/shim/report.h src/shim/report.c \
	src/shim/topo.h src/shim/topo.c \
	src/shim/comm_summary.h src/shim/comm_summary.c \
	src/shim/node_gather.h src/shim/node_gather.c \
	src/shim/fortran.h
# Fortran entry points the MPI library's bindings would otherwise take past hrelay: Open MPI's
# call PMPI_ directly (all of them), MPICH's mpi_f08 calls PMPI_Init / PMPI_Finalize.
if HRELAY_OPENMPI
libhrelay_la_SOURCES += src/shim/fortran_ompi.c
else
libhrelay_la_SOURCES += src/shim/fortran_mpich.c
endif
libhrelay_la_SOURCES += src/shim/fortran_init.c
EXTRA_libhrelay_la_SOURCES = src/shim/fortran_ompi.c src/shim/fortran_mpich.c
libhrelay_la_LIBADD = libhrelay_settings.la libhrelay_exec.la libhrelay_plan.la $(LIBUNWIND_LIBS)
libhrelay_la_LDFLAGS = -avoid-version \
	-export-symbols-regex '^(MPI_|hrelay_|mpi_|ompi_)'
