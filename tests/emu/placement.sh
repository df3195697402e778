#!/usr/bin/env bash
# Several ranks per emulated host (hrelay-emucluster run -n P with P > N), on 2 hosts at
# 50 Mbit/s, full duplex (run by make check from the top build directory; needs root and exits
# 77, skipped, without it). About 20 s:
#   - MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) sees 2 nodes of 2 consecutive ranks, through
#     run -n 4 and through hrelay-run --mpiexec ... -n 4; 5 ranks are placed 3 + 2;
#   - the checked exchange prints the same checksum natively, under hrelay and through
#     hrelay-run;
#   - every node-level family (HRELAY_NODE_SIZE=auto: the hosts) is byte-identical to PMPI on
#     2 x 2 and 3 + 2 ranks (tests/mpi/compare, interleaved communicator included), and the
#     report gives the world 2 nodes of the right sizes; node-direct exchanges its metadata at
#     node level;
#   - off-host: the two ranks of host 0 sending to the two of host 1 at once share host 0's NIC:
#     one-way and two-way take 0.9 to 1.5 times the time the NIC needs for both flows;
#   - on-host: pairs within a host move data at 10 times the rate or more, and host 0's
#     loopback and NIC carry less than a tenth of it (shared memory carries it).
set -u

PROG=tests/emu/placement.sh
fail() {
    echo "FAIL: $*" >&2
    exit 1
}

if [ "${HRELAY_BUILT_EMU:-yes}" = no ]; then
    echo "SKIP: $PROG: configured without the emulated cluster (no UCX headers, or --disable-emu)"
    exit 77
fi
[ "$(id -u)" = 0 ] || { echo "SKIP: $PROG needs root (it builds an emulated cluster)"; exit 77; }

[ -x ./hrelay-run ] || fail "./hrelay-run missing"
RATE=50000000
NAME=hrp$$
# shellcheck source=tests/emu/common.sh
. "${srcdir:-.}/tests/emu/common.sh"

# sent_bytes: the bytes host 0's loopback and NIC have sent so far.
sent_bytes() {
    emu exec 0 cat /sys/class/net/lo/statistics/tx_bytes /sys/class/net/eth0/statistics/tx_bytes |
        awk '{ s += $1 } END { print s }'
}

echo "== 2 hosts at 50 Mbit/s, 2 ranks each"
emu create 2 50mbit || fail "create failed"

run topo -n 4 -- "$EXCHANGE" --topology
grep -qx 'topology: ranks=4 nodes=2 node_of_rank=0,0,1,1' "$TMP/topo" ||
    fail "4 ranks on 2 hosts are not 2 nodes of 2 consecutive ranks"
run uneven -n 5 -- "$EXCHANGE" --topology
grep -qx 'topology: ranks=5 nodes=2 node_of_rank=0,0,0,1,1' "$TMP/uneven" ||
    fail "5 ranks on 2 hosts are not placed 3 + 2"
mpiexec_wrapper=$(emu status | sed -n 's/^mpiexec: *//p')
[ -x "$mpiexec_wrapper" ] || fail "status names no mpiexec wrapper"
echo "+ hrelay-run --mpiexec $mpiexec_wrapper -n 4 exchange --topology"
timeout 120 ./hrelay-run --mpiexec "$mpiexec_wrapper" -n 4 "$EXCHANGE" --topology \
    >"$TMP/wrapped_topo" 2>&1 || fail "hrelay-run --mpiexec failed: $(cat "$TMP/wrapped_topo")"
grep -qx 'topology: ranks=4 nodes=2 node_of_rank=0,0,1,1' "$TMP/wrapped_topo" ||
    fail "hrelay-run --mpiexec -n 4 does not place 2 ranks per host: $(cat "$TMP/wrapped_topo")"

run native -n 4 -- "$EXCHANGE" --iters 4
grep -q '^exchange: 4 ranks, 4 iterations, .* checksum [0-9a-f]\{16\}$' "$TMP/native" ||
    fail "native exchange printed no checksum"
run hrelay -n 4 --hrelay --env HRELAY_ALGO=direct -- "$EXCHANGE" --iters 4
cmp "$TMP/native" "$TMP/hrelay" || fail "the exchange under hrelay differs from the native one"
echo "+ hrelay-run --mpiexec $mpiexec_wrapper --algo direct -n 4 exchange"
timeout 120 ./hrelay-run --mpiexec "$mpiexec_wrapper" --algo direct -n 4 "$EXCHANGE" --iters 4 \
    >"$TMP/wrapped" 2>"$TMP/wrapped.err" ||
    fail "hrelay-run --mpiexec failed: $(cat "$TMP/wrapped.err")"
cmp "$TMP/native" "$TMP/wrapped" ||
    fail "the exchange through hrelay-run differs from the native one"

echo "== node-level families on the hosts as nodes"
COMPARE=$PWD/tests/mpi/compare
[ -x "$COMPARE" ] || fail "$COMPARE missing (make check builds it)"
for n in 4 5; do
    lanes="2 2"
    [ "$n" = 5 ] && lanes="2 3"
    for family in node-direct node-transpose node-forward node-aggregate; do
        report=$TMP/report-$n-$family.json
        run "$family-$n" -n "$n" --hrelay --env HRELAY_ALGO=$family --env HRELAY_REPORT="$report" \
            -- "$COMPARE" --seed "$n" --cases 12 --interleaved 1 --report "$report" \
            --expect $family
        # the world: 2 nodes of $lanes ranks, consecutive; node-direct's metadata at node level
        # shellcheck disable=SC2086 # lanes: two numbers
        python3 - "$report" "$n" $lanes "$family" <<'EOF' || fail "$family on $n ranks: $(cat "$report")"
import json, sys
path, n, lo, hi, family = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
comms = json.load(open(path))["communicators"]
world = [c for c in comms if c["size"] == n and c["consecutive"] and c["nodes"] == 2
         and c["ranks_per_node_min"] == lo and c["ranks_per_node_max"] == hi
         and c["node_size"] == "auto"]
assert world, f"no entry of {n} ranks on 2 nodes of {lo}..{hi}: {comms}"
several = [c for c in comms if c["ranks_per_node_max"] > 1]
if family == "node-direct":
    assert all(c["node_patterns"] == c["patterns"] > 0 for c in several), comms
else:
    assert all(c["node_patterns"] == 0 for c in comms), comms
EOF
    done
done

echo "== off-host: host 0's two ranks share its NIC"
run off -n 4 -- "$EXCHANGE" --bandwidth 2000000 --distance 2 --reps 3 --rate $RATE
for test in one-way two-way; do
    bound=$(field $test bound_s "$TMP/off")
    within "$bound" 0.63 0.65 || fail "$test: bound $bound s, expected 0.64 (2 flows on one NIC)"
    ratio=$(field $test ratio "$TMP/off")
    within "$ratio" 0.9 1.5 ||
        fail "$test: $ratio x the NIC's time for both flows (expected 0.9..1.5)"
done

echo "== on-host: shared memory, not the NIC's rate"
bytes=30000000
before=$(sent_bytes)
run on -n 4 -- "$EXCHANGE" --bandwidth $bytes --distance 1 --reps 3
after=$(sent_bytes)
for test in one-way two-way; do
    rate=$(field $test mbit_per_s "$TMP/on")
    within "$rate" 500 1000000 || fail "$test on-host at $rate Mbit/s (expected at least 500)"
done
# host 0's pair moved 3 x (one-way + two-way both ways) x bytes
moved=$((3 * 3 * bytes))
within "$((after - before))" 0 $((moved / 10)) ||
    fail "host 0's loopback and NIC sent $((after - before)) bytes while its ranks moved $moved"
echo "host 0's loopback and NIC sent $((after - before)) bytes while its ranks moved $moved"

echo "PASS"
exit 0
