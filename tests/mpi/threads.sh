#!/bin/bash
# MPI_THREAD_MULTIPLE (tests/mpi/threads): 4 threads x 2 communicators per rank call
# MPI_Alltoallv(_c) concurrently, each call compared byte for byte with PMPI; plans are dumped
# (HRELAY_DUMP) and the report must count every call. direct at 2 and 3 ranks, forward (staging
# arenas) at 3.
. "${srcdir:-.}/tests/mpi/common.sh"
r=$HR_TMP/report.json
for run in "2 direct" "3 direct" "3 forward"; do
    set -- $run
    rm -rf "$r" "$HR_TMP/plans"
    hr_run "$1" HRELAY_ALGO="$2" HRELAY_REPORT="$r" HRELAY_DUMP="$HR_TMP/plans" -- \
        ./tests/mpi/threads --threads 4 --comms 2 --calls 10 --seed "$HRELAY_TEST_SEED" \
        --report "$r" || hr_fail "threads on $1 ranks, $2"
    ls "$HR_TMP"/plans/plan-*.json >/dev/null || hr_fail "no plan dumped ($2)"
    ! ls "$HR_TMP"/plans/*.tmp.* 2>/dev/null || hr_fail "temporary dump files left ($2)"
done
exit 0
