#!/bin/bash
# hrelay out of memory: libfail_alloc.so (preloaded ahead of libhrelay.so) makes one in
# HRELAY_TEST_FAIL_EVERY of libhrelay.so's own allocations fail, from an offset that differs
# per rank and per HRELAY_TEST_FAIL_SEED, so that ranks run out at different points (start-up,
# a record, a pattern cache, a plan, staging, statistics, the report's merge). Whatever fails,
# every result must equal PMPI's byte for byte (compare: fixed patterns, datatypes, in place,
# split and reordered communicators; comms: fresh duplicates under auto, counts changing on
# every call), no rank may hang or crash (a rank deciding otherwise than its peers would leave
# their collectives unmatched: the timeout), and allocations must really have failed.
. "${srcdir:-.}/tests/mpi/common.sh"
if [ -n "${HRELAY_ASAN_RT:-}" ]; then
    echo "oom.sh: libfail_alloc.so replaces malloc, which this sanitizer build's ASan owns" >&2
    exit 77
fi
out=$HR_TMP/out
# failed: the allocations libfail_alloc.so made fail, summed over ranks
failed() { awk '/^fail_alloc: rank/ { n += $4 } END { print n + 0 }' "$out"; }
total=0
for n in 2 3 4; do
    for every in 2 3 5 9; do
        for algo in auto direct; do
            seed=$((n * 10 + every))
            hr_run_plain "$n" LD_PRELOAD="$HRELAY_FAIL_ALLOC:$HRELAY_LIB" HRELAY_ALGO=$algo \
                HRELAY_TEST_FAIL_EVERY=$every HRELAY_TEST_FAIL_SEED=$seed -- \
                ./tests/mpi/compare --seed "$seed" --cases 8 >"$out" 2>&1 ||
                hr_fail "compare out of memory, $n ranks, every $every, $algo: $(cat "$out")"
            grep -q ': ok$' "$out" || hr_fail "compare out of memory, $n ranks, every $every, $algo: $(cat "$out")"
            total=$((total + $(failed)))
        done
        hr_run_plain "$n" LD_PRELOAD="$HRELAY_FAIL_ALLOC:$HRELAY_LIB" \
            HRELAY_TEST_FAIL_EVERY=$every HRELAY_TEST_FAIL_SEED=$every -- \
            ./tests/mpi/comms fresh 6 12 262144 1 0 1 >"$out" 2>&1 ||
            hr_fail "comms out of memory, $n ranks, every $every: $(cat "$out")"
        grep -q '^fresh 6 calls 12 bad 0$' "$out" ||
            hr_fail "comms out of memory, $n ranks, every $every: $(cat "$out")"
        total=$((total + $(failed)))
    done
done
echo "oom: $total allocations of libhrelay.so failed over all runs" >&2
[ "$total" -ge 100 ] || hr_fail "only $total allocations failed: the fault injection did not reach hrelay"
exit 0
