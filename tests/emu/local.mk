# tests/emu: the emulated cluster (scripts/hrelay-emucluster with src/emu's libhrelay-emu.so).
#   smoke.sh    needs root and the emulator (--enable-emu; skipped, saying why, without
#               either): a 4-host cluster in full and half duplex; the same exchange natively,
#               under hrelay (run --hrelay) and through hrelay-run --mpiexec gives the same
#               checksum; the helper is active in every rank; one-way and two-way MPI transfers
#               respect the link rate and the duplex mode; create replaces, destroy leaves
#               nothing; a non-root create is refused.
#   exchange.c  the MPI program of the test (and of the soak and calibration runs in
#               docs/emucluster.md): checked MPI_Alltoallv + MPI_Sendrecv + MPI_Barrier,
#               --bandwidth (pairwise one-way and two-way rates), --idle (CPU of waiting ranks)
TESTS += tests/emu/smoke.sh
EXTRA_DIST += tests/emu/smoke.sh
if HRELAY_EMU
check_PROGRAMS += tests/emu/exchange
endif
tests_emu_exchange_SOURCES = tests/emu/exchange.c
