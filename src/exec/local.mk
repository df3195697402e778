# exec/: runs a plan over MPI point-to-point (datatypes, window, forwarding through staging). A
# convenience library linked into libhrelay.so and into the exec test (tests/mpi/test_exec),
# which drives it without the shim.
noinst_LTLIBRARIES += libhrelay_exec.la
libhrelay_exec_la_SOURCES = \
	src/exec/exec.h src/exec/mpi_compat.h \
	src/exec/view.h \
	src/exec/wire.h \
	src/exec/datatype.c \
	src/exec/view.c \
	src/exec/held.c \
	src/exec/cut.c \
	src/exec/stash.c \
	src/exec/wire.c \
	src/exec/post.c \
	src/exec/run.c \
	src/exec/shm.c \
	src/exec/node_window.h src/exec/node_window.c \
	src/exec/copy.c
