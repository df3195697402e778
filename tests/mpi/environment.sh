#!/bin/bash
# The environment is read on rank 0 only: an invalid value on another rank (HRELAY_WINDOW=0 on
# ranks 1 and 2) gives no invalid-value warning and does not take effect; the ranks' differing
# environments give exactly one warning (rank 0's), and the report shows rank 0's (default)
# window. The calls stay right (compare against PMPI). MPICH's launcher (per-rank environments).
. "${srcdir:-.}/tests/mpi/common.sh"
r=$HR_TMP/report.json
args=(./tests/mpi/compare --seed "$HRELAY_TEST_SEED" --cases 6 --report "$r" --expect direct)
timeout "$HRELAY_TEST_TIMEOUT" "$MPIEXEC" -genv UCX_TLS self,sm -genv LD_PRELOAD "$HRELAY_LIB" \
    -genv HRELAY_REPORT "$r" -genv HRELAY_ALGO direct -n 1 "${args[@]}" : \
    -n 2 -env HRELAY_WINDOW 0 "${args[@]}" 2>"$HR_TMP/err" || hr_fail "compare: $(cat "$HR_TMP/err")"
cat "$HR_TMP/err"
[ "$(grep -c '^hrelay: warning:' "$HR_TMP/err")" = 1 ] || hr_fail "expected exactly one warning"
grep -q '^hrelay: warning: the HRELAY_\* environment differs between ranks; rank 0.s is used$' \
    "$HR_TMP/err" || hr_fail "no divergence warning"
grep -q '"window": 32,' "$r" || hr_fail "rank 0's window is not in effect: $(cat "$r")"
exit 0
