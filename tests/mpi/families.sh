#!/bin/bash
# Every schedule family against PMPI (tests/mpi/compare: byte for byte with guard bytes, every
# datatype pair, MPI_Alltoall(v)(_c) and MPI_IN_PLACE, world, split and reordered
# communicators, erroneous calls), and the report names the family that ran. Each family runs
# at odd and even rank counts (compare.sh covers direct at every count). The forwarding
# families also run with element-cutting units: transpose with 3- and 5-byte grains and
# forward with 7- and 100-byte packets cut int, double, struct and vector elements between
# pieces that reach their target from different ranks. Every family also runs under
# HRELAY_DUPLEX=half (the report's config must say so), and the forwarding families at 16 ranks
# (oversubscribed on small machines: a correctness test, kept to a few cases).
. "${srcdir:-.}/tests/mpi/common.sh"

# family_run N CASES EXPECT [VAR=VALUE ...]: compare on N ranks under the given settings; the
# report must show EXPECT (compare --expect).
family_run() {
    local n=$1 cases=$2 expect=$3
    shift 3
    local report=$HR_TMP/report.json
    rm -f "$report"
    hr_run "$n" HRELAY_REPORT="$report" "$@" -- ./tests/mpi/compare \
        --seed $((HRELAY_TEST_SEED + n)) --cases "$cases" --report "$report" \
        --expect "$expect" || hr_fail "compare on $n ranks, $*"
}

# whole-message families (the executor path direct uses): one launch each
family_run 5 24 stepwise HRELAY_ALGO=stepwise
family_run 4 30 greedy HRELAY_ALGO=greedy
# walker-otto covers cyclic redistributions only (here the uniform MPI_Alltoall cases); the
# other calls run natively and are counted so
family_run 8 16 walker-otto,native HRELAY_ALGO=walker-otto

# forwarding families: default units, element-cutting units, windows 1 and 2
family_run 3 30 transpose HRELAY_ALGO=transpose
family_run 8 20 transpose HRELAY_ALGO=transpose
family_run 4 30 transpose HRELAY_ALGO=transpose HRELAY_GRAIN=3 HRELAY_WINDOW=1
family_run 7 20 transpose HRELAY_ALGO=transpose HRELAY_GRAIN=5 HRELAY_WINDOW=2

family_run 2 30 forward HRELAY_ALGO=forward
family_run 5 24 forward HRELAY_ALGO=forward
family_run 8 20 forward HRELAY_ALGO=forward
family_run 3 30 forward HRELAY_ALGO=forward HRELAY_PACKET=7 HRELAY_WINDOW=1
family_run 6 20 forward HRELAY_ALGO=forward HRELAY_PACKET=100 HRELAY_WINDOW=2

# rank-level plans in synchronised steps (HRELAY_RANK_SYNC=1: a barrier between every two
# steps): every family byte for byte alike, and the verbose lines say its plans ran so
sync_run() {
    family_run "$@" HRELAY_RANK_SYNC=1 HRELAY_VERBOSE=2 2>"$HR_TMP/err"
    grep -q "hrelay.*: [0-9]* synchronised steps" "$HR_TMP/err" ||
        hr_fail "HRELAY_RANK_SYNC=1, $*: no plan ran in synchronised steps"
    grep -q '"rank_sync": 1' "$HR_TMP/report.json" ||
        hr_fail "HRELAY_RANK_SYNC=1 not in the report's config"
}
sync_run 5 16 direct HRELAY_ALGO=direct
sync_run 4 16 stepwise HRELAY_ALGO=stepwise
sync_run 3 16 greedy HRELAY_ALGO=greedy
sync_run 7 12 transpose HRELAY_ALGO=transpose HRELAY_GRAIN=5
sync_run 6 12 forward HRELAY_ALGO=forward HRELAY_PACKET=100

# half duplex: each family's plans in the half-duplex model (the report's config and every
# plan the run dumps say so)
half_run() {
    local d=$HR_TMP/half-plans
    rm -rf "$d"
    family_run "$@" HRELAY_DUPLEX=half HRELAY_DUMP="$d"
    grep -q '"duplex": "half"' "$HR_TMP/report.json" ||
        hr_fail "HRELAY_DUPLEX=half not in the report: $(cat "$HR_TMP/report.json")"
    ls "$d"/plan-*.json >/dev/null 2>&1 || hr_fail "no plan dumped under HRELAY_DUPLEX=half, $*"
    local f
    for f in "$d"/plan-*.json; do
        grep -q '"duplex": "half"' "$f" || hr_fail "$f is not a half-duplex plan ($*)"
    done
}
half_run 5 16 direct HRELAY_ALGO=direct
half_run 4 16 stepwise HRELAY_ALGO=stepwise
half_run 3 16 greedy HRELAY_ALGO=greedy
half_run 7 12 transpose HRELAY_ALGO=transpose HRELAY_GRAIN=5
half_run 8 12 walker-otto,native HRELAY_ALGO=walker-otto
half_run 4 16 forward HRELAY_ALGO=forward HRELAY_PACKET=100

# 16 ranks
family_run 16 6 forward HRELAY_ALGO=forward HRELAY_PACKET=100
family_run 16 6 transpose HRELAY_ALGO=transpose HRELAY_GRAIN=3
exit 0
