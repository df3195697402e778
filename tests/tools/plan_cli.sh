#!/usr/bin/env bash
# hrelay-plan end to end: random matrices up to P = 256 planned by the CLI and checked by an
# independent JSON checker (tests/tools/check_plan_json.py), text output, and bad input.
# Run by 'make check' from the build directory ($srcdir is the source tree).
set -euo pipefail
srcdir=${srcdir:-.}
plan=./hrelay-plan
gen="python3 $srcdir/tests/tools/random_matrix.py"
check="python3 $srcdir/tests/tools/check_plan_json.py"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# Exact plans: bandwidth == bound, steps <= messages + 2P, checked from the JSON alone.
seed=1
for p in 1 2 3 5 8 16 33 64 128 256; do
  for shape in sparse hot-receiver hot-sender permutation heavy-tailed one-message zero dense; do
    [ "$shape" = dense ] && [ "$p" -gt 33 ] && continue   # exact dense plans grow as P^3
    seed=$((seed + 1))
    $gen "$p" "$shape" "$seed" > "$work/m.txt"
    if $plan --algo direct --format json --min-step 0 "$work/m.txt" > "$work/p.json" &&
       $check "$work/m.txt" "$work/p.json" --exact > "$work/out.txt"; then ok
    else bad "exact p=$p $shape seed=$seed: $(cat "$work/out.txt" 2>/dev/null)"; fi
  done
done

# Merged plans (minimum step size): still valid, every byte exactly once.
for p in 64 256; do
  $gen "$p" dense 7 > "$work/m.txt"
  if $plan --format json --min-step 1048576 "$work/m.txt" > "$work/p.json" &&
     $check "$work/m.txt" "$work/p.json" > "$work/out.txt"; then ok
  else bad "merged dense p=$p: $(cat "$work/out.txt" 2>/dev/null)"; fi
done

# Text summary names the algorithm and the bound ratio of an exact plan (1.000).
printf '0 5\n3 0\n' > "$work/m.txt"
out=$($plan --format text --min-step 0 "$work/m.txt")
if grep -q direct <<<"$out" && grep -q '1\.000' <<<"$out"; then ok; else bad "text summary: $out"; fi

# --algo all: one row per family, each plan verified; walker-otto recognises a block-cyclic
# redistribution (P = 4, K = 3: global block B goes from rank B mod 4 to rank B / 3 mod 4).
$gen 12 heavy-tailed 5 > "$work/m.txt"
out=$($plan --algo all --format text --verify "$work/m.txt")
rows=0
for fam in direct stepwise greedy transpose; do
  grep -qE "^$fam +[0-9]+ +[0-9]+" <<<"$out" && rows=$((rows + 1))
done
if [ "$rows" -eq 4 ] && grep -q '^walker-otto .*not a cyclic' <<<"$out"; then ok; else bad "--algo all: $out"; fi
printf '1 1 1 0\n1 1 0 1\n1 0 1 1\n0 1 1 1\n' > "$work/bc.txt"
if $plan --algo all --format text --verify "$work/bc.txt" | grep -qE '^walker-otto +3 '; then ok
else bad "--algo all on a block-cyclic matrix: $($plan --algo all --format text "$work/bc.txt")"; fi

# --format svg: a Gantt chart that an SVG renderer turns into a PNG.
$gen 8 hot-receiver 9 > "$work/m.txt"
for fam in direct transpose; do
  if $plan --algo "$fam" --grain 512 --format svg "$work/m.txt" > "$work/p.svg" &&
     rsvg-convert "$work/p.svg" -o "$work/p.png" && [ -s "$work/p.png" ] &&
     [ "$(head -c 8 "$work/p.png" | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ]; then ok
  else bad "svg of $fam does not render"; fi
done

# Reading the matrix from standard input.
if $plan --format json --min-step 0 - < "$work/m.txt" > "$work/p.json" &&
   $check "$work/m.txt" "$work/p.json" --exact > /dev/null; then ok; else bad "stdin input"; fi

# Bad input: exit status 2 and the offending line number.
expect_error() { # name, expected line, matrix text
  printf "$3" > "$work/bad.txt"
  set +e
  msg=$($plan "$work/bad.txt" 2>&1 >/dev/null)
  rc=$?
  set -e
  if [ "$rc" -eq 2 ] && grep -q ":$2:" <<<"$msg"; then ok; else bad "$1: rc=$rc msg=$msg"; fi
}
expect_error ragged 3 '0 1 2\n3 0 4\n5 6\n'
expect_error negative 2 '# c\n0 -1\n2 0\n'
expect_error non-numeric 2 '0 1\n2 x\n'
expect_error overflow 1 '0 99999999999999999999999\n1 0\n'
expect_error too-many-rows 3 '0 1\n1 0\n1 1\n'

echo "plan_cli: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
