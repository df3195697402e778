#!/bin/bash
# The demo's programs (examples/, scripts/demo) under hrelay: fft_transpose (uneven slab
# transposes, the same counts on every call) and samplesort (counts that change on every call)
# verify every point and key they exchange; each must print "verified" and exit 0 under auto,
# a named rank-level family and a node-level family (HRELAY_NODE_SIZE=2), on 1, 3, 4 and 5
# ranks, and the report must show the calls hrelay intercepted.
. "${srcdir:-.}/tests/mpi/common.sh"
r=$HR_TMP/report.json

# check NAME OUT: OUT (the program's output) says verified.
check() {
    grep -q "^$1: verified" "$2" || hr_fail "$1 did not verify: $(cat "$2")"
}

for n in 1 3 4 5; do
    for algo in auto direct node-direct; do
        rm -f "$r"
        hr_run "$n" HRELAY_ALGO=$algo HRELAY_NODE_SIZE=2 HRELAY_REPORT="$r" -- \
            ./examples/fft_transpose -g 13x11x5 -i 3 >"$HR_TMP/out" 2>&1 ||
            hr_fail "fft_transpose, $n ranks, $algo: $(cat "$HR_TMP/out")"
        check fft_transpose "$HR_TMP/out"
        # two MPI_Alltoallv per iteration, every one intercepted
        [ "$(python3 "${srcdir:-.}/tests/mpi/report_field.py" "$r" total calls)" = 6 ] ||
            hr_fail "fft_transpose, $n ranks, $algo: not 6 calls in $(cat "$r")"
        hr_run "$n" HRELAY_ALGO=$algo HRELAY_NODE_SIZE=2 -- \
            ./examples/samplesort -n 3000 -i 3 -z 1.3 >"$HR_TMP/out" 2>&1 ||
            hr_fail "samplesort, $n ranks, $algo: $(cat "$HR_TMP/out")"
        check samplesort "$HR_TMP/out"
    done
done
# a grid with fewer planes than ranks: some ranks hold nothing (zero counts)
hr_run 5 HRELAY_ALGO=auto -- ./examples/fft_transpose -g 3x2x4 -i 2 >"$HR_TMP/out" 2>&1 ||
    hr_fail "fft_transpose 3x2x4 on 5 ranks: $(cat "$HR_TMP/out")"
check fft_transpose "$HR_TMP/out"
# usage errors exit 2 with the usage on stderr
hr_run_plain 1 -- ./examples/fft_transpose -g 0x1x1 >"$HR_TMP/out" 2>&1 && hr_fail "-g 0x1x1 accepted"
grep -q "^Usage: fft_transpose" "$HR_TMP/out" || hr_fail "no usage for -g 0x1x1: $(cat "$HR_TMP/out")"
exit 0
