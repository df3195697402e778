# shellcheck shell=bash
# Sourced by the tests/mpi/*.sh tests. They run from the top build directory (make check), where
# tests/mpi/mpi-env.sh holds the configured launcher and the path of the built libhrelay.so.
#
# Every launch: UCX_TLS=self,sm for the ranks (UCX's tcp transport made MPI_Init fail now and
# then), LD_PRELOAD of libhrelay.so for the ranks only (-genv, never the launcher), and a
# timeout (HRELAY_TEST_TIMEOUT seconds, default 300) so that a hang fails the test. The HRELAY_*
# settings of the calling environment (every one the library reads: the names its table of
# settings gives, src/shim/hrelay-settings names) are cleared; each test sets what it needs.

set -u
. ./tests/mpi/mpi-env.sh || exit 99
: "${HRELAY_TEST_TIMEOUT:=300}"
: "${HRELAY_TEST_SEED:=1}"
HR_SETTINGS=$(./src/shim/hrelay-settings names) && [ -n "$HR_SETTINGS" ] || exit 99
# shellcheck disable=SC2086
unset $HR_SETTINGS
HR_TMP=$(mktemp -d "${TMPDIR:-/tmp}/hrelay-mpi.XXXXXX") || exit 99
trap 'rm -rf "$HR_TMP"' EXIT

# The rank counts every MPI test covers.
# shellcheck disable=SC2034 # used by the tests that source this file
HR_RANKS="1 2 3 4 5 7 8"

# hr_fail MESSAGE: reports and ends the test with failure.
hr_fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# Open MPI (a build configured with MPICC=mpicc.openmpi) refuses to run as root without these,
# and needs --oversubscribe for more ranks than cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# _hr_env VAR VALUE: the launcher's arguments that set VAR=VALUE for the ranks only (MPICH's
# -genv VAR VALUE, Open MPI's -x VAR=VALUE).
_hr_env() {
    if [ "${HRELAY_MPI_FAMILY:-mpich}" = openmpi ]; then
        genv+=(-x "$1=$2")
    else
        genv+=(-genv "$1" "$2")
    fi
}

# _hr_launch PRELOAD N [VAR=VALUE ...] -- PROGRAM [ARGS]: runs PROGRAM on N ranks.
_hr_launch() {
    local preload=$1 n=$2
    shift 2
    local -a genv=()
    [ "${HRELAY_MPI_FAMILY:-mpich}" = openmpi ] && genv+=(--oversubscribe)
    _hr_env UCX_TLS self,sm
    if [ -n "${HRELAY_ASAN_RT:-}" ]; then
        # --enable-sanitizers: the ASan runtime must come first in the ranks' library list
        _hr_env ASAN_OPTIONS "detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0"
        _hr_env LSAN_OPTIONS "suppressions=$HRELAY_LSAN_SUPP:print_suppressions=0"
        _hr_env UBSAN_OPTIONS "print_stacktrace=1:halt_on_error=1"
        [ "$preload" = 1 ] && _hr_env LD_PRELOAD "$HRELAY_ASAN_RT:$HRELAY_LIB"
    elif [ "$preload" = 1 ]; then
        _hr_env LD_PRELOAD "$HRELAY_LIB"
    fi
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do
        _hr_env "${1%%=*}" "${1#*=}"
        shift
    done
    shift
    echo "+ $MPIEXEC -n $n ${genv[*]} $*"
    timeout "$HRELAY_TEST_TIMEOUT" "$MPIEXEC" -n "$n" "${genv[@]}" "$@"
}

# hr_run N [VAR=VALUE ...] -- PROGRAM [ARGS]: PROGRAM on N ranks under libhrelay.so.
hr_run() {
    _hr_launch 1 "$@"
}

# hr_run_plain N [VAR=VALUE ...] -- PROGRAM [ARGS]: the same without libhrelay.so.
hr_run_plain() {
    _hr_launch 0 "$@"
}

# hr_algorithms REPORT: the "algorithms" object of a report's total (all call sites), e.g.
# "algorithms": {"direct": 2}
hr_algorithms() {
    grep -o '"total": {.*' "$1" | grep -o '"algorithms": {[^}]*}'
}

# hr_expect_algorithms REPORT EXPECTED: fails unless the total's algorithms object is EXPECTED.
hr_expect_algorithms() {
    local got
    got=$(hr_algorithms "$1")
    [ "$got" = "$2" ] || hr_fail "$1: expected $2, got '${got}'"
}
