#!/bin/bash
# Erroneous calls (tests/mpi/errors): at P = 2, 3 and 8, every case runs natively (PMPI, one
# launch per case, a call that does not return within HRELAY_TEST_NATIVE_WAIT seconds, default
# 1, counts as "hang") and under hrelay (all cases in one launch, no call may hang: 30 s). On
# every rank, hrelay must return what the MPI library returned there; where the MPI library
# hangs, hrelay must return an error class that the library returned on some other rank (the
# culprit's), never hang. Then MPI_ERRORS_ARE_FATAL: hrelay aborts the job with a message naming
# hrelay and the call, for an argument error and for truncation.
. "${srcdir:-.}/tests/mpi/common.sh"
: "${HRELAY_TEST_NATIVE_WAIT:=1}"
cases=$(./tests/mpi/errors --list) || hr_fail "errors --list"

for n in 2 3 8; do
    native=$HR_TMP/native-$n.txt
    : >"$native"
    for c in $cases; do
        # natively most cases hang on the ranks whose arguments are right: the launch ends
        # with the ranks' alarms, its exit status says nothing
        hr_run_plain "$n" -- ./tests/mpi/errors --reference --wait "$HRELAY_TEST_NATIVE_WAIT" \
            "$c" 2>/dev/null | grep '^errors: ' >>"$native"
    done
    hr_run "$n" -- ./tests/mpi/errors --wait 30 all >"$HR_TMP/out" ||
        hr_fail "errors under hrelay on $n ranks: $(cat "$HR_TMP/out")"
    grep '^errors: ' "$HR_TMP/out" >"$HR_TMP/hrelay-$n.txt"
    echo "== $n ranks: case, rank, native, hrelay"
    awk -v n="$n" '
        # lines: errors: CASE rank R: CLASS
        FNR == NR { nat[$2 " " $4] = $5; if ($5 != "hang") got[$2] = got[$2] " " $5 " "; next }
        { hre[$2 " " $4] = $5; seen[$2] = 1 }
        END {
            bad = 0
            for (c in seen)
                for (r = 0; r < n; r++) {
                    k = c " " r ":"
                    nv = (k in nat) ? nat[k] : "missing"
                    hv = (k in hre) ? hre[k] : "missing"
                    ok = 1
                    if (hv == "missing" || hv == "hang" || nv == "missing")
                        ok = 0
                    else if (nv == "hang")
                        ok = index(got[c], " " hv " ") > 0 && hv != "MPI_SUCCESS"
                    else
                        ok = nv == hv
                    printf "%-24s %d %-18s %-18s %s\n", c, r, nv, hv, ok ? "ok" : "MISMATCH"
                    bad += !ok
                }
            exit bad != 0
        }' "$native" "$HR_TMP/hrelay-$n.txt" >"$HR_TMP/table"
    status=$?
    sort "$HR_TMP/table"
    [ "$status" -eq 0 ] || hr_fail "hrelay differs from MPI on $n ranks"
    [ "$(grep -c '' "$HR_TMP/hrelay-$n.txt")" -eq $(($(echo "$cases" | wc -w) * n)) ] ||
        hr_fail "hrelay on $n ranks: not every case reported on every rank"
done

# MPI_ERRORS_ARE_FATAL: the job aborts, and the message names hrelay, the call and the rank.
# A negative count fails on every rank, and the first rank to abort may end the job before the
# others print, so any rank's message counts there; truncation fails on the culprit (rank 2)
# only.
for c in v-send-count-neg:012 v-truncate:2; do
    ranks=${c#*:} c=${c%:*}
    if hr_run 3 -- ./tests/mpi/errors --fatal --wait 30 "$c" >"$HR_TMP/out" 2>"$HR_TMP/err"; then
        hr_fail "$c with MPI_ERRORS_ARE_FATAL: the job did not abort"
    fi
    grep -q "^hrelay: error in MPI_Alltoallv on rank [$ranks] of the communicator: " "$HR_TMP/err" ||
        hr_fail "$c with MPI_ERRORS_ARE_FATAL: no hrelay message: $(cat "$HR_TMP/err")"
    ! grep -q ': hang$' "$HR_TMP/out" || hr_fail "$c with MPI_ERRORS_ARE_FATAL: a rank hung"
done
exit 0
