#!/bin/bash
# The tool API of hrelay.h: per-communicator families and the family that ran
# (tests/mpi/control.c); then hrelay_last_run's variants: node-aggregate on 4 ranks in nodes of 2
# measured with messages and through the node's window (HRELAY_NODE_SHM=auto; as in nodes.sh: a
# calibration where plans look fast, the whole time as exploration budget, 2 measured calls each
# way) over 16 calls of one pattern.
. "${srcdir:-.}/tests/mpi/common.sh"
for n in 1 3 4; do
    hr_run "$n" HRELAY_ALGO=native -- ./tests/mpi/control || hr_fail "control on $n ranks"
done
printf 'native_percent = 1000\nstep_s = 1e-9\n' >"$HR_TMP/plans-win.cfg"
hr_run 4 HRELAY_ALGO=node-aggregate HRELAY_NODE_SIZE=2 HRELAY_NODE_SHM=auto \
    HRELAY_CONFIG="$HR_TMP/plans-win.cfg" HRELAY_TUNE=2 HRELAY_EXPLORE_BUDGET=100 \
    HRELAY_TUNE_MARGIN=10000 HRELAY_RECHECK=0 -- ./tests/mpi/control --variants 16 ||
    hr_fail "control --variants on 4 ranks in nodes of 2"
