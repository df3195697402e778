#!/bin/bash
# The tool API of hrelay.h: per-communicator families and the family that ran
# (tests/mpi/control.c); then hrelay_last_run's variants: node-aggregate on 4 ranks in nodes of 2
# measured with messages and through the node's window (HRELAY_NODE_SHM=auto; as in nodes.sh: a
# calibration where plans look fast, the whole time as exploration budget, 2 measured calls each
# way) over 16 calls of one pattern; the report's "variants" must count those through the window.
. "${srcdir:-.}/tests/mpi/common.sh"
for n in 1 3 4; do
    hr_run "$n" HRELAY_ALGO=native -- ./tests/mpi/control || hr_fail "control on $n ranks"
done
printf 'native_percent = 1000\nstep_s = 1e-9\n' >"$HR_TMP/plans-win.cfg"
r=$HR_TMP/report.json
hr_run 4 HRELAY_ALGO=node-aggregate HRELAY_NODE_SIZE=2 HRELAY_NODE_SHM=auto \
    HRELAY_CONFIG="$HR_TMP/plans-win.cfg" HRELAY_TUNE=2 HRELAY_EXPLORE_BUDGET=100 \
    HRELAY_TUNE_MARGIN=10000 HRELAY_RECHECK=0 HRELAY_REPORT="$r" -- \
    ./tests/mpi/control --variants 16 >"$HR_TMP/out" ||
    hr_fail "control --variants on 4 ranks in nodes of 2: $(cat "$HR_TMP/out")"
# the report counts the variant's calls as control saw them (its "variants", of "algorithms")
shm=$(sed -n 's/^control: [0-9]* calls with messages, \([0-9]*\) through .*$/\1/p' "$HR_TMP/out")
field() { python3 "${srcdir:-.}/tests/mpi/report_field.py" "$@" || hr_fail "report: $*"; }
[ -n "$shm" ] && [ "$(field "$r" total "variants.node-aggregate/shared memory")" = "$shm" ] &&
    [ "$(field "$r" total algorithms.node-aggregate)" = 16 ] ||
    hr_fail "report: $shm calls through the node's window; $(grep -o '"total": .*' "$r")"
