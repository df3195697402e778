#!/bin/bash
# The plan cache, call sites, unchecked native runs and calibration files, from the report of
# tests/mpi/sites (which compares every result with PMPI itself):
#  - two sites with two fixed patterns: two entries named sites.c:LINE, one plan each, every
#    later call a cache hit; with a cache of one slot every call plans again;
#  - a pattern that changes on one rank only is never served from the cache;
#  - tiny exchanges run unchecked (no agreement) once native is decided, and a large pattern at
#    another site is still planned within HRELAY_RECHECK calls; a pattern left to MPI runs
#    unchecked from its second call in a row on, but a tiny one alternating with a planned
#    one never starts an unchecked run;
#  - the calibration file (HRELAY_CONFIG) is reported and changes the decision;
#  - under HRELAY_ALGO=native every call runs unchecked without reusing a decision (no cache
#    hit), counted at its own site (the entry points' common case, src/shim/quiet.h).
. "${srcdir:-.}/tests/mpi/common.sh"
field() { python3 "${srcdir:-.}/tests/mpi/report_field.py" "$@" || hr_fail "report: $*"; }
expect() { # expect WHAT GOT WANT
    [ "$2" = "$3" ] || hr_fail "$1: got $2, expected $3"
}
at_least() { # at_least WHAT GOT MIN
    [ "$2" -ge "$3" ] || hr_fail "$1: got $2, expected at least $3"
}
line() { sed -n "s/^sites: $1 line //p" "$HR_TMP/out"; }
r=$HR_TMP/report.json

for n in 1 3 4; do
    hr_run "$n" HRELAY_ALGO=direct HRELAY_REPORT="$r" -- ./tests/mpi/sites two 12 \
        >"$HR_TMP/out" || hr_fail "two sites on $n ranks: $(cat "$HR_TMP/out")"
    for s in A B; do
        site="sites.c:$(line $s) "
        expect "$s calls ($n ranks)" "$(field "$r" "$site" calls)" 12
        expect "$s direct ($n ranks)" "$(field "$r" "$site" algorithms.direct)" 12
        expect "$s plans ($n ranks)" "$(field "$r" "$site" plans_computed)" 1
        expect "$s hits ($n ranks)" "$(field "$r" "$site" cache_hits)" 11
    done
done

hr_run 3 HRELAY_ALGO=direct HRELAY_CACHE_SIZE=1 HRELAY_REPORT="$r" -- ./tests/mpi/sites two 6 \
    >"$HR_TMP/out" || hr_fail "cache of one slot: $(cat "$HR_TMP/out")"
expect "plans with one slot" "$(field "$r" total plans_computed)" 12
expect "hits with one slot" "$(field "$r" total cache_hits)" 0

for n in 2 4; do
    hr_run "$n" HRELAY_ALGO=direct HRELAY_REPORT="$r" -- ./tests/mpi/sites change 10 \
        >"$HR_TMP/out" || hr_fail "changing pattern on $n ranks: $(cat "$HR_TMP/out")"
    site="sites.c:$(line C) "
    expect "changing pattern: plans ($n ranks)" "$(field "$r" "$site" plans_computed)" 2
    expect "changing pattern: hits ($n ranks)" "$(field "$r" "$site" cache_hits)" 8
done

# Costs under which tiny exchanges are best left to MPI (an agreement costs 4 ms) and large
# ones are not (MPI's concurrent exchange is modeled 10 times slower than the bound).
cat >"$HR_TMP/plan-big.cfg" <<'CFG'
# test calibration: agreements are expensive, the native exchange of large data more so
alpha_s = 0.001
gap_s = 1e-6
beta_s_per_byte = 1e-9
native_percent = 1000
step_s = 1e-6
CFG
# ... and costs under which every plan step is too expensive to beat MPI
cat >"$HR_TMP/plan-never.cfg" <<'CFG'
step_s = 0.5
native_percent = 0
CFG
hr_run 3 HRELAY_NODE_SIZE=1 HRELAY_TUNE=0 HRELAY_RECHECK=16 HRELAY_CONFIG="$HR_TMP/plan-big.cfg" \
    HRELAY_REPORT="$r" -- ./tests/mpi/sites quiet 60 >"$HR_TMP/out" ||
    hr_fail "quiet run: $(cat "$HR_TMP/out")"
# sites D and E are fixed lines of sites.c: every later run reports them under these names
d="sites.c:$(line D) " e="sites.c:$(line E) "
expect "tiny: native" "$(field "$r" "$d" algorithms.native)" 60
at_least "tiny: unchecked" "$(field "$r" "$d" unchecked)" 40
at_least "large: direct" "$(field "$r" "$e" algorithms.direct)" 44
[ "$(field "$r" "$e" algorithms.native)" -le 16 ] || hr_fail "large: native beyond HRELAY_RECHECK"
expect "calibration reported" "$(field "$r" config calibration)" "$HR_TMP/plan-big.cfg"
expect "calibrated alpha" "$(field "$r" config cost.alpha_s)" 0.001
expect "calibrated native penalty" "$(field "$r" config cost.native_percent)" 1000

hr_run 3 HRELAY_TUNE=0 HRELAY_CONFIG="$HR_TMP/plan-never.cfg" HRELAY_REPORT="$r" -- \
    ./tests/mpi/sites quiet 20 >"$HR_TMP/out" || hr_fail "never: $(cat "$HR_TMP/out")"
expect "large under plan-never.cfg: native" "$(field "$r" "$e" algorithms.native)" 20

# a pattern that MPI's algorithm keeps (learning on): its first call measures MPI's
# algorithm, its second (the previous agreed call again, settled) starts a run of 8 unchecked
# calls at once, where two settled calls of different patterns would need a third agreed one
# (src/shim/exchange_native.c, shim_update_quiet): 8 of site E's 10 calls unchecked (runs of
# at most 8 calls here, so that site D's run, below, ends with D's calls); site D's tiny
# pattern, the communicator's first calls, runs its first call unchecked (its record's
# creation agreed that no rank moves 4 KiB), agrees its second and leaves the next 8
# unchecked: 9 of 10
hr_run 3 HRELAY_NODE_SIZE=1 HRELAY_RECHECK=8 HRELAY_CONFIG="$HR_TMP/plan-never.cfg" \
    HRELAY_REPORT="$r" -- ./tests/mpi/sites quiet 10 >"$HR_TMP/out" ||
    hr_fail "again: $(cat "$HR_TMP/out")"
expect "repeated large pattern: native" "$(field "$r" "$e" algorithms.native)" 10
expect "repeated large pattern: unchecked" "$(field "$r" "$e" unchecked)" 8
expect "repeated tiny pattern: unchecked" "$(field "$r" "$d" unchecked)" 9

# a pattern too small to explore (site D, 8 bytes per pair) that repeats starts the longest
# run at once (64 calls; a run is the same on every rank whatever the calls, so it covers
# site E's 10 calls too, which MPI then runs unchecked; D's first call, the communicator's,
# runs unchecked as well: 9 of D's 10)
hr_run 3 HRELAY_NODE_SIZE=1 HRELAY_CONFIG="$HR_TMP/plan-never.cfg" HRELAY_REPORT="$r" -- \
    ./tests/mpi/sites quiet 10 >"$HR_TMP/out" || hr_fail "tiny run: $(cat "$HR_TMP/out")"
expect "tiny pattern's run: D unchecked" "$(field "$r" "$d" unchecked)" 9
expect "tiny pattern's run: E unchecked" "$(field "$r" "$e" unchecked)" 10

# a tiny pattern (settled: MPI's) alternating with a large one that runs a plan: the tiny one
# repeats its site's pattern but is never the previous agreed call again, so no unchecked run
# starts and swallows the planned calls: every large call but the first (decided before
# gathering: the gather spread over one call) runs its plan, no call runs unchecked but the
# tiny one's first (the communicator's first, too small to explore on every rank: it stands
# for an agreed call and starts no run)
hr_run 3 HRELAY_NODE_SIZE=1 HRELAY_TUNE=0 HRELAY_CONFIG="$HR_TMP/plan-big.cfg" \
    HRELAY_REPORT="$r" -- ./tests/mpi/sites mixed 12 >"$HR_TMP/out" ||
    hr_fail "mixed: $(cat "$HR_TMP/out")"
at_least "mixed: large planned" "$(field "$r" "$e" algorithms.direct)" 11
expect "mixed: large unchecked" "$(field "$r" "$e" unchecked)" 0
expect "mixed: tiny unchecked" "$(field "$r" "$d" unchecked)" 1

hr_run 3 HRELAY_ALGO=native HRELAY_REPORT="$r" -- ./tests/mpi/sites quiet 40 >"$HR_TMP/out" ||
    hr_fail "native: $(cat "$HR_TMP/out")"
for s in D E; do
    site="sites.c:$(line $s) "
    expect "native $s: calls" "$(field "$r" "$site" calls)" 40
    expect "native $s: native" "$(field "$r" "$site" algorithms.native)" 40
    expect "native $s: hits" "$(field "$r" "$site" cache_hits)" 0
    expect "native $s: unchecked" "$(field "$r" "$site" unchecked)" 0
done
exit 0
