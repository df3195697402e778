#!/bin/bash
# Fortran through every binding (mpif.h, use mpi, use mpi_f08): MPI_ALLTOALLV, MPI_ALLTOALL and
# MPI_ALLTOALL with MPI_IN_PLACE are rescheduled by hrelay (the report's total shows all three
# as "direct"), the results are right, and the report names the Fortran call sites (file:line
# of each CALL, found by unwinding through MPI's Fortran bindings). Skipped (exit 77, saying
# why) in a build configured without an MPI Fortran compiler.
if [ "${HRELAY_BUILT_FORTRAN:-yes}" = no ]; then
    echo "SKIP: tests/mpi/fortran.sh: configured without the Fortran tests (no MPI Fortran" \
        "compiler: install the Debian package gfortran or set MPIFC, and run configure again;" \
        "or --disable-fortran was given)"
    exit 77
fi
. "${srcdir:-.}/tests/mpi/common.sh"
src=${srcdir:-.}/tests/mpi/fortran_alltoallv.f90
lines=$(grep -n -i '^ *call mpi_alltoall' "$src" | cut -d: -f1)
[ -n "$lines" ] || hr_fail "no MPI_ALLTOALL(V) call found in $src"
for prog in fortran_mpifh fortran_usempi fortran_f08; do
    for n in 1 3 4; do
        report=$HR_TMP/report-$n.json
        rm -f "$report"
        hr_run "$n" HRELAY_ALGO=direct HRELAY_REPORT="$report" -- ./tests/mpi/$prog ||
            hr_fail "$prog on $n ranks"
        total=$(grep -o '"total": {.*' "$report")
        case $total in
            *'"algorithms": {"direct": 3}'*) ;;
            *) hr_fail "$prog: expected 3 calls run by direct in total: $(cat "$report")" ;;
        esac
        for l in $lines; do # the line of the CALL or of its continuation lines
            grep -q -E "\"site\": \"fortran_alltoallv.f90:($l|$((l + 1))|$((l + 2))) " "$report" ||
                hr_fail "$prog: no call site fortran_alltoallv.f90:$l: $(cat "$report")"
        done
    done
done
