#!/bin/bash
# The shim against PMPI at every rank count with HRELAY_ALGO=direct; the report must count every
# call as "direct".
. "${srcdir:-.}/tests/mpi/common.sh"
for n in $HR_RANKS; do
    cases=48
    [ "$n" -ge 5 ] && cases=30 # 5..8 ranks share 2 cores here: keep the run short
    report=$HR_TMP/report-$n.json
    hr_run "$n" HRELAY_ALGO=direct HRELAY_REPORT="$report" -- ./tests/mpi/compare --seed $((HRELAY_TEST_SEED + n)) \
        --cases "$cases" --report "$report" --expect direct || hr_fail "compare on $n ranks"
done
