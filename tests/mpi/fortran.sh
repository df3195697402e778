#!/bin/bash
# Fortran through every binding (mpif.h, use mpi, use mpi_f08): MPI_ALLTOALLV, MPI_ALLTOALL and
# MPI_ALLTOALL with MPI_IN_PLACE are rescheduled by hrelay (the report shows all three as
# "direct") and the results are right.
. "${srcdir:-.}/tests/mpi/common.sh"
for prog in fortran_mpifh fortran_usempi fortran_f08; do
    for n in 1 3 4; do
        report=$HR_TMP/report-$n.json
        rm -f "$report"
        hr_run "$n" HRELAY_REPORT="$report" -- ./tests/mpi/$prog || hr_fail "$prog on $n ranks"
        hr_expect_algorithms "$report" '"algorithms": {"direct": 3}'
    done
done
