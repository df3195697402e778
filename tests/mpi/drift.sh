#!/bin/bash
# Drifting patterns (tests/mpi/drift: one call site whose counts change on every call) under
# auto: every result byte-identical to MPI's and every rank running the same family on every
# call, with the built-in costs and under a calibration that makes plans look fast with the
# whole time as exploration budget (so that plans, not measured yet, run and are measured); a
# drifting site where no plan can win is decided before gathering (the report says so per call
# site, and nothing is planned), and one too small to explore runs unchecked from its third
# call on; a tiny MPI_Alltoall of counts before each MPI_Alltoallv of data does not keep the
# data site from planning, nor starts a run while the data site waits for the exploration
# budget; a site whose bytes never leave their nodes starts its unchecked runs at its first
# call; under a calibration whose model is more than 30 times wrong about
# plans, the first family that runs stops within three calls; with several ranks per node
# (HRELAY_NODE_SIZE=K) the node-level families run, and node-direct tried alone takes the
# node-level metadata path where it is modeled cheaper.
. "${srcdir:-.}/tests/mpi/common.sh"
field() { python3 "${srcdir:-.}/tests/mpi/report_field.py" "$@" || hr_fail "report: $*"; }
r=$HR_TMP/report.json
cat >"$HR_TMP/plans-win.cfg" <<'CFG'
native_percent = 1000
step_s = 1e-9
CFG
cat >"$HR_TMP/plan-never.cfg" <<'CFG'
step_s = 0.5
native_percent = 0
CFG
# MPI's algorithm modeled at 10 ms per message: more than 30 times what plans are modeled at
cat >"$HR_TMP/native-30x.cfg" <<'CFG'
gap_s = 0.01
step_s = 1e-9
CFG

# runs drift on N ranks with the settings before --, then its arguments; the families it ran
run_drift() {
    local n=$1
    shift
    hr_run "$n" "$@" >"$HR_TMP/out" 2>"$HR_TMP/err" ||
        hr_fail "drift on $n ranks ($*): $(cat "$HR_TMP/out" "$HR_TMP/err")"
    grep -q '^drift: ok$' "$HR_TMP/out" || hr_fail "drift on $n ranks: $(cat "$HR_TMP/out")"
    sed -n 's/^drift: P=[0-9]* calls=[0-9]*://p' "$HR_TMP/out"
}

for n in 1 2 3 4 5 8; do
    seed=$((HRELAY_TEST_SEED + n))
    run_drift "$n" -- ./tests/mpi/drift --seed "$seed" --calls 30 --mode random >/dev/null
    # every call agreed (HRELAY_RECHECK=0): the sweep's small levels, decided for MPI's
    # algorithm, would otherwise start unchecked runs that hide its large levels or not,
    # depending on how fast this machine runs them
    ran=$(run_drift "$n" HRELAY_CONFIG="$HR_TMP/plans-win.cfg" HRELAY_EXPLORE_BUDGET=100 \
        HRELAY_RECHECK=0 -- ./tests/mpi/drift \
        --seed "$seed" --calls 36 --mode sweep --max 65536)
    if [ "$n" -gt 1 ]; then
        case $ran in
        *direct* | *stepwise* | *greedy* | *transpose* | *forward* | *walker-otto*) ;;
        *) hr_fail "no plan ran on $n ranks under plans-win.cfg: $ran" ;;
        esac
    fi
done

# several ranks per node (HRELAY_NODE_SIZE=K): the node-level families are candidates too and
# the forecast's figures are node-level (the summary's off-node and on-node bytes); results
# and the family of every call agree on every rank, with the built-in costs and under a
# calibration where on-node copies are slow per byte (node-level plans then win: a rank's
# on-node messages move in one step, alongside the NIC) with the whole time as exploration
# budget (families not measured yet are explored), where a node-level family runs
cat >"$HR_TMP/node-wins.cfg" <<'CFG'
native_percent = 1000
local_beta_s_per_byte = 1e-8
CFG
for nk in "4 2" "5 2" "8 4"; do
    # shellcheck disable=SC2086 # ranks and node size
    set -- $nk
    seed=$((HRELAY_TEST_SEED + 40 + $1))
    run_drift "$1" HRELAY_NODE_SIZE="$2" -- ./tests/mpi/drift --seed "$seed" --calls 30 \
        --mode random >/dev/null
    ran=$(run_drift "$1" HRELAY_NODE_SIZE="$2" HRELAY_CONFIG="$HR_TMP/node-wins.cfg" \
        HRELAY_EXPLORE_BUDGET=100 -- \
        ./tests/mpi/drift --seed "$seed" --calls 36 --mode sweep --max 65536)
    case $ran in
    *node-*) ;;
    *) hr_fail "no node-level family ran on $1 ranks in nodes of $2 under node-wins.cfg: $ran" ;;
    esac
done

# node-direct's node-level metadata (N (N + 1) + P words) instead of the P x P gather: from a
# few hundred ranks on it is modeled cheaper, here made so by a slow byte rate (the P x P gather
# of 8 ranks, 512 bytes, against 224); a drifting site where node-direct is tried, alone, takes
# that path under auto too (the report's node_patterns), results byte-identical
cat >"$HR_TMP/node-path.cfg" <<'CFG'
native_percent = 1000
step_s = 1e-9
beta_s_per_byte = 1e-6
CFG
ran=$(run_drift 8 HRELAY_NODE_SIZE=2 HRELAY_CONFIG="$HR_TMP/node-path.cfg" \
    HRELAY_EXPLORE_BUDGET=100 HRELAY_REPORT="$r" -- \
    ./tests/mpi/drift --seed $((HRELAY_TEST_SEED + 50)) --calls 36 --mode random --max 65536)
case $ran in
*node-direct*) ;;
*) hr_fail "node-direct did not run on 8 ranks in nodes of 2 under node-path.cfg: $ran" ;;
esac
node_patterns=$(python3 -c 'import json, sys
print(sum(c["node_patterns"] for c in json.load(open(sys.argv[1]))["communicators"]))' "$r") ||
    hr_fail "cannot read the communicators of $r"
[ "$node_patterns" -ge 1 ] || hr_fail "auto never took the node path: $(cat "$r")"

# a drifting site too small to explore (counts within 30 % of 100 or 60 ints per pair: under
# 1 KiB per rank, one size class): its first call runs unchecked (the communicator's first:
# its record's creation agreed that no rank moves 4 KiB, src/shim/exchange.c first_call), its
# second is checked (by five words, tiny_again, as the agreement would decide it) and starts a
# run of 64 unchecked calls at once (a tiny call after another at its site in its size class,
# run_before_gather), so 39 of 40 calls run unchecked; with
# the first call agreed 38, with runs of 8 and 16 36 (the BFS-like sweep below changes size
# class every call: not alike)
for nm in "2 100" "4 60"; do
    # shellcheck disable=SC2086 # ranks and ints per pair
    set -- $nm
    n=$1
    run_drift "$n" HRELAY_REPORT="$r" -- ./tests/mpi/drift --seed 11 --calls 40 --mode jitter \
        --max "$2" >/dev/null
    site=$(grep -o '"site": "drift.c:[0-9]* exchange"' "$r" | sed 's/"site": "//; s/"$//')
    [ "$(field "$r" "$site" algorithms.native)" = 40 ] || hr_fail "tiny: not all native: $(cat "$r")"
    [ "$(field "$r" "$site" decided_before_gather)" = 1 ] &&
        [ "$(field "$r" "$site" unchecked)" = 39 ] ||
        hr_fail "tiny drifting site on $n ranks: expected 1 agreed and 39 unchecked: $(cat "$r")"
done

# the second call of a communicator whose first was too small to explore is decided by the
# record's creation, one allreduce of a few words at that call (the first ran MPI's algorithm
# unchecked; src/shim/exchange.c deferred_second), where every rank's call is too small to
# explore and is the first call again or alike at its site: said once per run for the jitter
# site above (every rank's own pattern changes) and for the same counts on every call, and
# never where rank 0 alone sends more on the second call (8 times as much to rank 1, another
# size class: only its part changes): then that call stands as the communicator's first agreed
# call (rank 0's 8 + (n - 2) times 60 ints), the third is agreed in full, nothing before it is
# decided as alike, and the results are PMPI's
for nm in "2 100" "4 60"; do
    # shellcheck disable=SC2086 # ranks and ints per pair, as above: one size class
    set -- $nm
    n=$1
    run_drift "$n" HRELAY_VERBOSE=2 -- ./tests/mpi/drift --seed 11 --calls 20 --mode jitter \
        --max "$2" >/dev/null
    [ "$(grep -c "a call alike at the last agreed call's site, too small to explore" "$HR_TMP/err")" = 1 ] ||
        hr_fail "jitter on $n ranks: the second call not alike: $(cat "$HR_TMP/err")"
    run_drift "$n" HRELAY_VERBOSE=2 -- ./tests/mpi/drift --calls 20 --mode lone --max 60 \
        --repeat 20 >/dev/null
    [ "$(grep -c "the last agreed call again, too small to explore" "$HR_TMP/err")" = 1 ] ||
        hr_fail "the same counts on $n ranks: the second call not the first again: $(cat "$HR_TMP/err")"
    run_drift "$n" HRELAY_VERBOSE=2 HRELAY_REPORT="$r" -- ./tests/mpi/drift --calls 20 \
        --mode lone --max 60 >/dev/null
    grep -q "the first agreed call (call 2) moves at most $(((6 + n) * 60 * 4)) bytes" "$HR_TMP/err" &&
        ! sed '/before gathering on/q' "$HR_TMP/err" | grep -q "without the agreement" ||
        hr_fail "rank 0's second call alone changed on $n ranks, yet decided as alike: $(cat "$HR_TMP/err")"
    site=$(grep -o '"site": "drift.c:[0-9]* exchange"' "$r" | sed 's/"site": "//; s/"$//')
    [ "$(field "$r" "$site" algorithms.native)" = 20 ] || hr_fail "lone: not all native: $(cat "$r")"
done

# a communicator's first call of 2000 ints per pair (not too small to explore), one rank per
# node (HRELAY_NODE_SIZE=1: bytes cross NICs), runs MPI's algorithm unchecked; where the second
# call is the first again on every rank, at its site, the first call's time is learned at the
# second's agreement (src/shim/exchange.c teach_first): that agreement's forecast finds MPI's
# algorithm measured at the size; where rank 0 alone sends more at the second call, nothing is
# learned from the first and the forecast says MPI's algorithm is not measured yet
for n in 2 4; do
    run_drift "$n" HRELAY_NODE_SIZE=1 HRELAY_VERBOSE=2 -- ./tests/mpi/drift --calls 6 \
        --mode lone --max 2000 --repeat 6 >/dev/null
    first=$(grep -m1 "^hrelay: before gathering on" "$HR_TMP/err") ||
        hr_fail "the same counts of 2000 ints on $n ranks: no forecast: $(cat "$HR_TMP/err")"
    case $first in
    *"not measured yet"*) hr_fail "the first call again on $n ranks: its time not learned: $first" ;;
    esac
    run_drift "$n" HRELAY_NODE_SIZE=1 HRELAY_VERBOSE=2 -- ./tests/mpi/drift --calls 6 \
        --mode lone --max 2000 >/dev/null
    grep -m1 "^hrelay: before gathering on" "$HR_TMP/err" | grep -q "not measured yet" ||
        hr_fail "rank 0's second call alone changed on $n ranks, yet the first taught: $(cat "$HR_TMP/err")"
done

# the first call after a run that a tiny call started is checked by the same five words
# (exchange.c after_tiny_run): over 200 calls of a tiny site, drifting or the same counts on
# every call, the checks at calls 2, 67 and 196 (after runs of 1, 64 and 128 calls) are its
# only agreements: 3 calls decided before gathering, 197 unchecked, and no agreement in full
# (whose decision line says how many bytes the rank sent); where rank 0 alone sends more at the
# first re-check (call 67, --lone-at 66), every rank agrees on that call in full, with the
# same decisions and results as PMPI's
for nm in "2 100" "4 60"; do
    # shellcheck disable=SC2086 # ranks and ints per pair, as above: one size class
    set -- $nm
    n=$1
    for args in "--seed 11 --mode jitter --max $2" "--mode lone --max 60 --repeat 200"; do
        # shellcheck disable=SC2086 # the mode's arguments
        run_drift "$n" HRELAY_VERBOSE=2 HRELAY_REPORT="$r" -- ./tests/mpi/drift --calls 200 \
            $args >/dev/null
        site=$(grep -o '"site": "drift.c:[0-9]* exchange"' "$r" | sed 's/"site": "//; s/"$//')
        [ "$(grep -c "too small to explore: native (decided before gathering, without the agreement)" \
            "$HR_TMP/err")" = 3 ] && ! grep -q "native (decided before gathering), [0-9]* bytes" \
            "$HR_TMP/err" || hr_fail "$args on $n ranks: not 3 checks alone: $(cat "$HR_TMP/err")"
        [ "$(field "$r" "$site" algorithms.native)" = 200 ] &&
            [ "$(field "$r" "$site" decided_before_gather)" = 3 ] &&
            [ "$(field "$r" "$site" unchecked)" = 197 ] ||
            hr_fail "$args on $n ranks: expected 3 checked and 197 unchecked: $(cat "$r")"
    done
    run_drift "$n" HRELAY_VERBOSE=2 HRELAY_REPORT="$r" -- ./tests/mpi/drift --calls 100 \
        --mode lone --max 60 --lone-at 66 >/dev/null
    [ "$(grep -c "without the agreement" "$HR_TMP/err")" = 1 ] &&
        grep -q "native (decided before gathering), [0-9]* bytes" "$HR_TMP/err" ||
        hr_fail "rank 0's call 67 alone changed on $n ranks, yet not agreed in full: $(cat "$HR_TMP/err")"
    site=$(grep -o '"site": "drift.c:[0-9]* exchange"' "$r" | sed 's/"site": "//; s/"$//')
    [ "$(field "$r" "$site" algorithms.native)" = 100 ] || hr_fail "lone at 66: not all native: $(cat "$r")"
done

# a drifting site whose bytes never leave their node (--within K under HRELAY_NODE_SIZE=K,
# 8 KiB per pair): nothing crosses a NIC, so its communicator's first call starts a run of 8
# unchecked calls at once (its record's creation agreed on it, exchange.c first_on_node), the
# 9th is agreed and starts one of 16, the 26th one of 32: 2 agreed and 38 unchecked of 40. A
# site whose bytes cross nodes (groups of 2 on nodes of 3) or with one rank per node
# (HRELAY_NODE_SIZE=1: no node to stay on) has its first call agreed and its first run started
# by a later agreement: at least 3 agreed (5 on this machine). Every plan step is modeled at
# half a second (plan-never.cfg), so that no call explores a plan: with the built-in costs the
# exploration budget, accrued from the calls' measured times, lets a call across nodes explore
# one on a loaded machine, and that call is gathered
for case in "4 2 2 =" "6 3 3 =" "6 3 2 >" "4 1 2 >"; do
    # shellcheck disable=SC2086 # ranks, node size, group, within nodes or not
    set -- $case
    run_drift "$1" HRELAY_NODE_SIZE="$2" HRELAY_CONFIG="$HR_TMP/plan-never.cfg" \
        HRELAY_REPORT="$r" -- ./tests/mpi/drift --seed 13 \
        --calls 40 --mode jitter --max 2048 --within "$3" >/dev/null
    site=$(grep -o '"site": "drift.c:[0-9]* exchange"' "$r" | sed 's/"site": "//; s/"$//')
    agreed=$(field "$r" "$site" decided_before_gather)
    unchecked=$(field "$r" "$site" unchecked)
    [ "$(field "$r" "$site" algorithms.native)" = 40 ] && [ $((agreed + unchecked)) = 40 ] ||
        hr_fail "groups of $3 on $1 ranks in nodes of $2: not all native before gathering: $(cat "$r")"
    if [ "$4" = "=" ]; then
        [ "$agreed" = 2 ] ||
            hr_fail "within nodes of $2 on $1 ranks: expected 2 agreed calls, got $agreed: $(cat "$r")"
    else
        [ "$agreed" -ge 3 ] ||
            hr_fail "groups of $3 on $1 ranks in nodes of $2: $agreed agreed calls, expected 3 or more: $(cat "$r")"
    fi
done

# a sample sort's two sites on one communicator: an MPI_Alltoall of the counts (one int per
# pair, too small to explore) before each MPI_Alltoallv of the data, under a calibration where
# plans win: the tiny site's calls must not start runs of unchecked calls that cover the data
# site's (a run counts the communicator's calls, whatever their site), so the data site
# plans; the counts' site runs MPI's algorithm on all its calls, and agrees on one call only:
# its first runs unchecked (the communicator's first, too small to explore, exchange.c
# first_call), its second is agreed (an MPI_Alltoall agreed too small to explore by its
# bytes: the later ones as small, which every rank knows from its own arguments, run unchecked
# at once)
ran=$(run_drift 4 HRELAY_CONFIG="$HR_TMP/plans-win.cfg" HRELAY_EXPLORE_BUDGET=100 \
    HRELAY_REPORT="$r" -- ./tests/mpi/drift --seed 5 --calls 20 --mode counts --max 20000)
printf '%s\n' $ran | grep -qv '^native$' ||
    hr_fail "the data site never planned behind the counts' MPI_Alltoall: $ran $(cat "$r")"
sites=$(grep -o '"site": "drift.c:[0-9]* exchange_counts"' "$r" | sed 's/"site": "//; s/"$//')
[ "$(field "$r" "$sites" algorithms.native)" = 20 ] ||
    hr_fail "the counts' MPI_Alltoall did not run MPI's algorithm on all 20 calls: $(cat "$r")"
[ "$(field "$r" "$sites" decided_before_gather)" = 1 ] &&
    [ "$(field "$r" "$sites" unchecked)" = 19 ] ||
    hr_fail "the counts' MPI_Alltoall: expected 1 agreed and 19 unchecked calls: $(cat "$r")"

# the same two sites with the counts sent by an MPI_Alltoallv of one int per pair (agreed as
# any MPI_Alltoallv) and no exploration budget (HRELAY_EXPLORE_BUDGET=0): the data site's
# calls run MPI's algorithm while a family waits for the budget, each starting a run of
# unchecked calls that ends where the budget would allow it; the counts' call right after such
# a call must start no run of its own (its run would cover the waiting data site's next calls),
# checked on HRELAY_VERBOSE=2's lines (one per agreed call, one per run; a counts' call sends
# 4 ints); at least one such pair must occur
hr_run 4 HRELAY_EXPLORE_BUDGET=0 HRELAY_VERBOSE=2 -- ./tests/mpi/drift --seed 5 --calls 40 \
    --mode counts-v --max 200000 >"$HR_TMP/out" 2>"$HR_TMP/err" ||
    hr_fail "drift counts, no budget: $(cat "$HR_TMP/out" "$HR_TMP/err")"
grep -q '^drift: ok$' "$HR_TMP/out" || hr_fail "drift counts, no budget: $(cat "$HR_TMP/out")"
python3 - "$HR_TMP/err" <<'PY' || hr_fail "a tiny run after a waiting call: $(cat "$HR_TMP/err")"
import re, sys
events, why = [], ""
for line in open(sys.argv[1]):
    if line.startswith("hrelay: before gathering"):
        why = line
    elif line.startswith("hrelay: MPI_Alltoallv on"):
        data = re.search(r" (\d+) bytes sent", line).group(1) != "16"
        events.append({"data": data, "waiting": data and "waits for the budget" in why,
                       "run": False})
    elif " calls run MPI's algorithm unchecked" in line and events:
        events[-1]["run"] = True
pairs = [(a, b) for a, b in zip(events, events[1:]) if a["data"] and a["waiting"] and not b["data"]]
if not pairs:
    sys.exit("no data call waited for the budget before a counts call")
bad = sum(b["run"] for a, b in pairs)
if bad:
    sys.exit(f"{bad} of {len(pairs)} counts calls after a waiting data call started a run")
PY

# no plan can win (every plan step modeled at half a second): every call native, nothing
# gathered or planned, and the report counts the calls decided before gathering
for n in 2 4; do
    run_drift "$n" HRELAY_CONFIG="$HR_TMP/plan-never.cfg" HRELAY_REPORT="$r" HRELAY_VERBOSE=2 \
        -- ./tests/mpi/drift --seed 7 --calls 40 --mode random --max 4000 >/dev/null
    site=$(grep -o '"site": "drift.c:[0-9]* exchange"' "$r" | sed 's/"site": "//; s/"$//')
    [ -n "$site" ] || hr_fail "no drift.c site in the report: $(cat "$r")"
    [ "$(field "$r" "$site" calls)" = 40 ] || hr_fail "calls: $(cat "$r")"
    [ "$(field "$r" "$site" algorithms.native)" = 40 ] || hr_fail "not all native: $(cat "$r")"
    [ "$(field "$r" "$site" plans_computed)" = 0 ] || hr_fail "planned: $(cat "$r")"
    before=$(field "$r" "$site" decided_before_gather)
    unchecked=$(field "$r" "$site" unchecked)
    [ "$before" -ge 2 ] && [ $((before + unchecked)) = 40 ] ||
        hr_fail "decided before gathering $before, unchecked $unchecked of 40: $(cat "$r")"
    [ "$(field "$r" total decided_before_gather)" = "$before" ] || hr_fail "total: $(cat "$r")"
    if grep -q '^hrelay: new pattern on' "$HR_TMP/err"; then
        hr_fail "a pattern was gathered: $(cat "$HR_TMP/err")"
    fi
    grep -q "^hrelay: MPI_Alltoallv on $n ranks: native (decided before gathering)" \
        "$HR_TMP/err" || hr_fail "no call decided before gathering: $(cat "$HR_TMP/err")"
done

# plans modeled more than 30 times faster than MPI's algorithm on exchanges where they lose on
# this machine (a few KiB on 4 ranks), with the whole time as exploration budget: MPI's
# algorithm is measured first, then a plan runs (its family not measured yet, explored, once
# the budget covers it and the agreements of measuring it) and, measured, stops: the first
# family that ran runs at most three calls, all within five calls of its first, and plans
# (other families explored within the budget, when noise brings them close) run on a few
# calls only
ran=$(run_drift 4 HRELAY_CONFIG="$HR_TMP/native-30x.cfg" HRELAY_EXPLORE_BUDGET=100 \
    HRELAY_REPORT="$r" -- ./tests/mpi/drift \
    --seed 11 --calls 30 --mode random --max 1500)
set -- $ran
[ "$1" = native ] || hr_fail "the first call did not measure MPI's algorithm: $ran"
k=0 plans=0 first='' runs=0 last=-1 at=-1
for f in "$@"; do
    if [ "$f" != native ]; then
        plans=$((plans + 1))
        [ -n "$first" ] || at=$k
        first=${first:-$f}
    fi
    if [ -n "$first" ] && [ "$f" = "$first" ]; then
        runs=$((runs + 1))
        last=$k
    fi
    k=$((k + 1))
done
[ "$plans" -ge 1 ] || hr_fail "no plan ran although modeled 30 times faster: $ran"
[ "$runs" -le 3 ] && [ "$last" -le $((at + 4)) ] ||
    hr_fail "$first kept running ($runs calls from call $at, the last at call $last): $ran"
[ "$plans" -le 6 ] || hr_fail "plans ran on $plans of 30 calls: $ran"
exit 0
