#!/bin/bash
# The benchmark must not rot (a few seconds): bench/alltoallv_bench on 2 ranks, every pattern,
# two tiny sizes, two repetitions, then the pattern that needs 3 ranks on 3. Checks that it
# exits 0 (every candidate's result equals PMPI_Alltoallv's), that the CSV has one row per
# pattern, size and candidate with a status of ok or n/a and a median and a bound where ok, that
# the walker-otto pattern ran the walker-otto family and auto ran something, that the JSON
# parses and lists the skipped pattern, and that a corrupted result (--inject-error) is caught
# (exit 1, MISMATCH). Timings on these sizes mean nothing; see scripts/bench.
# shellcheck source=tests/mpi/common.sh
. "${srcdir:-.}/tests/mpi/common.sh"
bench=./bench/alltoallv_bench
csv=$HR_TMP/smoke.csv
json=$HR_TMP/smoke.json
ncand=9 # pmpi native direct stepwise greedy walker-otto transpose forward auto

# run_bench RANKS OUTPUT ARGS...: the benchmark under hrelay; its output goes to OUTPUT.
run_bench() {
    local n=$1 output=$2
    shift 2
    hr_run "$n" -- "$bench" --rate 1G --quiet "$@" >"$output" 2>&1
    local rc=$?
    cat "$output"
    return $rc
}

# check_rows CSV RANKS PATTERNS SIZES: one ok or n/a row per pattern, size and candidate.
check_rows() {
    local file=$1 ranks=$2 npatterns=$3 nsizes=$4
    local rows=$(($(wc -l <"$file") - 1))
    [ "$rows" -eq $((npatterns * nsizes * ncand)) ] ||
        hr_fail "$file: $rows rows, expected $npatterns patterns x $nsizes sizes x $ncand"
    local bad
    bad=$(awk -F, -v p="$ranks" 'NR > 1 && (($6 != "ok" && $6 != "n/a") || $2 != p)' "$file")
    [ -z "$bad" ] || hr_fail "rows with another status: $bad"
    bad=$(awk -F, 'NR > 1 && $6 == "ok" && ($8 == "" || $12 == "" || $16 == "")' "$file")
    [ -z "$bad" ] || hr_fail "ok rows without a median, a bound or a CPU use: $bad"
}

patterns=$("$bench" --help | awk '/--patterns/ {on = 1; next} on && /^  --/ {exit} on {print $1}')
npatterns=$(echo "$patterns" | wc -w)
[ "$npatterns" -ge 11 ] || hr_fail "--help lists $npatterns patterns"

run_bench 2 "$HR_TMP/out2" --sizes 1K,8K --reps 2 --warmup 2 --csv "$csv" --json "$json" ||
    hr_fail "alltoallv_bench failed on 2 ranks"
check_rows "$csv" 2 $((npatterns - 1)) 2
for pattern in $patterns; do
    [ "$pattern" = three-cycles ] && continue
    grep -q "^$pattern,2,1024," "$csv" || hr_fail "no row for $pattern"
done
grep -q '^walker-otto,2,8192,walker-otto,walker-otto,ok,2,' "$csv" ||
    hr_fail "the walker-otto family did not run the walker-otto pattern"
grep -q '^incast,2,8192,walker-otto,native,n/a,' "$csv" ||
    hr_fail "the walker-otto family on incast is not reported as n/a (ran native)"
grep -q '^uniform,2,8192,native,native,ok,' "$csv" || hr_fail "native did not run native"
grep -q '^uniform,2,8192,auto,[a-z+-]*,ok,' "$csv" || hr_fail "auto did not run"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["rows"]) == int(sys.argv[2]), "rows"
assert [s["pattern"] for s in d["skipped"]] == ["three-cycles"] * 2, d["skipped"]
assert d["summary"]["mismatches"] == 0 and d["summary"]["cpu_use"] > 0, d["summary"]
' "$json" $(((npatterns - 1) * 2 * ncand)) || hr_fail "$json: wrong content"
grep -q '^# CPU use of the run: ' "$HR_TMP/out2" || hr_fail "no CPU use printed"

run_bench 3 "$HR_TMP/out3" --patterns three-cycles --sizes 1K --reps 1 --csv "$csv" ||
    hr_fail "alltoallv_bench failed on 3 ranks"
check_rows "$csv" 3 1 1

run_bench 2 "$HR_TMP/inject" --patterns uniform --sizes 1K --reps 1 --inject-error &&
    hr_fail "--inject-error was not detected"
grep -q 'MISMATCH' "$HR_TMP/inject" || hr_fail "no MISMATCH message for the injected error"
grep -q 'RESULTS DIFFERED' "$HR_TMP/inject" || hr_fail "no summary of the mismatch"
echo "smoke: ok"
