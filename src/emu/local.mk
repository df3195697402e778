# emu/: libhrelay-emu.so, the helper hrelay-emucluster preloads into the ranks it launches (idle
# ranks block on UCX's event fd; MPI_Finalize cannot hang in MPICH's PMI barrier; each emulated
# host is its own machine to UCX's shared memory). It interposes libucp's dynamic symbols and
# libucs's ucs_get_system_id, reaches the real ones with dlsym(RTLD_NEXT), and links neither
# MPI nor UCX (-Wl,--as-needed drops the libmpich the mpicc wrapper adds). Installed in
# $(pkglibdir). Built when configure finds UCX's headers (--enable-emu, the default when found).
if HRELAY_EMU
pkglib_LTLIBRARIES += src/emu/libhrelay-emu.la
endif
src_emu_libhrelay_emu_la_SOURCES = \
	src/emu/emu.h \
	src/emu/settings.c \
	src/emu/real.c \
	src/emu/worker.c \
	src/emu/hooks.c \
	src/emu/host.c
src_emu_libhrelay_emu_la_LIBADD = -lpthread -ldl
src_emu_libhrelay_emu_la_LDFLAGS = -module -avoid-version -Wl,--as-needed \
	-export-symbols-regex '^(ucp_|ucs_get_system_id$$)'
