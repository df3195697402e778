#!/bin/bash
# The tool API of hrelay.h: per-communicator families and the family that ran (tests/mpi/control.c).
. "${srcdir:-.}/tests/mpi/common.sh"
for n in 1 3 4; do
    hr_run "$n" HRELAY_ALGO=native -- ./tests/mpi/control || hr_fail "control on $n ranks"
done
