#!/bin/bash
# hrelay-run: --help and --version; options become settings for the ranks only (MPICH's -genv
# NAME VALUE, Open MPI's -x NAME=VALUE: the family configure found), paths made absolute,
# HRELAY_* of the environment forwarded, options winning; every option of the library's table
# of settings is listed, takes a valid value and refuses an invalid one (exit 2), as do
# malformed command lines; a real run through the wrapper is intercepted (the report appears)
# and right.
# shellcheck disable=SC2154 # hr_option_* and hr_check: arrays the eval below defines
. "${srcdir:-.}/tests/mpi/common.sh"
run=./hrelay-run
"$run" --help | grep -q '^Usage: hrelay-run \[hrelay options\]' || hr_fail "--help"
"$run" --help | grep -q 'HRELAY_CACHE_SIZE' || hr_fail "--help does not list HRELAY_CACHE_SIZE"
"$run" --version | grep -q '^hrelay-run (hrelay) ' || hr_fail "--version"

# rank_arg NAME VALUE: how the dry run gives NAME=VALUE to the ranks.
rank_arg() {
    if [ "$HRELAY_MPI_FAMILY" = openmpi ]; then
        printf -- '-x %s=%s' "$1" "$2"
    else
        printf -- '-genv %s %s' "$1" "$2"
    fi
}

# dry ARGS...: the dry run's command line, run in $HR_TMP.
dry() {
    (cd "$HR_TMP" && "$OLDPWD/$run" --lib "$HRELAY_LIB" --mpiexec "$MPIEXEC" --dry-run "$@")
}

cmd=$(HRELAY_TUNE=0 HRELAY_ALGO=greedy dry --algo direct --report r.json --config c.conf \
    --verbose=2 --min-step 64K -n 3 ./app arg)
for want in "$(rank_arg LD_PRELOAD "$HRELAY_LIB")" "$(rank_arg HRELAY_ALGO direct)" \
    "$(rank_arg HRELAY_REPORT "$HR_TMP/r.json")" "$(rank_arg HRELAY_CONFIG "$HR_TMP/c.conf")" \
    "$(rank_arg HRELAY_VERBOSE 2)" "$(rank_arg HRELAY_MIN_STEP 64K)" \
    "$(rank_arg HRELAY_TUNE 0)" "-n 3 ./app arg"; do
    case $cmd in
        *"$want"*) ;;
        *) hr_fail "dry run lacks '$want': $cmd" ;;
    esac
done
case $cmd in *greedy*) hr_fail "the option did not override HRELAY_ALGO: $cmd" ;; esac

# every option of the table: in --help, a valid value reaches the ranks, an invalid one is a
# usage error
eval "$(./src/shim/hrelay-settings shell)" || hr_fail "hrelay-settings shell"
[ "${#hr_option_var[@]}" -ge 9 ] || hr_fail "only ${#hr_option_var[@]} options in the table"
help=$("$run" --help)
for option in "${!hr_option_var[@]}"; do
    name=${hr_option_var[$option]}
    case $help in *"  $option"*) ;; *) hr_fail "--help does not list $option" ;; esac
    read -r -a check <<<"${hr_check[$name]}"
    case ${check[0]} in
        int) good=${check[2]} bad=$((check[2] + 1)) ;;
        word) good=${check[${#check[@]} - 1]} bad=bogus ;;
        bytes) good=64K bad=12Q ;;
        path) good=some-file bad= ;;
        *) hr_fail "$option: unexpected check ${check[0]}" ;;
    esac
    want=$good
    [ "${check[0]}" = path ] && want=$HR_TMP/$good
    case ${hr_option_arg[$option]} in
        "") args=("$option") want=${hr_option_bare[$option]} bad= ;;
        "[="*) args=("$option=$good") ;;
        *) args=("$option" "$good") ;;
    esac
    cmd=$(dry "${args[@]}" ./app) || hr_fail "'hrelay-run ${args[*]}' failed"
    case $cmd in
        *"$(rank_arg "$name" "$want")"*) ;;
        *) hr_fail "'hrelay-run ${args[*]}' does not set $name=$want: $cmd" ;;
    esac
    if [ -n "$bad" ]; then
        status=0
        dry "$option=$bad" ./app >/dev/null 2>&1 || status=$?
        [ "$status" = 2 ] || hr_fail "'hrelay-run $option=$bad' exited with $status, expected 2"
    fi
done

for bad in "--algo Bad!" "--verbose=5" "--min-step 12Q" "--window 0" "--report" "--disable=1" ""; do
    status=0
    # shellcheck disable=SC2086
    "$run" --lib "$HRELAY_LIB" --dry-run $bad ${bad:+./app} >/dev/null 2>&1 || status=$?
    [ "$status" = 2 ] || hr_fail "'hrelay-run $bad' exited with $status, expected 2"
done

r=$HR_TMP/run.json
extra=()
[ "$HRELAY_MPI_FAMILY" = openmpi ] && extra=(--oversubscribe)
UCX_TLS=self,sm timeout "$HRELAY_TEST_TIMEOUT" "$run" --lib "$HRELAY_LIB" --mpiexec "$MPIEXEC" \
    --algo direct --report "$r" "${extra[@]}" -n 3 ./tests/mpi/sites two 3 >"$HR_TMP/out" ||
    hr_fail "run through hrelay-run: $(cat "$HR_TMP/out")"
grep -q '^sites: ok' "$HR_TMP/out" || hr_fail "results: $(cat "$HR_TMP/out")"
grep -q '"total": {"calls": 6, .*"algorithms": {"direct": 6}' "$r" || hr_fail "report: $(cat "$r")"
