#!/bin/bash
# HRELAY_ALGO=auto (the default) against PMPI: whatever the cost model and the measurements
# choose, every result is byte-identical to MPI's and every call is counted once. Also with
# measuring off and with a calibration under which plans win, so that planned runs are
# exercised whatever this machine measures.
. "${srcdir:-.}/tests/mpi/common.sh"
cat >"$HR_TMP/plans-win.cfg" <<'CFG'
native_percent = 1000
step_s = 1e-9
CFG
for n in 2 3 5 8; do
    report=$HR_TMP/report-$n.json
    hr_run "$n" HRELAY_REPORT="$report" -- ./tests/mpi/compare --seed $((HRELAY_TEST_SEED + n)) \
        --cases 24 --report "$report" --expect any || hr_fail "auto on $n ranks"
done
for n in 3 4; do
    report=$HR_TMP/report-cfg-$n.json
    hr_run "$n" HRELAY_CONFIG="$HR_TMP/plans-win.cfg" HRELAY_TUNE=0 HRELAY_REPORT="$report" -- \
        ./tests/mpi/compare --seed $((HRELAY_TEST_SEED + 10 + n)) --cases 24 \
        --report "$report" --expect any || hr_fail "auto, plans modeled faster, on $n ranks"
    grep -q '"total": {.*"algorithms": {[^}]*"\(direct\|stepwise\|greedy\|transpose\|forward\|walker-otto\)"' \
        "$report" || hr_fail "no plan ran under plans-win.cfg: $(cat "$report")"
done

# exploration measures one family per distinct schedule: at P = 2 direct, stepwise and greedy
# build the same plan, so only the first of them (direct) is a candidate, and the other plan
# that is modeled close (transpose) is measured beside it
hr_run 2 HRELAY_CONFIG="$HR_TMP/plans-win.cfg" HRELAY_VERBOSE=1 -- ./tests/mpi/sites quiet 20 \
    >"$HR_TMP/out" 2>"$HR_TMP/err" || hr_fail "sites under plans-win.cfg: $(cat "$HR_TMP/out")"
line=$(grep '^hrelay: new pattern on 2 ranks (262144 bytes' "$HR_TMP/err") ||
    hr_fail "no decision line for the 256 KiB pattern: $(cat "$HR_TMP/err")"
case $line in
*direct*) ;;
*) hr_fail "direct is not a candidate: $line" ;;
esac
case $line in
*stepwise* | *greedy*) hr_fail "a family with direct's schedule is a candidate too: $line" ;;
esac
exit 0
