#!/bin/bash
# Fortran (use mpi): MPI_ALLTOALLV and MPI_ALLTOALL are rescheduled by hrelay (the report shows
# both as "direct"), the results are right, and the report names the Fortran call sites
# (file:line of each CALL, found by unwinding through MPI's Fortran bindings).
. "${srcdir:-.}/tests/mpi/common.sh"
src=${srcdir:-.}/tests/mpi/fortran_alltoallv.f90
lines=$(grep -n -i '^ *call mpi_alltoall' "$src" | cut -d: -f1)
[ -n "$lines" ] || hr_fail "no MPI_ALLTOALL(V) call found in $src"
for n in 1 3 4; do
    report=$HR_TMP/report-$n.json
    hr_run "$n" HRELAY_ALGO=direct HRELAY_REPORT="$report" -- ./tests/mpi/fortran_alltoallv ||
        hr_fail "fortran_alltoallv on $n ranks"
    total=$(grep -o '"total": {.*' "$report")
    case $total in
        *'"algorithms": {"direct": 2}'*) ;;
        *) hr_fail "$report: expected 2 calls run by direct in total: $(cat "$report")" ;;
    esac
    for l in $lines; do # the line of the CALL or of its continuation lines
        grep -q -E "\"site\": \"fortran_alltoallv.f90:($l|$((l + 1))|$((l + 2))) " "$report" ||
            hr_fail "$report: no call site fortran_alltoallv.f90:$l: $(cat "$report")"
    done
done
