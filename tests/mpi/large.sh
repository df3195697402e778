#!/bin/bash
# Large counts on 2 ranks (tests/mpi/large): MPI_Alltoallv_c with displacements beyond 2^31 and
# 2^32 bytes (compared with PMPI byte for byte), and one message of 2 GiB + 24 MiB (PMPI and
# hrelay both checked against the sender's pattern; needs about 2.1 GiB of memory per rank).
# The report must show both calls executed by direct (hrelay did not step aside).
. "${srcdir:-.}/tests/mpi/common.sh"
r=$HR_TMP/report.json
for c in displ big; do
    hr_run 2 HRELAY_ALGO=direct HRELAY_REPORT="$r" -- ./tests/mpi/large --case "$c" ||
        hr_fail "large --case $c"
    hr_expect_algorithms "$r" '"algorithms": {"direct": 1}'
done
exit 0
