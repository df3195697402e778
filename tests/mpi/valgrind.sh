#!/bin/bash
# valgrind memcheck on the shim: compare (every variant, datatype pair and erroneous call, the
# report) on 2 ranks under hrelay, each rank under memcheck; any invalid access, use of
# uninitialised memory or definite leak fails the test, except the MPI library's own
# (tests/sanitizers/valgrind.supp). Not with --enable-sanitizers (ASan and valgrind exclude each
# other): skipped there.
. "${srcdir:-.}/tests/mpi/common.sh"
if [ -n "${HRELAY_ASAN_RT:-}" ]; then
    echo "built with --enable-sanitizers: valgrind cannot run ASan programs"
    exit 77
fi
command -v valgrind >/dev/null || hr_fail "valgrind not found: install the Debian package valgrind"
r=$HR_TMP/report.json
hr_run 2 HRELAY_ALGO=direct HRELAY_REPORT="$r" -- valgrind -q --error-exitcode=3 --leak-check=full \
    --show-leak-kinds=definite --errors-for-leak-kinds=definite --num-callers=30 \
    --suppressions="${srcdir:-.}/tests/sanitizers/valgrind.supp" \
    ./tests/mpi/compare --seed "$HRELAY_TEST_SEED" --cases 12 --report "$r" --expect direct ||
    hr_fail "memcheck found errors (or compare failed)"
exit 0
