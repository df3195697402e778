#!/bin/bash
# The shim against PMPI at every rank count (and 16, the project's largest) with
# HRELAY_ALGO=direct; the report must count every call as "direct".
. "${srcdir:-.}/tests/mpi/common.sh"
for n in $HR_RANKS 16; do
    cases=48
    [ "$n" -ge 5 ] && cases=30 # 5..8 ranks share 2 cores here: keep the run short
    [ "$n" -ge 16 ] && cases=8 # oversubscribed: correctness only, a few cases
    report=$HR_TMP/report-$n.json
    hr_run "$n" HRELAY_ALGO=direct HRELAY_REPORT="$report" -- ./tests/mpi/compare --seed $((HRELAY_TEST_SEED + n)) \
        --cases "$cases" --report "$report" --expect direct || hr_fail "compare on $n ranks"
done
