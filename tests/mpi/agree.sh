#!/bin/bash
# The few words of hrelay's small agreements (shim_agree_few: a record's creation, the check
# of a tiny call after its run) against MPI_Allgather of the ranks' words, at every rank
# count (tests/mpi/agree, without the shim).
. "${srcdir:-.}/tests/mpi/common.sh"
for n in $HR_RANKS; do
    # fewer cases where the ranks outnumber the cores (each case is two collectives)
    cases=$((n > 4 ? 60 : 300))
    hr_run_plain "$n" -- ./tests/mpi/agree --seed $((HRELAY_TEST_SEED + n)) --cases $cases ||
        hr_fail "shim_agree_few on $n ranks"
done
