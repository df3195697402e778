#!/bin/bash
# hrelay-calibrate: --help and usage errors; a quick calibration on 2 and 3 ranks writes a file
# whose figures are positive and that hrelay reads back exactly (the report's config shows the
# file and its values); one rank is refused.
. "${srcdir:-.}/tests/mpi/common.sh"
cal=./hrelay-calibrate
field() { python3 "${srcdir:-.}/tests/mpi/report_field.py" "$@" || hr_fail "report: $*"; }

hr_run_plain 1 -- "$cal" --help >"$HR_TMP/help" || hr_fail "--help failed"
grep -q '^Usage: mpiexec -n RANKS hrelay-calibrate' "$HR_TMP/help" || hr_fail "no usage: $(cat "$HR_TMP/help")"
status=0
hr_run_plain 2 -- "$cal" --size 12 2>/dev/null || status=$?
[ "$status" = 2 ] || hr_fail "--size 12 exited with $status, expected 2"
status=0
hr_run_plain 1 -- "$cal" --output "$HR_TMP/one.conf" 2>"$HR_TMP/err" || status=$?
[ "$status" = 2 ] || hr_fail "one rank exited with $status, expected 2"
grep -q 'needs at least 2 ranks' "$HR_TMP/err" || hr_fail "one rank: $(cat "$HR_TMP/err")"

for n in 2 3; do
    conf=$HR_TMP/cal-$n.conf
    hr_run_plain "$n" -- "$cal" --quick --output "$conf" >"$HR_TMP/out" ||
        hr_fail "calibration on $n ranks: $(cat "$HR_TMP/out")"
    for k in alpha_s gap_s beta_s_per_byte duplex_percent step_s native_percent throttle \
        plan_s_per_unit; do
        grep -q "^$k = " "$conf" || hr_fail "$conf has no $k: $(cat "$conf")"
    done
    awk -F' = ' '/^(alpha_s|beta_s_per_byte|step_s|plan_s_per_unit) / && !($2 > 0) { exit 1 }' \
        "$conf" || hr_fail "a time in $conf is not positive: $(cat "$conf")"
    # hrelay reads it back: the report shows the file and the same values
    r=$HR_TMP/report.json
    hr_run "$n" HRELAY_CONFIG="$conf" HRELAY_REPORT="$r" -- ./tests/mpi/sites two 2 \
        >"$HR_TMP/out" || hr_fail "run with $conf: $(cat "$HR_TMP/out")"
    [ "$(field "$r" config calibration)" = "$conf" ] || hr_fail "calibration not reported"
    for k in alpha_s beta_s_per_byte step_s duplex_percent native_percent; do
        want=$(sed -n "s/^$k = //p" "$conf")
        got=$(field "$r" config "cost.$k")
        python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(abs(a - b) > 1e-6 * max(abs(a), 1e-30))" \
            "$want" "$got" || hr_fail "$k: file $want, report $got"
    done
done
