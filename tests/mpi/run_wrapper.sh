#!/bin/bash
# hrelay-run: --help and --version; options become -genv settings for the ranks only (paths
# made absolute, HRELAY_* of the environment forwarded, options winning); bad options exit 2;
# a real run through the wrapper is intercepted (the report appears) and right.
. "${srcdir:-.}/tests/mpi/common.sh"
run=./hrelay-run
"$run" --help | grep -q '^Usage: hrelay-run \[hrelay options\]' || hr_fail "--help"
"$run" --help | grep -q 'HRELAY_CACHE_SIZE' || hr_fail "--help does not list HRELAY_CACHE_SIZE"
"$run" --version | grep -q '^hrelay-run (hrelay) ' || hr_fail "--version"

cmd=$(cd "$HR_TMP" && HRELAY_TUNE=0 HRELAY_ALGO=greedy "$OLDPWD/$run" --lib "$HRELAY_LIB" \
    --mpiexec "$MPIEXEC" --dry-run --algo direct --report r.json --config c.conf --verbose=2 \
    --min-step 64K -n 3 ./app arg)
for want in "-genv HRELAY_ALGO direct" "-genv HRELAY_REPORT $HR_TMP/r.json" \
    "-genv HRELAY_CONFIG $HR_TMP/c.conf" "-genv HRELAY_VERBOSE 2" "-genv HRELAY_MIN_STEP 64K" \
    "-genv HRELAY_TUNE 0" "-n 3 ./app arg"; do
    case $cmd in
        *"$want"*) ;;
        *) hr_fail "dry run lacks '$want': $cmd" ;;
    esac
done
case $cmd in *greedy*) hr_fail "the option did not override HRELAY_ALGO: $cmd" ;; esac

for bad in "--algo Bad!" "--verbose=5" "--min-step 12Q" "--window 0" "--report" ""; do
    status=0
    # shellcheck disable=SC2086
    "$run" --lib "$HRELAY_LIB" --dry-run $bad ${bad:+./app} >/dev/null 2>&1 || status=$?
    [ "$status" = 2 ] || hr_fail "'hrelay-run $bad' exited with $status, expected 2"
done

r=$HR_TMP/run.json
UCX_TLS=self,sm timeout "$HRELAY_TEST_TIMEOUT" "$run" --lib "$HRELAY_LIB" --mpiexec "$MPIEXEC" \
    --algo direct --report "$r" -n 3 ./tests/mpi/sites two 3 >"$HR_TMP/out" ||
    hr_fail "run through hrelay-run: $(cat "$HR_TMP/out")"
grep -q '^sites: ok' "$HR_TMP/out" || hr_fail "results: $(cat "$HR_TMP/out")"
grep -q '"total": {"calls": 6, .*"algorithms": {"direct": 6}' "$r" || hr_fail "report: $(cat "$r")"
