#!/bin/bash
# exec/ alone (no shim): random element-cutting plans, forwarding ones included, at every rank
# count (tests/mpi/test_exec).
. "${srcdir:-.}/tests/mpi/common.sh"
for n in $HR_RANKS; do
    hr_run_plain "$n" -- ./tests/mpi/test_exec --seed $((HRELAY_TEST_SEED + n)) --cases 60 ||
        hr_fail "test_exec on $n ranks"
done
