# tests/emu: the emulated cluster (scripts/hrelay-emucluster with src/emu's libhrelay-emu.so).
#   smoke.sh    needs root (it fails, never skips, without): a 4-host cluster in full and half
#               duplex; the same exchange natively, under hrelay (run --hrelay) and through
#               hrelay-run --mpiexec gives the same checksum; the helper is active in every
#               rank; one-way and two-way MPI transfers respect the link rate and the duplex
#               mode; create replaces, destroy leaves nothing; a non-root create is refused.
#   cli.sh      no root needed: every command's --help, --version, usage errors, the refusal of
#               every root command as another user, and the pieces' rate and name helpers
#   exchange.c  the MPI program of the test (and of the soak and calibration runs in
#               docs/emucluster.md): checked MPI_Alltoallv + MPI_Sendrecv + MPI_Barrier,
#               --bandwidth (pairwise one-way and two-way rates), --idle (CPU of waiting ranks)
TESTS += tests/emu/cli.sh tests/emu/smoke.sh
EXTRA_DIST += tests/emu/cli.sh tests/emu/smoke.sh
check_PROGRAMS += tests/emu/exchange
tests_emu_exchange_SOURCES = tests/emu/exchange.c
