#!/bin/bash
# Node-level families against PMPI on one machine, nodes pretended by HRELAY_NODE_SIZE=K
# (tests/mpi/compare: byte for byte with guard bytes, every datatype pair, MPI_Alltoall(v)(_c),
# MPI_IN_PLACE, erroneous calls; world, split, reversed and interleaved communicators), at 1..8
# ranks and 16 (oversubscribed): uneven nodes (K not dividing P) and non-consecutive placement
# (the interleaved communicator: evens first). The report must count every call under the
# family and give each communicator its topology ("communicators": nodes, ranks per node,
# consecutive or not); node-direct must take the node-level metadata path on every
# communicator with a node of several ranks (node_patterns == patterns, the verbose line with
# the words a rank received: N (N + 1) + P) and the others the P x P gather; HRELAY_NODE_SIZE=1
# and auto; half duplex; node steps in flight 1 and 0 (the window); synchronised steps, one by
# one and in groups (HRELAY_NODE_JOIN); node-aggregate through the nodes' shared memory
# (HRELAY_NODE_SHM=1), and measured against messages (HRELAY_NODE_SHM=auto, under auto and
# the named family); the staging fallback to node-direct; the plan cache (hits, a pattern
# changing on one rank, one slot); HRELAY_DUMP writes node plans with their topology (not
# node-direct's).
. "${srcdir:-.}/tests/mpi/common.sh"
r=$HR_TMP/report.json

# comms REPORT: one line per "communicators" entry: size nodes min max consecutive node_size
# count patterns node_patterns
comms() {
    python3 - "$1" <<'EOF' || hr_fail "cannot read the communicators of $1"
import json, sys
for c in json.load(open(sys.argv[1]))["communicators"]:
    print(c["size"], c["nodes"], c["ranks_per_node_min"], c["ranks_per_node_max"],
          int(c["consecutive"]), c["node_size"], c["count"], c["patterns"], c["node_patterns"])
EOF
}

# node_run N K FAMILY [EXPECT [VAR=VALUE ...]]: compare on N ranks in nodes of K ranks
# (--interleaved), the report showing EXPECT (default FAMILY); then the topology checks.
node_run() {
    local n=$1 k=$2 family=$3 expect=${4:-$3}
    shift 3
    [ $# -gt 0 ] && shift
    local cases=24
    [ "$n" -ge 5 ] && cases=16
    [ "$n" -ge 16 ] && cases=6
    rm -f "$r"
    hr_run "$n" HRELAY_ALGO="$family" HRELAY_NODE_SIZE="$k" HRELAY_REPORT="$r" HRELAY_VERBOSE=2 \
        "$@" -- ./tests/mpi/compare --seed $((HRELAY_TEST_SEED + n + k)) --cases "$cases" \
        --interleaved 1 --report "$r" --expect "$expect" 2>"$HR_TMP/err" ||
        hr_fail "compare on $n ranks, $family, nodes of $k, $*: $(tail -5 "$HR_TMP/err")"
    check_topology "$n" "$k" "$family"
}

# check_topology N K FAMILY: the world's entry (N ranks in nodes of K: ceil(N / K) nodes of K,
# the last one of N mod K), an interleaved (non-consecutive) one when nodes have several ranks,
# and where the metadata was exchanged.
check_topology() {
    local n=$1 k=$2 family=$3
    local nodes=$(((n + k - 1) / k)) min=$k max=$k
    [ "$k" -gt "$n" ] && min=$n max=$n
    [ $((n % k)) -ne 0 ] && [ "$k" -le "$n" ] && min=$((n % k))
    local list
    list=$(comms "$r")
    [ "$k" = 1 ] && nodes=$n
    awk -v n="$n" -v nodes="$nodes" -v lo="$min" -v hi="$max" -v k="$k" \
        '$1 == n && $2 == nodes && $3 == lo && $4 == hi && $5 == 1 && $6 == k { f = 1 }
         END { exit !f }' <<<"$list" ||
        hr_fail "$n ranks, nodes of $k: no entry of $nodes nodes of $min..$max consecutive ranks: $list"
    if [ "$k" -ge 2 ] && [ "$n" -gt "$k" ] && [ "$n" -ge 3 ]; then
        awk -v n="$n" '$1 == n && $5 == 0 { f = 1 } END { exit !f }' <<<"$list" ||
            hr_fail "$n ranks, nodes of $k: the interleaved communicator is not marked non-consecutive: $list"
    fi
    # node_patterns: every pattern of a communicator with a node of several ranks under
    # node-direct, none otherwise (one rank per node: the usual path)
    awk -v fam="$family" '{ several = $4 > 1
         want = (fam == "node-direct" && several) ? $8 : 0
         if ($9 != want) bad = 1; if (several) any = 1 }
         END { exit bad }' <<<"$list" ||
        hr_fail "$family, $n ranks, nodes of $k: node-level metadata on the wrong communicators: $list"
    if [ "$family" = node-direct ] && [ "$max" -gt 1 ]; then
        local words=$((nodes * (nodes + 1) + n))
        grep -q "on $n ranks: node-level metadata of a new pattern: $nodes nodes, $words words per rank$" \
            "$HR_TMP/err" || hr_fail "no node-level metadata line of $words words: $(head -5 "$HR_TMP/err")"
    fi
}

# every node family, nodes of 2 (uneven at odd counts), of 3 and 4 (uneven: 3 + 2, 4 + 2, 3 + 3 + 2)
for family in node-direct node-transpose node-forward node-aggregate; do
    node_run 3 2 "$family"
    node_run 5 3 "$family"
    node_run 8 3 "$family"
done
node_run 1 2 node-direct
node_run 2 2 node-direct
node_run 4 2 node-direct
node_run 6 4 node-direct
node_run 7 2 node-aggregate
node_run 4 4 node-aggregate # one node: everything on-node
node_run 6 2 node-transpose node-transpose HRELAY_GRAIN=3
node_run 7 3 node-forward node-forward HRELAY_PACKET=100

# one rank per node: the rank-level path (the world's entry has nodes == ranks)
node_run 5 1 node-direct
node_run 4 1 node-aggregate

# half duplex, steps in flight 1 and 0 (HRELAY_WINDOW operations instead), window 1
node_run 6 3 node-direct node-direct HRELAY_DUPLEX=half
node_run 5 2 node-forward node-forward HRELAY_DUPLEX=half
node_run 6 2 node-direct node-direct HRELAY_NODE_STEPS=1
node_run 5 3 node-direct node-direct HRELAY_NODE_STEPS=0 HRELAY_WINDOW=1
node_run 5 2 node-aggregate node-aggregate HRELAY_NODE_STEPS=1

# synchronised node steps (HRELAY_NODE_SYNC=1): a barrier between every two steps
# (HRELAY_NODE_JOIN=0), then consecutive light steps run as one group (1 KiB of node load),
# byte for byte alike; the verbose lines count the groups of every plan
groups() { grep -o "node-direct: [0-9]* synchronised steps in [0-9]* groups" "$HR_TMP/err"; }
node_run 12 2 node-direct node-direct HRELAY_NODE_SYNC=1 HRELAY_NODE_JOIN=0
groups | awk '{ n++; if ($2 != $6) bad = 1 } END { exit bad || !n }' ||
    hr_fail "HRELAY_NODE_JOIN=0: steps grouped, or no synchronised plan: $(groups | head -3)"
node_run 12 2 node-direct node-direct HRELAY_NODE_SYNC=1 HRELAY_NODE_JOIN=1K
groups | awk '$6 < $2 && $2 > 1 { f = 1 } END { exit !f }' ||
    hr_fail "HRELAY_NODE_JOIN=1K: no plan's steps grouped: $(groups | head -3)"

# staging over the limit: node-transpose (3 nodes: relayed through the third) runs node-direct
# instead
node_run 6 2 node-transpose node-direct,node-transpose HRELAY_MAX_STAGING=0
grep -q '"node-direct": [1-9]' "$r" || hr_fail "no node-direct fallback: $(cat "$r")"

# node-aggregate's transfers within a node through the node's shared-memory window
# (HRELAY_NODE_SHM=1): byte for byte alike, with messages in flight, synchronised steps and one
# step in flight, uneven and interleaved nodes; the verbose lines say the window carried them
window_runs() { grep -c "node-aggregate: transfers within the node through its window" "$HR_TMP/err"; }
for nk in "4 2" "7 3" "8 4" "5 2 HRELAY_NODE_SYNC=1" "6 3 HRELAY_NODE_STEPS=1" "16 5"; do
    # shellcheck disable=SC2086 # ranks, node size, settings
    set -- $nk
    node_run "$1" "$2" node-aggregate node-aggregate HRELAY_NODE_SHM=1 "${@:3}"
    [ "$(window_runs)" -gt 0 ] || hr_fail "HRELAY_NODE_SHM=1, $nk: no plan ran through the window"
    grep -q '"node_shm": 1' "$r" || hr_fail "HRELAY_NODE_SHM=1 not in the report's config"
done

# HRELAY_NODE_SHM=auto: auto measures node-aggregate through the window beside it with
# messages (tests/mpi/drift, each of 10 patterns 8 times in a row, every result compared with
# PMPI's; a calibration where plans look fast, the whole time as exploration budget and one
# measured call per candidate, so that each new pattern explores a family not measured yet
# and node-aggregate's pattern explores both ways); so does HRELAY_ALGO=node-aggregate (2
# measured calls each way, nothing else run: each of 2 patterns 12 times); HRELAY_NODE_SHM=0
# never uses the window
printf 'native_percent = 1000\nstep_s = 1e-9\n' >"$HR_TMP/plans-win.cfg"
for nk in "8 4 auto auto" "7 3 auto auto" "8 4 0 auto" "8 4 auto node-aggregate"; do
    # shellcheck disable=SC2086 # ranks, node size, setting, family
    set -- $nk
    calls="--calls 80 --repeat 8" tune=1
    [ "$4" = auto ] || calls="--calls 24 --repeat 12" tune=2
    # shellcheck disable=SC2086 # drift's arguments
    hr_run "$1" HRELAY_ALGO="$4" HRELAY_NODE_SIZE="$2" HRELAY_NODE_SHM="$3" \
        HRELAY_CONFIG="$HR_TMP/plans-win.cfg" HRELAY_TUNE=$tune HRELAY_EXPLORE_BUDGET=100 \
        HRELAY_TUNE_MARGIN=10000 HRELAY_RECHECK=0 HRELAY_VERBOSE=2 HRELAY_REPORT="$r" -- \
        ./tests/mpi/drift --seed 3 $calls >"$HR_TMP/out" 2>"$HR_TMP/err" &&
        grep -q '^drift: ok$' "$HR_TMP/out" ||
        hr_fail "drift on $1 ranks in nodes of $2, HRELAY_NODE_SHM=$3, $4: $(cat "$HR_TMP/out")"
    shm=$(grep -c "ranks: node-aggregate/shared memory (" "$HR_TMP/err")
    base=$(grep -c "ranks: node-aggregate (" "$HR_TMP/err")
    if [ "$3" = auto ]; then
        [ "$shm" -gt 0 ] && [ "$base" -gt 0 ] && [ "$(window_runs)" -gt 0 ] ||
            hr_fail "HRELAY_NODE_SHM=auto, $nk: node-aggregate ran $base times with messages, $shm through the window: $(grep -c . "$HR_TMP/err") lines"
        grep -q '"node_shm": "auto"' "$r" || hr_fail "HRELAY_NODE_SHM=auto not in the report's config"
        [ "$4" = auto ] || [ $((shm + base)) = 24 ] ||
            hr_fail "HRELAY_ALGO=$4, HRELAY_NODE_SHM=auto: $base + $shm node-aggregate calls of 24"
    else
        [ "$shm" = 0 ] && [ "$(window_runs)" = 0 ] && [ "$base" -gt 0 ] ||
            hr_fail "HRELAY_NODE_SHM=0, $nk: node-aggregate ran $base times with messages, $shm through the window"
    fi
done

# the node's window is made by the first call that explores it: on a communicator that has made
# none, exploring node-aggregate through it is charged the making too, estimated by the cost
# model (window_make_s, window_make_s_per_byte); made to cost 1000 s, the window is never
# explored while node-aggregate with messages is (as above: plans look fast, the whole time is
# exploration budget), on 8 ranks in nodes of 4 and on 7 in nodes of 3
printf 'native_percent = 1000\nstep_s = 1e-9\nwindow_make_s = 1000\n' >"$HR_TMP/window-dear.cfg"
for nk in "8 4" "7 3"; do
    # shellcheck disable=SC2086 # ranks, node size
    set -- $nk
    hr_run "$1" HRELAY_NODE_SIZE="$2" HRELAY_NODE_SHM=auto HRELAY_CONFIG="$HR_TMP/window-dear.cfg" \
        HRELAY_TUNE=1 HRELAY_EXPLORE_BUDGET=100 HRELAY_TUNE_MARGIN=10000 HRELAY_RECHECK=0 \
        HRELAY_VERBOSE=2 -- ./tests/mpi/drift --seed 3 --calls 80 --repeat 8 \
        >"$HR_TMP/out" 2>"$HR_TMP/err" && grep -q '^drift: ok$' "$HR_TMP/out" ||
        hr_fail "drift on $1 ranks in nodes of $2, a window costing 1000 s: $(cat "$HR_TMP/out")"
    shm=$(grep -c "ranks: node-aggregate/shared memory (" "$HR_TMP/err")
    base=$(grep -c "ranks: node-aggregate (" "$HR_TMP/err")
    [ "$shm" = 0 ] && [ "$(window_runs)" = 0 ] && [ "$base" -gt 0 ] ||
        hr_fail "a window costing 1000 s, $nk: node-aggregate ran $base times with messages, $shm through the window"
done

# 16 ranks (oversubscribed): nodes of 4 and of 5 (5 + 5 + 5 + 1)
node_run 16 4 node-direct
node_run 16 5 node-aggregate

# the plan cache under node-level plans (tests/mpi/sites): repeated patterns at two sites are
# planned once each and then hit (node-direct's slots from the node-level path), a pattern that
# changes on one rank only is never served from the cache, a cache of one slot evicts
field() { python3 "${srcdir:-.}/tests/mpi/report_field.py" "$@" || hr_fail "report: $*"; }
expect() { [ "$2" = "$3" ] || hr_fail "$1: got $2, expected $3"; }
for family in node-direct node-aggregate; do
    for nk in "4 2" "5 3"; do
        # shellcheck disable=SC2086 # ranks and node size
        set -- $nk
        hr_run "$1" HRELAY_ALGO=$family HRELAY_NODE_SIZE="$2" HRELAY_REPORT="$r" -- \
            ./tests/mpi/sites two 12 >"$HR_TMP/out" || hr_fail "sites two, $family: $(cat "$HR_TMP/out")"
        expect "$family calls ($1 ranks)" "$(field "$r" total calls)" 24
        expect "$family runs ($1 ranks)" "$(field "$r" total "algorithms.$family")" 24
        expect "$family plans ($1 ranks)" "$(field "$r" total plans_computed)" 2
        expect "$family hits ($1 ranks)" "$(field "$r" total cache_hits)" 22
    done
done
hr_run 4 HRELAY_ALGO=node-direct HRELAY_NODE_SIZE=2 HRELAY_REPORT="$r" -- \
    ./tests/mpi/sites change 10 >"$HR_TMP/out" || hr_fail "sites change: $(cat "$HR_TMP/out")"
expect "changing pattern: node-direct runs" "$(field "$r" total algorithms.node-direct)" 10
expect "changing pattern: plans" "$(field "$r" total plans_computed)" 2
expect "changing pattern: hits" "$(field "$r" total cache_hits)" 8
hr_run 3 HRELAY_ALGO=node-direct HRELAY_NODE_SIZE=2 HRELAY_CACHE_SIZE=1 HRELAY_REPORT="$r" -- \
    ./tests/mpi/sites two 6 >"$HR_TMP/out" || hr_fail "one slot: $(cat "$HR_TMP/out")"
expect "one slot: plans" "$(field "$r" total plans_computed)" 12
expect "one slot: hits" "$(field "$r" total cache_hits)" 0

# HRELAY_NODE_SIZE=auto on one machine: one node of all ranks
rm -f "$r"
hr_run 4 HRELAY_ALGO=node-direct HRELAY_REPORT="$r" -- ./tests/mpi/compare \
    --seed "$HRELAY_TEST_SEED" --cases 8 --report "$r" --expect node-direct ||
    hr_fail "HRELAY_NODE_SIZE=auto"
comms "$r" | grep -qx '4 1 4 4 1 auto [0-9]* [0-9]* [0-9]*' ||
    hr_fail "auto on one machine is not one node of 4 ranks: $(comms "$r")"
grep -q '"node_size": "auto", "node_steps": "auto",' "$r" || hr_fail "config: $(cat "$r")"

# HRELAY_DUMP: the node families' plans record their topology; node-direct's node-level plans
# are not dumped (no rank has the whole plan)
d=$HR_TMP/plans
hr_run 4 HRELAY_ALGO=node-aggregate HRELAY_NODE_SIZE=2 HRELAY_DUMP="$d" -- ./tests/mpi/compare \
    --seed "$HRELAY_TEST_SEED" --cases 4 || hr_fail "dump of node-aggregate"
ls "$d"/plan-*.json >/dev/null 2>&1 || hr_fail "no node-aggregate plan dumped"
for f in "$d"/plan-*.json; do # 4 ranks: 2 nodes of 2; the split halves: 2 nodes of 1
    grep -q '"algorithm": "node-aggregate"' "$f" && grep -q '"topology": {"nodes": 2,' "$f" ||
        hr_fail "$f is not a node-aggregate plan of 2 nodes: $(head -c 400 "$f")"
    if grep -q '^{"p": 4,' "$f"; then
        grep -q '"node_of": \[0, 0, 1, 1\]' "$f" || hr_fail "$f: placement $(head -c 400 "$f")"
    fi
done
rm -rf "$d"
hr_run 4 HRELAY_ALGO=node-direct HRELAY_NODE_SIZE=2 HRELAY_DUMP="$d" -- ./tests/mpi/compare \
    --seed "$HRELAY_TEST_SEED" --cases 4 || hr_fail "dump of node-direct"
for f in "$d"/plan-*.json; do # only the split halves' (one rank per node: the usual path)
    [ -e "$f" ] || continue
    grep -q '^{"p": 2,' "$f" || hr_fail "a node-level node-direct plan was dumped: $f"
done
exit 0
