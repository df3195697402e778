# tests/emu: the emulated cluster (scripts/hrelay-emucluster with src/emu's libhrelay-emu.so).
#   smoke.sh    needs root and the emulator (--enable-emu; skipped, saying why, without
#               either): a 4-host cluster in full and half duplex; the same exchange natively,
#               under hrelay (run --hrelay) and through hrelay-run --mpiexec gives the same
#               checksum; the helper is active in every rank; one-way and two-way MPI transfers
#               respect the link rate and the duplex mode; create replaces, destroy leaves
#               nothing; a non-root create is refused.
#   placement.sh needs root and the emulator (skipped, saying why, without): 2 hosts x 2 ranks:
#               MPI_Comm_split_type sees each host as a node (run -n 4 and hrelay-run
#               --mpiexec), the same checksum natively, under hrelay and through hrelay-run;
#               off-host traffic shares the host's NIC, on-host traffic goes through shared
#               memory, much faster than the rate; every node-level family byte-identical to
#               PMPI on 2 x 2 and 3 + 2 ranks with the hosts as nodes (tests/mpi/compare).
#   common.sh   what smoke.sh and placement.sh share (the cluster, a temporary directory, run)
#   cli.sh      no root needed: every command's --help, --version, usage errors, the refusal of
#               every root command as another user, and the pieces' rate and name helpers
#   exchange.c  the MPI program of the test (and of the soak and calibration runs in
#               docs/emucluster.md): checked MPI_Alltoallv + MPI_Sendrecv + MPI_Barrier,
#               --bandwidth (pairwise one-way and two-way rates against the busiest NIC's time),
#               --alltoall (timed MPI_Alltoall, its NIC bound and CPU use), --idle (CPU of
#               waiting ranks), --topology (the node of every rank)
TESTS += tests/emu/cli.sh tests/emu/smoke.sh tests/emu/placement.sh
EXTRA_DIST += tests/emu/cli.sh tests/emu/smoke.sh tests/emu/placement.sh tests/emu/common.sh
if HRELAY_EMU
check_PROGRAMS += tests/emu/exchange
endif
tests_emu_exchange_SOURCES = tests/emu/exchange.c
