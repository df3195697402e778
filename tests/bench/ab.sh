#!/bin/bash
# scripts/bench-ab (a second or two): its comparison of scripts/bench output directories and
# its refusals. Three benches of revision A (whole-run ratios 0.9, 1.1 and 1.0 of `auto` on
# one pattern) and one of B (0.95, interval 0.90 - 1.02) written here: the table must give A
# the median of the medians with lowest - highest and the count of benches, B its one median
# with its interval (or its runs' range where the runs gave none), a pattern only A has a "-"
# under B, and no row of `native` or of a candidate whose status is not ok. Then: a missing directory, two revisions that are one
# commit, an unknown revision, a bad --pairs and an option the script sets itself each end in
# exit 1 with their own message (outside a git checkout, as in make distcheck, the first
# revision's run says it needs one). The measuring itself (worktrees, builds, scripts/bench in
# alternating order) takes minutes and is not run here.
# shellcheck disable=SC2016 # the backquotes in single quotes are markdown, not commands
set -u
PROG=tests/bench/ab.sh
ab=${srcdir:-.}/scripts/bench-ab
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hrelay-ab.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $PROG: $*" >&2
    exit 1
}
command -v python3 >/dev/null || fail "python3 not found: install the Debian package python3"

header=pattern,ranks,bytes_per_rank,algorithm,ran,status,reps,median_s,q1_s,q3_s,min_s,lower_bound_s,bound_bytes,ratio_to_native,ratio_to_bound,cpu_use,bound_node_s,bound_node_bytes,ratio_node_bound,run_calls,run_total_s,run_ratio_native,run_ratio_bound,checked_calls,runs,run_ratio_native_lo,run_ratio_native_hi,stalls,run_ratio_steady,run_ratio_ci_lo,run_ratio_ci_hi,run_ratio_ci_level
# table DIR PATTERN ALGORITHM STATUS RATIO LO HI: one row of a table.csv in DIR (made).
row() {
    mkdir -p "$1"
    [[ -f $1/table.csv ]] || echo "$header" >"$1/table.csv"
    echo "$2,4,1048576,$3,$3,$4,5,0.1,0.1,0.1,0.1,0.05,1,1,2,0.5,0.05,1,2,31,3.1,$5,2,20,10,0.8,1.2,1,1,$6,$7,0.98" \
        >>"$1/table.csv"
}
for k in 1 2 3; do
    ratio=$(echo "0.9 1.1 1.0" | cut -d' ' -f$k)
    row "$tmp/a$k" uniform native ok 1 1 1
    row "$tmp/a$k" uniform auto ok "$ratio" 0.8 1.3
    row "$tmp/a$k" uniform direct n/a "" "" ""
done
row "$tmp/a1" sparse auto ok 1.04 0.99 1.10
row "$tmp/a2" incast auto ok 1.01 0.95 1.06
row "$tmp/b1" uniform native ok 1 1 1
row "$tmp/b1" uniform auto ok 0.95 0.90 1.02
row "$tmp/b1" sparse auto ok 0.97 "" ""

out=$("$ab" --compare --labels old,new "$tmp/a1,$tmp/a2,$tmp/a3" "$tmp/b1" 2>&1) ||
    fail "--compare failed: $out"
echo "$out"
grep -qx '| pattern | bytes per rank | algorithm | runs x calls | old | new |' <<<"$out" ||
    fail "no header with the labels"
grep -qxF '| `uniform` | 1 MiB | `auto` | 10 x 31 | 1.000 (0.900 - 1.100; 3 benches) | 0.950 (0.900 - 1.020) |' <<<"$out" ||
    fail "uniform's row is not the medians of A's benches beside B's one median and interval"
grep -qxF '| `sparse` | 1 MiB | `auto` | 10 x 31 | 1.040 (0.990 - 1.100) | 0.970 (runs 0.800 - 1.200) |' <<<"$out" ||
    fail "a row whose runs give no interval does not show the runs' range"
grep -qxF '| `incast` | 1 MiB | `auto` | 10 x 31 | 1.010 (0.950 - 1.060) | - |' <<<"$out" ||
    fail "a row only A has is not shown with '-' under B"
[[ $(grep -c '^| `' <<<"$out") == 3 ]] || fail "rows of native or of a candidate not ok are shown"

expect_error() { # MESSAGE ARGS...: bench-ab ARGS exits 1 and says MESSAGE
    local msg=$1 rc=0
    shift
    out=$("$ab" "$@" 2>&1) || rc=$?
    [[ $rc == 1 ]] || fail "bench-ab $* exited $rc, not 1: $out"
    grep -qF -e "$msg" <<<"$out" || fail "bench-ab $* did not say '$msg': $out"
}
expect_error "$tmp/none: No such file" --compare "$tmp/none" "$tmp/b1"
expect_error "give two revisions" HEAD
expect_error "--pairs needs a positive integer" --pairs 0 HEAD HEAD~1
expect_error "--outdir is set by bench-ab" HEAD HEAD~1 -- --outdir x
if git -C "${srcdir:-.}" rev-parse --verify --quiet HEAD >/dev/null 2>&1; then
    expect_error "is no revision of" --no-deps HEAD no-such-revision-of-hrelay
    expect_error "the two revisions are the same commit" --no-deps HEAD HEAD
else
    expect_error "is not a git checkout" --no-deps HEAD HEAD~1
fi
echo "PASS: $PROG"
