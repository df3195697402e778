#!/bin/bash
# Fortran (use mpi): MPI_ALLTOALLV and MPI_ALLTOALL are rescheduled by hrelay (the report shows
# both as "direct") and the results are right.
. "${srcdir:-.}/tests/mpi/common.sh"
for n in 1 3 4; do
    report=$HR_TMP/report-$n.json
    hr_run "$n" HRELAY_REPORT="$report" -- ./tests/mpi/fortran_alltoallv ||
        hr_fail "fortran_alltoallv on $n ranks"
    hr_expect_algorithms "$report" '"algorithms": {"direct": 2}'
done
