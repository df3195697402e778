#!/usr/bin/env bash
# Smoke test of the emulated cluster (run by make check from the top build directory). It needs
# root and a build with the emulator (configure's --enable-emu, the default when UCX's headers
# are found); without either it is skipped (exit 77) with the reason. About 30 s:
#   - a non-root create is refused with a message naming root;
#   - a 4-host cluster at 100 Mbit/s, full duplex: status is healthy; the checked exchange
#     (tests/emu/exchange) prints the same checksum natively, under hrelay (run --hrelay, whose
#     report must count the calls as rescheduled) and through hrelay-run --mpiexec; the helper
#     is active in every rank (it blocks on UCX's event fd); one-way and two-way MPI transfers
#     take 0.9 to 1.5 times the link bound, and two-way is not slower than 1.4 x one-way;
#   - create again with the same name in half duplex (replaces the cluster): two-way takes
#     0.9 to 1.5 times its bound (twice one-way's) and at least 1.6 x one-way;
#   - destroy leaves no namespace and no state of the cluster.
set -u

PROG=tests/emu/smoke.sh
fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# skip REASON: ends the test as skipped (exit 77), saying why.
skip() {
    echo "SKIP: $PROG: $*"
    exit 77
}

if [ "${HRELAY_BUILT_EMU:-yes}" = no ]; then
    skip "configured without the emulated cluster (no UCX headers: install the Debian package" \
        "libucx-dev and run configure again; or --disable-emu was given)"
fi
if [ "$(id -u)" -ne 0 ]; then
    skip "needs root to build an emulated cluster (network namespaces, veths, a bridge, tc);" \
        "run 'make check' (or scripts/check) as root to include it"
fi

RATE=100000000
NAME=hrs$$
# shellcheck source=tests/emu/common.sh
. "${srcdir:-.}/tests/emu/common.sh"

# measure_rates DUPLEX: the pairwise MPI transfers; fails unless one-way and two-way take 0.9 to
# 1.5 times their bounds; sets t1 and t2, their seconds.
measure_rates() {
    local one two
    run "bw_$1" -- "$EXCHANGE" --bandwidth 3000000 --reps 3 --rate $RATE --duplex "$1"
    one=$(field one-way ratio "$TMP/bw_$1")
    two=$(field two-way ratio "$TMP/bw_$1")
    within "$one" 0.9 1.5 || fail "$1 duplex one-way at $one x the bound (expected 0.9..1.5)"
    within "$two" 0.9 1.5 || fail "$1 duplex two-way at $two x its bound (expected 0.9..1.5)"
    t1=$(field one-way seconds "$TMP/bw_$1")
    t2=$(field two-way seconds "$TMP/bw_$1")
}

echo "== non-root create is refused"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$EMU" --name "$NAME" create 4 100mbit 2>&1)
status=$?
[ $status -eq 1 ] || fail "non-root create: status $status (expected 1): $out"
echo "$out" | grep -q "needs root" || fail "non-root create: no 'needs root' message: $out"

echo "== full duplex: 4 hosts at 100 Mbit/s"
emu create 4 100mbit || fail "create failed"
emu status || fail "status of a new cluster failed"

run native -- "$EXCHANGE" --iters 4
grep -q '^exchange: 4 ranks, 4 iterations, .* checksum [0-9a-f]\{16\}$' "$TMP/native" ||
    fail "native exchange printed no checksum"
run hrelay --hrelay --env HRELAY_ALGO=direct --env "HRELAY_REPORT=$TMP/report.json" \
    -- "$EXCHANGE" --iters 4
cmp "$TMP/native" "$TMP/hrelay" || fail "the exchange under hrelay differs from the native one"
grep -q '"algorithms": {"direct": 4}' "$TMP/report.json" ||
    fail "hrelay's report does not count 4 direct calls: $(cat "$TMP/report.json")"

echo "+ hrelay-run --mpiexec $(dirname "$EMU")/... -n 4 exchange"
[ -x ./hrelay-run ] || fail "./hrelay-run missing"
mpiexec_wrapper=$(emu status | sed -n 's/^mpiexec: *//p')
[ -x "$mpiexec_wrapper" ] || fail "status names no mpiexec wrapper"
HRELAY_EMU_VERBOSE=1 timeout 120 ./hrelay-run --mpiexec "$mpiexec_wrapper" --algo direct -n 4 \
    "$EXCHANGE" --iters 4 >"$TMP/wrapped" 2>"$TMP/wrapped.err" ||
    fail "hrelay-run --mpiexec failed: $(cat "$TMP/wrapped.err")"
cat "$TMP/wrapped"
cmp "$TMP/native" "$TMP/wrapped" || fail "the exchange through hrelay-run differs from the native one"
n=$(grep -c 'hrelay-emu\[[0-9]*\]: worker .* blocks on event fd' "$TMP/wrapped.err")
[ "$n" -eq 4 ] || fail "the helper blocks on the event fd in $n of 4 ranks: $(cat "$TMP/wrapped.err")"

measure_rates full
within "$t2" 0 "$(awk -v a="$t1" 'BEGIN { print 1.4 * a }')" ||
    fail "full duplex two-way took $t2 s, more than 1.4 x one-way's $t1 s"

echo "== half duplex: the same name again (create replaces)"
emu create 4 100mbit --duplex half || fail "create --duplex half failed"
emu status | grep -q 'half duplex' || fail "status does not show half duplex"
measure_rates half
within "$t2" "$(awk -v a="$t1" 'BEGIN { print 1.6 * a }')" 1000 ||
    fail "half duplex two-way took $t2 s, less than 1.6 x one-way's $t1 s"

echo "== destroy"
emu destroy || fail "destroy failed"
left=$(ip netns list | awk '{print $1}' | grep -c "^$NAME-")
[ "$left" -eq 0 ] || fail "$left namespaces of $NAME left after destroy"
[ ! -e "/run/hrelay-emucluster/$NAME" ] || fail "state of $NAME left after destroy"
emu status >/dev/null 2>&1 && fail "status succeeds on a destroyed cluster"
echo "PASS"
exit 0
