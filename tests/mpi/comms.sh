#!/bin/bash
# Communicators and their context ids (tests/mpi/comms: duplicates of MPI_COMM_WORLD, two checked
# MPI_Alltoallv on each). hrelay takes a private duplicate only for a communicator that gathers
# a pattern, and at most SHIM_PRIVATE_MAX (128) at a time: a program of tiny exchanges creates as
# many communicators under hrelay as without it but one (hrelay's duplicate of MPI_COMM_SELF);
# with plans forced, the first 128 plan, the others run MPI's algorithm with one warning, and the
# program loses at most 128 communicators; communicators freed give their duplicates back. The
# report's communicators count the duplicates made (private) and refused (declined). Then
# communicators in turn, freed and replaced (handles reused): every byte right. Fresh
# communicators of one size with the same exchange: the second call of each after the first
# runs MPI's algorithm on the record's creation alone where the first settled on it (also where
# a family waited for the budget), never where one rank's part of the exchange changed, and not
# after a plan ran the exchange; on one node as with one rank per node. Communicators of one group inherit runs (lineages), and an
# exchange whose plans lost is not explored again on the next ones (plans made slow by
# libslow_sends.so).
. "${srcdir:-.}/tests/mpi/common.sh"
out=$HR_TMP/out
err=$HR_TMP/err

# comms LAUNCH N [VAR=VALUE ...] -- ARGS: runs comms on N ranks (LAUNCH: hr_run or
# hr_run_plain); sets communicators, direct, native, other and bad from rank 0's line.
comms() {
    local launch=$1
    local -a pre=()
    shift
    while [ "$1" != "--" ]; do
        pre+=("$1")
        shift
    done
    shift
    "$launch" "${pre[@]}" -- ./tests/mpi/comms "$@" >"$out" 2>"$err" || {
        cat "$out" "$err" >&2
        hr_fail "comms $*"
    }
    cat "$err" >&2
    local line
    line=$(grep '^communicators ' "$out") || hr_fail "comms $*: no result line"
    echo "$line" >&2
    # shellcheck disable=SC2034
    read -r _ communicators _ direct _ native _ other _ bad <<<"$line"
    [ "$bad" = 0 ] || hr_fail "comms $*: $bad wrong bytes or failed calls"
}
warnings() { grep -c "runs MPI's algorithm only" "$err"; }
r=$HR_TMP/report.json
# comms_field FIELD: the sum of FIELD over the report's communicators
comms_field() {
    python3 -c 'import json, sys
print(sum(c[sys.argv[2]] for c in json.load(open(sys.argv[1]))["communicators"]))' "$r" "$1" ||
        hr_fail "report: communicators' $1"
}

# without hrelay: how many communicators MPICH gives this program
comms hr_run_plain 2 -- hold 64
plain=$communicators
[ "$plain" -gt 200 ] || hr_fail "only $plain communicators without hrelay"

# tiny exchanges under auto: nothing gathered, no duplicate
comms hr_run 2 HRELAY_REPORT="$r" -- hold 64
[ "$(comms_field private)" = 0 ] || hr_fail "auto, 64 B: $(comms_field private) duplicates made"
[ "$communicators" -ge $((plain - 1)) ] ||
    hr_fail "auto, 64 B: $communicators communicators under hrelay, $plain without"
[ "$(warnings)" = 0 ] || hr_fail "auto, 64 B: a communicator was refused its duplicate"

# plans forced on every communicator: 128 plan, the rest run MPI's algorithm
comms hr_run 2 HRELAY_ALGO=direct HRELAY_REPORT="$r" -- hold 256
[ "$direct" = 128 ] || hr_fail "direct, held: $direct communicators ran direct, not 128"
[ "$native" = $((communicators - 128)) ] ||
    hr_fail "direct, held: $native of $communicators ran MPI's algorithm"
[ "$communicators" -ge $((plain - 1 - 128)) ] ||
    hr_fail "direct, held: $communicators communicators under hrelay, $plain without"
[ "$(warnings)" = 1 ] || hr_fail "direct, held: $(warnings) warnings, not 1"
[ "$(comms_field private)" = 128 ] && [ "$(comms_field declined)" = "$native" ] ||
    hr_fail "direct, held: report private $(comms_field private), declined $(comms_field declined)"

# freed communicators give their duplicates (and node communicators) back
comms hr_run 3 HRELAY_ALGO=direct -- cycle 300 256
[ "$direct" = 300 ] || hr_fail "direct, freed: $direct of 300 communicators ran direct"
[ "$(warnings)" = 0 ] || hr_fail "direct, freed: a communicator was refused its duplicate"
comms hr_run 4 HRELAY_ALGO=node-direct HRELAY_NODE_SIZE=2 -- cycle 200 256
[ "$other" = 200 ] || hr_fail "node-direct, freed: $other of 200 communicators ran node-direct"
[ "$(warnings)" = 0 ] || hr_fail "node-direct, freed: a communicator was refused its duplicate"
# more communicators called in turn than a thread remembers with their records (4), one freed
# after each round and replaced by one of the other size, which takes the freed handle: every
# byte right, with tiny exchanges under auto (the unchecked path) and with plans forced
for run in "3 auto 16" "4 auto 16" "3 direct 64"; do
    # shellcheck disable=SC2086 # ranks, algorithm, bytes
    set -- $run
    hr_run "$1" HRELAY_ALGO="$2" -- ./tests/mpi/comms turns 6 24 "$3" >"$out" 2>"$err" ||
        hr_fail "comms turns on $1 ranks, $2: $(cat "$out" "$err")"
    grep -q '^turns 6 rounds 24 bad 0$' "$out" ||
        hr_fail "comms turns on $1 ranks, $2: $(cat "$out" "$err")"
done

# fresh communicators of one size making the same exchange at one site, as a benchmark's runs
# (one rank per node: HRELAY_NODE_SIZE=1; MPI's algorithm settled by a model that makes plans
# slow; MPI_COMM_WORLD's lineage off, HRELAY_INHERIT=0, which the last blocks test): from the
# second communicator on, the second call runs MPI's algorithm on its record's
# creation alone (src/shim/settled.c; the log says so once per communicator), never where one
# rank's part of the exchange changes between communicators (every rank must agree on it); every
# byte right
cat >"$HR_TMP/plan-never.cfg" <<'CFG'
step_s = 0.5
native_percent = 0
CFG
settled() { grep -c "the first call again, settled on MPI's algorithm on an earlier communicator" "$err"; }
drifted() { grep -c "whose drifting calls of its size settled on MPI's algorithm" "$err"; }
for run in "2 0 4" "3 0 4" "3 64 0" "4 64 0"; do
    # shellcheck disable=SC2086 # ranks, step, expected count
    set -- $run
    hr_run "$1" HRELAY_NODE_SIZE=1 HRELAY_INHERIT=0 HRELAY_VERBOSE=2 HRELAY_CONFIG="$HR_TMP/plan-never.cfg" -- \
        ./tests/mpi/comms fresh 5 12 8192 "$2" >"$out" 2>"$err" ||
        hr_fail "comms fresh on $1 ranks, step $2: $(cat "$out" "$err")"
    grep -q '^fresh 5 calls 12 bad 0$' "$out" ||
        hr_fail "comms fresh on $1 ranks, step $2: $(cat "$out" "$err")"
    [ "$(settled)" = "$3" ] ||
        hr_fail "comms fresh on $1 ranks, step $2: $(settled) second calls settled, not $3: $(cat "$err")"
    [ "$(drifted)" = 0 ] || hr_fail "comms fresh on $1 ranks, step $2: taken for drifting: $(cat "$err")"
done
# all ranks on one node (HRELAY_NODE_SIZE=auto, this machine): decided as one rank per node from
# the creation on, so the same (before, the creation took one node as within its node and started
# a run of 8 unchecked calls, which its agreements then did not; nothing was remembered)
hr_run 2 HRELAY_INHERIT=0 HRELAY_VERBOSE=2 HRELAY_CONFIG="$HR_TMP/plan-never.cfg" -- \
    ./tests/mpi/comms fresh 5 12 8192 0 >"$out" 2>"$err" ||
    hr_fail "comms fresh on one node: $(cat "$out" "$err")"
grep -q '^fresh 5 calls 12 bad 0$' "$out" || hr_fail "comms fresh on one node: $(cat "$out" "$err")"
[ "$(settled)" = 4 ] ||
    hr_fail "comms fresh on one node: $(settled) second calls settled, not 4: $(cat "$err")"
! grep -q "leaves its node" "$err" ||
    hr_fail "comms fresh on one node: a run for a call within its node: $(cat "$err")"
# a plan that runs the call makes the process forget it: the third communicator agrees its
# second call again (and settles it anew), the fourth finds it
hr_run 3 HRELAY_NODE_SIZE=1 HRELAY_INHERIT=0 HRELAY_VERBOSE=2 HRELAY_CONFIG="$HR_TMP/plan-never.cfg" -- \
    ./tests/mpi/comms fresh 4 12 8192 0 2 >"$out" 2>"$err" ||
    hr_fail "comms fresh, the second forced: $(cat "$out" "$err")"
grep -q '^fresh 4 calls 12 bad 0$' "$out" || hr_fail "comms fresh, the second forced: $(cat "$out" "$err")"
[ "$(settled)" = 1 ] ||
    hr_fail "comms fresh, the second forced: $(settled) second calls settled, not 1: $(cat "$err")"
# the same call where a family waits for the budget (the built-in costs, 1 MiB per rank, no
# budget: HRELAY_EXPLORE_BUDGET=0), no plan having run: remembered with the run that started (or
# what an agreement is worth, if shorter), so the four later communicators decide their second
# call on the creation alone; with the remembered calls' times taught, every agreement starts a
# run, the first communicator agrees at most twice and each later one at most once (before: none
# remembered, 10 agreements, two per communicator). How long the runs are follows the measured
# times (on a loaded machine a later communicator's remembered run of 8 - 21 calls ends before
# its 24 calls, and it agrees once more), so the counts are bounds per communicator, not a total
for n in 2 3; do
    hr_run "$n" HRELAY_NODE_SIZE=1 HRELAY_EXPLORE_BUDGET=0 HRELAY_INHERIT=0 HRELAY_VERBOSE=2 -- \
        ./tests/mpi/comms fresh 5 24 1048576 0 >"$out" 2>"$err" ||
        hr_fail "comms fresh, waiting, on $n ranks: $(cat "$out" "$err")"
    grep -q '^fresh 5 calls 24 bad 0$' "$out" ||
        hr_fail "comms fresh, waiting, on $n ranks: $(cat "$out" "$err")"
    grep -q "waits for the budget" "$err" ||
        hr_fail "comms fresh, waiting, on $n ranks: no family waited for the budget: $(cat "$err")"
    [ "$(settled)" = 4 ] ||
        hr_fail "comms fresh, waiting, on $n ranks: $(settled) second calls settled, not 4: $(cat "$err")"
    [ "$(drifted)" = 0 ] || hr_fail "comms fresh, waiting, on $n ranks: taken for drifting: $(cat "$err")"
    python3 - "$err" <<'PY' || hr_fail "comms fresh, waiting, on $n ranks: $(cat "$err")"
import sys
lines = [l for l in open(sys.argv[1]) if l.startswith("hrelay: ")]
comms, run_open = [0], True
for l in lines:
    if "settled on MPI's algorithm on an earlier communicator of its size" in l:
        comms.append(0)
    elif l.startswith("hrelay: before gathering on"):
        if not run_open:
            sys.exit("an agreement that started no run (MPI's time not taught)")
        comms[-1] += 1
        run_open = False
    elif " calls run MPI's algorithm unchecked" in l:
        run_open = True
if not run_open:
    sys.exit("the last agreement started no run")
if comms[0] > 2 or any(a > 1 for a in comms[1:]):
    sys.exit(f"agreements per communicator {comms}: more than 2 on the first or 1 on a later one")
PY
done
# the same with counts that change on every call (a sample sort's new splitters): the site's
# drifting calls are remembered settled, in their size class, from the second communicator on
# (4 of 5, on one node too); where the last rank sends 32 KiB more per pair on each
# communicator, the size class of the first three differs from the one before, so only the
# fourth and fifth find it (2); a plan on the second of four makes the third agree (1)
for run in "2 1 0 5 0 4" "3 1 0 5 0 4" "2 auto 0 5 0 4" "2 1 32768 5 0 2" "3 1 32768 5 0 2" \
    "3 1 0 4 2 1"; do
    # shellcheck disable=SC2086 # ranks, node size, step, communicators, forced, expected count
    set -- $run
    hr_run "$1" HRELAY_NODE_SIZE="$2" HRELAY_INHERIT=0 HRELAY_VERBOSE=2 HRELAY_CONFIG="$HR_TMP/plan-never.cfg" -- \
        ./tests/mpi/comms fresh "$4" 12 8192 "$3" "$5" 1 >"$out" 2>"$err" ||
        hr_fail "comms fresh drifting ($run): $(cat "$out" "$err")"
    grep -q "^fresh $4 calls 12 bad 0\$" "$out" || hr_fail "comms fresh drifting ($run): $(cat "$out" "$err")"
    [ "$(drifted)" = "$6" ] ||
        hr_fail "comms fresh drifting ($run): $(drifted) second calls settled, not $6: $(cat "$err")"
    [ "$(settled)" = 0 ] || hr_fail "comms fresh drifting ($run): taken for the same call: $(cat "$err")"
done
# drifting calls that run MPI's algorithm while a family waits for the budget (the built-in
# costs, 1 MiB per rank, no budget: HRELAY_EXPLORE_BUDGET=0): the first communicator's first
# waiting call (its third, after MPI's algorithm was measured at its second) starts the run at
# once, bounded by the budget (exchange_native.c shim_update_quiet), and the site is remembered
# with that run (or what an agreement is worth, if shorter), so the other four communicators
# decide their second call on the creation alone, whose time teaches the check after its run
# of at least 8 calls: that check never finds MPI's algorithm not measured at the size (only
# the first communicator's second call does; before, every communicator's check after the run
# did, and the next call decided the run: two allreduces, not one); a family waited for the
# budget when the site was remembered, so that check is not decided by the site's settlement
# (it may explore); the first agrees 3 times, all at most 11 over 24 calls each (lines "before
# gathering"; without the memory 15 over 12)
for n in 2 3; do
    hr_run "$n" HRELAY_NODE_SIZE=1 HRELAY_EXPLORE_BUDGET=0 HRELAY_INHERIT=0 HRELAY_VERBOSE=2 -- \
        ./tests/mpi/comms fresh 5 24 1048576 0 0 1 >"$out" 2>"$err" ||
        hr_fail "comms fresh drifting, waiting, on $n ranks: $(cat "$out" "$err")"
    [ "$(grep -c "MPI's algorithm not measured yet at this size" "$err")" = 1 ] ||
        hr_fail "comms fresh drifting, waiting, on $n ranks: MPI's algorithm not measured after a remembered run: $(cat "$err")"
    ! grep -q "its site's drifting calls of its size settled on MPI's algorithm on an earlier communicator" "$err" ||
        hr_fail "comms fresh drifting, waiting, on $n ranks: a check decided by a settlement where a family waited: $(cat "$err")"
    grep -q "^fresh 5 calls 24 bad 0\$" "$out" ||
        hr_fail "comms fresh drifting, waiting, on $n ranks: $(cat "$out" "$err")"
    [ "$(drifted)" = 4 ] ||
        hr_fail "comms fresh drifting, waiting, on $n ranks: $(drifted) second calls settled, not 4: $(cat "$err")"
    python3 - "$err" <<'PY' || hr_fail "comms fresh drifting, waiting, on $n ranks: $(cat "$err")"
import sys
lines = [l for l in open(sys.argv[1]) if l.startswith("hrelay: ")]
agreed = [i for i, l in enumerate(lines) if l.startswith("hrelay: before gathering")]
if len(agreed) > 11:
    sys.exit(f"{len(agreed)} agreed calls, more than 11")
if "waits for the budget" not in lines[agreed[1]]:
    sys.exit("the first communicator's third call does not wait for the budget")
if " calls run MPI's algorithm unchecked" not in lines[agreed[1] + 2]:
    sys.exit("the first waiting call starts no run")
PY
done
# drifting calls of 1 MiB per rank that no plan can win (plans made slow; 8 KiB calls can be
# too small to try plans by their time): where no family waited, the check after a remembered
# run explores nothing and says why (at least one such check; here one on each of the four
# later communicators of 100 calls), and MPI's algorithm is unmeasured only at the first
# communicator's second call (the remembered call's time taught)
for n in 2 3; do
    hr_run "$n" HRELAY_NODE_SIZE=1 HRELAY_INHERIT=0 HRELAY_VERBOSE=2 HRELAY_CONFIG="$HR_TMP/plan-never.cfg" -- \
        ./tests/mpi/comms fresh 5 100 1048576 0 0 1 >"$out" 2>"$err" ||
        hr_fail "comms fresh drifting, settled, on $n ranks: $(cat "$out" "$err")"
    grep -q "^fresh 5 calls 100 bad 0\$" "$out" ||
        hr_fail "comms fresh drifting, settled, on $n ranks: $(cat "$out" "$err")"
    grep -q "its site's drifting calls of its size settled on MPI's algorithm on an earlier communicator: runs native" "$err" ||
        hr_fail "comms fresh drifting, settled, on $n ranks: no check decided by the site's settlement: $(cat "$err")"
    [ "$(grep -c "MPI's algorithm not measured yet at this size" "$err")" = 1 ] ||
        hr_fail "comms fresh drifting, settled, on $n ranks: MPI's algorithm not measured after a remembered run: $(cat "$err")"
done
# lineages (src/shim/lineage.c): duplicates of MPI_COMM_WORLD making a tiny
# exchange (too small to explore: the first agreement starts a run of 64 unchecked calls); the
# next HRELAY_INHERIT duplicates start with that run, without any agreement in their 12 calls,
# then one agrees its second call again (and starts the run anew): of 9 duplicates 6 inherit
# with the default 3, 4 with 1, none with 0; every byte right on every rank (a rank deciding
# otherwise would leave the others' allreduce unmatched)
inherited() { grep -c "of its group's lineage: the first 65 calls run MPI's algorithm unchecked" "$err"; }
created() { grep -c "too small to explore" "$err"; }
for run in "2 - 6 3" "3 - 6 3" "2 1 4 5" "3 0 0 9"; do
    # shellcheck disable=SC2086 # ranks, HRELAY_INHERIT (-: default), inheriting, agreeing
    set -- $run
    inherit=
    [ "$2" = - ] || inherit="HRELAY_INHERIT=$2"
    # shellcheck disable=SC2086 # the setting, if any
    hr_run "$1" HRELAY_NODE_SIZE=1 HRELAY_VERBOSE=2 $inherit -- \
        ./tests/mpi/comms fresh 9 12 128 0 >"$out" 2>"$err" ||
        hr_fail "comms lineage ($run): $(cat "$out" "$err")"
    grep -q '^fresh 9 calls 12 bad 0$' "$out" || hr_fail "comms lineage ($run): $(cat "$out" "$err")"
    [ "$(inherited)" = "$3" ] ||
        hr_fail "comms lineage ($run): $(inherited) duplicates inherited, not $3: $(cat "$err")"
    [ "$(created)" = "$4" ] ||
        hr_fail "comms lineage ($run): $(created) second calls agreed, not $4: $(cat "$err")"
done
# a plan that runs on a duplicate (the second, hrelay_set_algorithm direct) forgets the run: the
# third agrees its second call, the next three inherit, the seventh agrees, the eighth inherits
hr_run 3 HRELAY_NODE_SIZE=1 HRELAY_VERBOSE=2 -- ./tests/mpi/comms fresh 8 12 128 0 2 >"$out" 2>"$err" ||
    hr_fail "comms lineage, the second forced: $(cat "$out" "$err")"
grep -q '^fresh 8 calls 12 bad 0$' "$out" || hr_fail "comms lineage, the second forced: $(cat "$out" "$err")"
[ "$(inherited)" = 4 ] && [ "$(created)" = 3 ] ||
    hr_fail "comms lineage, the second forced: $(inherited) inherited, $(created) agreed: $(cat "$err")"
# communicators of one group that MPI_Comm_split makes are a lineage too (rank 0 logs its
# own): the group of MPI_COMM_WORLD again (split 1, 2 and 3 ranks), the even ranks (split 2,
# 4 ranks), two groups in turn (mix: {0, 2} and {0, 1} on rank 0, each of its 5 and 4
# communicators: 3 + 3 inherit, 2 + 1 agree); with full lineage tables (full, 5 ranks) rank 0
# finds no lineage for {0, 1} and rank 1 does: none inherits (one that did would leave the
# other's allreduce unmatched: a hang)
for run in "2 1 9 6 3" "3 1 9 6 3" "4 2 9 6 3" "4 mix 9 6 3" "5 full 24 0 24"; do
    # shellcheck disable=SC2086 # ranks, COMMS_SPLIT, communicators, inheriting, agreeing
    set -- $run
    hr_run "$1" HRELAY_NODE_SIZE=1 HRELAY_VERBOSE=2 COMMS_SPLIT="$2" -- \
        ./tests/mpi/comms fresh "$3" 12 128 0 >"$out" 2>"$err" ||
        hr_fail "comms lineage, split $run: $(cat "$out" "$err")"
    grep -q "^fresh $3 calls 12 bad 0\$" "$out" || hr_fail "comms lineage, split $run: $(cat "$out" "$err")"
    [ "$(inherited)" = "$4" ] && [ "$(created)" = "$5" ] ||
        hr_fail "comms lineage, split $run: $(inherited) inherited, $(created) agreed: $(cat "$err")"
done
# calls whose plans lost (src/shim/lost.c): fresh duplicates making the same exchange of 1 MiB
# per rank, plans made slow (libslow_sends.so delays each of their sends by 3 ms; MPI's own
# exchange is not) and exploring always allowed (HRELAY_EXPLORE_BUDGET=100), so that without
# the memory every duplicate gathers the pattern and measures the slow plan (10 of 10): the
# first two duplicates' plans lose and the process remembers the call, so the next duplicates'
# agreements run MPI's algorithm without gathering, for 4 checks, then one explores again and,
# losing again, is remembered for 8 (3 or 4 of 10 gather, at most 6 allowed; the checks each
# duplicate makes depend on the machine's times); a remembered duplicate's second call is
# decided by its record's creation alone (at least one), and its time teaches the next check
# (which then never finds MPI's algorithm not measured at the size); every byte right on every
# rank (a rank deciding otherwise would leave the others' collectives unmatched)
gathered() { grep -c "^hrelay: new pattern on" "$err"; }
noted() { grep -c "every plan measured on this pattern lost to MPI's algorithm" "$err"; }
found() { grep -c "its plans lost to MPI's algorithm on an earlier communicator" "$err"; }
second() { grep -c "the first call again, whose plans lost to MPI's algorithm on an earlier" "$err"; }
unmeasured() { grep -c "MPI's algorithm not measured yet at this size" "$err"; }
for n in 2 3; do
    hr_run_plain "$n" LD_PRELOAD="$HRELAY_SLOW_SENDS:$HRELAY_LIB" HRELAY_EXPLORE_BUDGET=100 \
        HRELAY_VERBOSE=2 -- ./tests/mpi/comms fresh 10 20 $((1048576 / n)) 0 >"$out" 2>"$err" ||
        hr_fail "comms lost on $n ranks: $(cat "$out" "$err")"
    grep -q '^fresh 10 calls 20 bad 0$' "$out" || hr_fail "comms lost on $n ranks: $(cat "$out" "$err")"
    what="$(gathered) gathered, $(noted) remembered, $(found) checks and $(second) second calls decided, $(unmeasured) unmeasured"
    echo "lost on $n ranks: $what" >&2
    [ "$(gathered)" -ge 2 ] && [ "$(gathered)" -le 6 ] && [ "$(noted)" -ge 2 ] &&
        [ "$(found)" -ge 2 ] && [ "$(second)" -ge 1 ] && [ "$(unmeasured)" -eq 0 ] ||
        hr_fail "comms lost on $n ranks: $what: $(cat "$err")"
done
exit 0
