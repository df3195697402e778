# shim/: the preloaded library libhrelay.so. Only the MPI_* entry points and hrelay_version are
# exported (everything else is built with -fvisibility=hidden and filtered by the regex).
lib_LTLIBRARIES += libhrelay.la
libhrelay_la_SOURCES = \
	src/shim/shim.h \
	src/shim/init.c \
	src/shim/control.c \
	src/shim/config.c \
	src/shim/comm_record.c \
	src/shim/alltoallv.c \
	src/shim/agree.c \
	src/shim/cache.c \
	src/shim/clock.c \
	src/shim/decide.c \
	src/shim/exchange.c \
	src/shim/site.c \
	src/shim/site_report.c \
	src/shim/validate.c \
	src/shim/stats.c \
	src/shim/dump.c \
	src/shim/report.c
# Fortran entry points the MPI library's bindings would otherwise take past hrelay: Open MPI's
# call PMPI_ directly (all of them), MPICH's mpi_f08 calls PMPI_Init / PMPI_Finalize.
if HRELAY_OPENMPI
libhrelay_la_SOURCES += src/shim/fortran_ompi.c
else
libhrelay_la_SOURCES += src/shim/fortran_mpich.c
endif
libhrelay_la_SOURCES += src/shim/fortran_init.c
EXTRA_libhrelay_la_SOURCES = src/shim/fortran_ompi.c src/shim/fortran_mpich.c
libhrelay_la_LIBADD = libhrelay_exec.la libhrelay_plan.la $(LIBUNWIND_LIBS)
libhrelay_la_LDFLAGS = -avoid-version \
	-export-symbols-regex '^(MPI_|hrelay_|mpi_|ompi_)'
