#!/bin/bash
# The environment and the report: the report counts what actually ran (HRELAY_ALGO=native ->
# "native" only; the other families: tests/mpi/families.sh); a plan needing more staging than
# HRELAY_MAX_STAGING on some rank falls back to direct on every rank, the results stay right
# and the report and the verbose lines name direct; HRELAY_DISABLE=1 is a pure pass-through
# (no report, no dump); invalid values give one warning each, on rank 0 only, and the
# defaults; the settings in effect appear in the report's config; rank 0's environment wins
# when the ranks' environments differ; HRELAY_DUMP writes each distinct plan once;
# HRELAY_VERBOSE prints on rank 0. compare checks the report itself (--expect).
. "${srcdir:-.}/tests/mpi/common.sh"
cmp_args=(--seed "$HRELAY_TEST_SEED" --cases 8)
r=$HR_TMP/report.json

# native: every call counted as native, none as direct
hr_run 3 HRELAY_ALGO=native HRELAY_REPORT="$r" -- \
    ./tests/mpi/compare "${cmp_args[@]}" --report "$r" --expect native || hr_fail "native"
grep -q '"algo": "native"' "$r" || hr_fail "config of the native run: $(cat "$r")"

# staging over the limit: every call whose transpose plan makes some rank hold data (here all
# but the few without forwarding) runs direct instead, announced on rank 0 and counted as
# direct; each announcement is followed by the call's line naming direct, and no transpose call
# holds staging
hr_run 4 HRELAY_ALGO=transpose HRELAY_GRAIN=3 HRELAY_MAX_STAGING=0 HRELAY_VERBOSE=2 \
    HRELAY_REPORT="$r" -- ./tests/mpi/compare --seed "$HRELAY_TEST_SEED" --cases 16 \
    --report "$r" --expect direct,transpose 2>"$HR_TMP/err" || hr_fail "staging limit 0"
grep -q '"max_staging_bytes": 0,' "$r" || hr_fail "config: $(cat "$r")"
fallbacks=$(grep -c 'over HRELAY_MAX_STAGING=0; not used$' "$HR_TMP/err")
[ "$fallbacks" -ge 1 ] || hr_fail "no fallback announced: $(cat "$HR_TMP/err")"
awk '/over HRELAY_MAX_STAGING=0; not used$/ { want = 1; next }
     want && !/ on [0-9]+ ranks: direct \(new pattern\), / { bad = 1 }
     { want = 0 }
     / ranks: transpose .* [1-9][0-9]* staging bytes on this rank/ { bad = 1 }
     END { exit bad }' "$HR_TMP/err" || hr_fail "a call over the limit did not run direct: $(cat "$HR_TMP/err")"

# a limit some plans fit under (forward holds 1..10 bytes here): both families run, results
# right
hr_run 5 HRELAY_ALGO=forward HRELAY_PACKET=64 HRELAY_MAX_STAGING=4 HRELAY_REPORT="$r" -- \
    ./tests/mpi/compare --seed "$HRELAY_TEST_SEED" --cases 16 --report "$r" \
    --expect forward,direct || hr_fail "staging limit 4"
grep -q '"packet_bytes": 64, "max_staging_bytes": 4,' "$r" || hr_fail "config: $(cat "$r")"
grep -q '"direct": [1-9]' "$r" || hr_fail "no call over the limit of 4 bytes: $(cat "$r")"

# disabled: results right, no report, no dump directory
hr_run 3 HRELAY_DISABLE=1 HRELAY_REPORT="$HR_TMP/none.json" HRELAY_DUMP="$HR_TMP/nodump" -- \
    ./tests/mpi/compare "${cmp_args[@]}" --report "$HR_TMP/none.json" --expect none ||
    hr_fail "disabled"
[ ! -e "$HR_TMP/nodump" ] || hr_fail "HRELAY_DISABLE=1 created the dump directory"

# invalid values: one warning per variable from rank 0, defaults in effect
bad=(HRELAY_ALGO=bogus HRELAY_VERBOSE=7 HRELAY_MIN_STEP=12Q HRELAY_WINDOW=0
    HRELAY_DISABLE=maybe HRELAY_GRAIN=0 HRELAY_PACKET=1X HRELAY_MAX_STAGING=-1
    HRELAY_MAX_PLAN=0 HRELAY_CACHE_SIZE=62 HRELAY_TUNE=x HRELAY_TUNE_MARGIN=-5 HRELAY_EXPLORE_BUDGET=101
    HRELAY_RECHECK=abc HRELAY_INHERIT=-3 HRELAY_SITE_DEPTH=9 HRELAY_ALPHA=-1 HRELAY_BETA=fast
    HRELAY_DUPLEX=quarter HRELAY_NODE_SIZE=0 HRELAY_NODE_STEPS=-1 HRELAY_NODE_SYNC=2 HRELAY_RANK_SYNC=on
    HRELAY_NODE_JOIN=7Z HRELAY_NODE_SHM=2 HRELAY_CONFIG="$HR_TMP/no-such-file")
for name in $HR_SETTINGS; do # every setting the library reads (paths: only too long)
    case " ${bad[*]} " in
        *" $name="*) ;;
        *) [ "$name" = HRELAY_REPORT ] || [ "$name" = HRELAY_DUMP ] ||
            hr_fail "no invalid value of $name in this test" ;;
    esac
done
hr_run 3 "${bad[@]}" HRELAY_REPORT="$r" -- \
    ./tests/mpi/compare "${cmp_args[@]}" --report "$r" --expect any 2>"$HR_TMP/err" ||
    hr_fail "invalid values"
cat "$HR_TMP/err"
[ "$(grep -c '^hrelay: warning:' "$HR_TMP/err")" = ${#bad[@]} ] ||
    hr_fail "expected ${#bad[@]} warnings"
for v in "${bad[@]}"; do
    grep -q "^hrelay: warning: $v " "$HR_TMP/err" || hr_fail "no warning for $v"
done
grep -q '"config": {"algo": "auto", "min_step_bytes": "auto", "window": 32, "verbose": 0,' "$r" ||
    hr_fail "defaults not in effect: $(cat "$r")"
grep -q '"node_sync": "auto", "node_join_bytes": "auto", "node_shm": 0, "rank_sync": 0,' "$r" ||
    hr_fail "node defaults not in effect: $(cat "$r")"
grep -q '"grain_bytes": null, "packet_bytes": 65536, "max_staging_bytes": 268435456, "max_plan_segments": 8388608, "cache_size": 16, "tune": 3, "tune_margin_percent": 50, "explore_budget_percent": 2, "recheck": 256, "inherit": 3, "site_depth": 1, "calibration": null, "cost": {"alpha_s": 5e-06, "gap_s": 1e-06, "beta_s_per_byte": 1e-09,' "$r" ||
    hr_fail "defaults not in effect: $(cat "$r")"

# valid settings appear in the config (K suffix, window 1) and the results stay right
hr_run 3 HRELAY_ALGO=direct HRELAY_MIN_STEP=64K HRELAY_WINDOW=1 HRELAY_NODE_JOIN=2K \
    HRELAY_REPORT="$r" -- \
    ./tests/mpi/compare "${cmp_args[@]}" --report "$r" --expect direct || hr_fail "min step"
grep -q '"min_step_bytes": 65536, "window": 1,' "$r" || hr_fail "config: $(cat "$r")"
grep -q '"node_join_bytes": 2048,' "$r" || hr_fail "config: $(cat "$r")"

# a divergent environment: rank 0 says native, the others nothing; rank 0's setting is used
timeout "$HRELAY_TEST_TIMEOUT" "$MPIEXEC" -genv UCX_TLS self,sm -genv LD_PRELOAD "$HRELAY_LIB" \
    -genv HRELAY_REPORT "$r" \
    -n 1 -env HRELAY_ALGO native ./tests/mpi/compare "${cmp_args[@]}" --report "$r" \
    --expect native : -n 2 ./tests/mpi/compare "${cmp_args[@]}" 2>"$HR_TMP/err" ||
    hr_fail "divergent environment"
grep -q '^hrelay: warning: the HRELAY_\* environment differs between ranks' "$HR_TMP/err" ||
    hr_fail "no divergence warning: $(cat "$HR_TMP/err")"

# dumps: plan files with the algorithm; a second identical run adds no file
d=$HR_TMP/plans
hr_run 4 HRELAY_ALGO=direct HRELAY_DUMP="$d" -- ./tests/mpi/compare "${cmp_args[@]}" ||
    hr_fail "dump run"
n1=$(ls "$d"/plan-*.json | wc -l)
[ "$n1" -ge 1 ] || hr_fail "no plan written to $d"
for f in "$d"/plan-*.json; do
    grep -q '"algorithm": "direct"' "$f" || hr_fail "$f has no direct algorithm"
done
hr_run 4 HRELAY_ALGO=direct HRELAY_DUMP="$d" -- ./tests/mpi/compare "${cmp_args[@]}" ||
    hr_fail "dump run 2"
n2=$(ls "$d" | wc -l)
[ "$n1" = "$n2" ] || hr_fail "the same plans were written again ($n1 files, then $n2)"

# verbose: the start-up and summary lines once (rank 0), per-call lines at level 2
hr_run 3 HRELAY_ALGO=direct HRELAY_VERBOSE=2 -- ./tests/mpi/compare "${cmp_args[@]}" \
    2>"$HR_TMP/err" || hr_fail "verbose"
[ "$(grep -c '^hrelay: [0-9.]* on 3 ranks: algo=direct' "$HR_TMP/err")" = 1 ] ||
    hr_fail "start-up line: $(cat "$HR_TMP/err")"
[ "$(grep -c '^hrelay: [0-9]* calls at [0-9]* sites (direct' "$HR_TMP/err")" = 1 ] ||
    hr_fail "summary line: $(cat "$HR_TMP/err")"
grep -q '^hrelay: MPI_Alltoallv on 3 ranks: direct (new pattern), ' "$HR_TMP/err" ||
    hr_fail "per-call lines: $(cat "$HR_TMP/err")"
exit 0
