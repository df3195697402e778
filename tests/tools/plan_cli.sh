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

# Half duplex: every family's JSON plan checked from the outside (each rank in at most one
# transfer per step); exact direct plans within 3 ceil(h / 2).
for p in 2 5 16 64; do
  $gen "$p" heavy-tailed $((p + 40)) > "$work/m.txt"
  for fam in direct stepwise greedy transpose forward; do
    exact=
    [ "$fam" = direct ] && exact=--exact
    if $plan --algo "$fam" --duplex half --packet 1000 --grain 7 --min-step 0 "$work/m.txt" > "$work/p.json" &&
       grep -q '"duplex": "half"' "$work/p.json" &&
       $check "$work/m.txt" "$work/p.json" $exact > "$work/out.txt"; then ok
    else bad "half duplex $fam p=$p: $(cat "$work/out.txt" 2>/dev/null)"; fi
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

# --algo all: one row per family (duplex, steps, transfers, bandwidth, bound, ratio, modeled
# cost), each plan verified; the exact direct row has ratio 1.000 in full duplex; every row is
# half duplex with --duplex half; walker-otto recognises a block-cyclic redistribution (P = 4,
# K = 3: global block B goes from rank B mod 4 to rank B / 3 mod 4).
$gen 12 heavy-tailed 5 > "$work/m.txt"
row='+[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.e-]+$'
for duplex in full half; do
  out=$($plan --algo all --duplex $duplex --format text --verify "$work/m.txt")
  rows=0
  for fam in direct stepwise greedy transpose; do
    grep -qE "^$fam +$duplex $row" <<<"$out" && rows=$((rows + 1))
  done
  grep -qE "^forward +half $row" <<<"$out" && rows=$((rows + 1))
  if [ "$rows" -eq 5 ] && grep -q '^walker-otto .*not a cyclic' <<<"$out"; then ok; else bad "--algo all --duplex $duplex: $out"; fi
done
if $plan --algo all --format text "$work/m.txt" | grep -qE '^direct +full( +[0-9]+){4} +1\.000 '; then ok
else bad "--algo all: exact direct ratio"; fi
printf '1 1 1 0\n1 1 0 1\n1 0 1 1\n0 1 1 1\n' > "$work/bc.txt"
if $plan --algo all --format text --verify "$work/bc.txt" | grep -qE '^walker-otto +full +3 '; then ok
else bad "--algo all on a block-cyclic matrix: $($plan --algo all --format text "$work/bc.txt")"; fi

# The text summary records NS and TC (stepwise: NS = max degree).
$gen 16 sparse 11 > "$work/m.txt"
out=$($plan --algo stepwise --format text "$work/m.txt")
ns=$(sed -n 's/^steps (NS) *\([0-9]*\).*/\1/p' <<<"$out")
deg=$(sed -n 's/^max degree *\([0-9]*\).*/\1/p' <<<"$out")
if [ -n "$ns" ] && [ "$ns" = "$deg" ] && grep -q '^bandwidth (TC) ' <<<"$out"; then ok; else bad "NS/TC text: $out"; fi

# --format svg: a Gantt chart that an SVG renderer turns into a PNG.
$gen 8 hot-receiver 9 > "$work/m.txt"
for fam in direct transpose; do
  if $plan --algo "$fam" --grain 512 --format svg "$work/m.txt" > "$work/p.svg" &&
     rsvg-convert "$work/p.svg" -o "$work/p.png" && [ -s "$work/p.png" ] &&
     [ "$(head -c 8 "$work/p.png" | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ]; then ok
  else bad "svg of $fam does not render"; fi
done

# P random node labels among 1 + P / 3 (uneven, non-consecutive placements), seeded by P.
random_labels() {
  python3 -c "import random; r = random.Random($1)
print(','.join(str(r.randrange(1 + $1 // 3)) for _ in range($1)))"
}

# Node plans (--node-size, --nodes): every node family's JSON checked from the outside (the
# NIC rule per step, delivery, the node figures); exact node-direct and node-aggregate plans
# meet the node bound (node-aggregate exactly, node-direct within the rounding of its cuts).
for p in 1 5 12 33; do
  for place in size3 random $([ "$p" = 5 ] && echo size1 sizeP); do
    case $place in
      size1) nodes=(--node-size 1) ;;
      size3) nodes=(--node-size 3) ;;
      sizeP) nodes=(--node-size "$p") ;;
      random) nodes=(--nodes "$(random_labels "$p")") ;;
    esac
    for shape in heavy-tailed dense; do
      [ "$shape" = dense ] && [ "$p" -gt 12 ] && continue
      $gen "$p" "$shape" $((p + 90)) > "$work/m.txt"
      for fam in node-direct node-aggregate node-transpose node-forward; do
        for duplex in full half; do
          exact=
          case $fam in node-direct|node-aggregate) exact=--exact ;; esac
          if $plan --algo "$fam" --duplex "$duplex" "${nodes[@]}" --min-step 0 --packet 1000 \
               "$work/m.txt" > "$work/p.json" &&
             grep -q '"topology": {"nodes": ' "$work/p.json" &&
             $check "$work/m.txt" "$work/p.json" $exact > "$work/out.txt"; then ok
          else bad "$fam $duplex p=$p $place $shape: $(cat "$work/out.txt" 2>/dev/null)"; fi
        done
      done
    done
  done
done

# Node plans in text, SVG and the --algo all table: the NIC rule and the node ratio in the
# summary (1.000000 for exact node-aggregate), a node label per node in the SVG, every family a
# row under a placement (node-aggregate at ratio 1.000), and the node families only then.
$gen 12 heavy-tailed 5 > "$work/m.txt"
out=$($plan --algo node-aggregate --format text --node-size 4 --min-step 0 "$work/m.txt")
if grep -q '^NIC rule .*1 peer node' <<<"$out" && grep -q '^node ratio *1\.000000' <<<"$out" &&
   grep -q '^nodes *3 (4 to 4 ranks each)' <<<"$out"; then ok; else bad "node text: $out"; fi
if $plan --algo node-direct --format svg --nodes 0,1,0,1,2,2,2,0,1,1,1,1 "$work/m.txt" \
     > "$work/p.svg" && [ "$(grep -c 'class="node"' "$work/p.svg")" = 3 ] &&
   rsvg-convert "$work/p.svg" -o "$work/p.png"; then ok
else bad "node svg"; fi
out=$($plan --algo all --format text --verify --node-size 4 "$work/m.txt")
rows=$(grep -cE "^[a-z-]+ +(full|half) $row" <<<"$out")
if [ "$rows" = 9 ] && grep -qE '^node-aggregate +full( +[0-9]+){4} +1\.000 ' <<<"$out"; then ok
else bad "--algo all --node-size: $out"; fi
if ! $plan --algo all --format text "$work/m.txt" | grep -q '^node-'; then ok
else bad "node rows without a placement"; fi

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

# Bad option values: exit status 2 and the option named.
for args in "--duplex quarter" "--packet 0" "--algo fastest" "--node-size 0" "--nodes 0,1" \
    "--nodes 0,x,1,2,3,4,5,6" "--nodes -1,0,0,0,0,0,0,0"; do
  set +e
  # shellcheck disable=SC2086
  msg=$($plan $args "$work/m.txt" 2>&1 >/dev/null)
  rc=$?
  set -e
  if [ "$rc" -eq 2 ] && grep -q -- "${args%% *}" <<<"$msg"; then ok; else bad "$args: rc=$rc msg=$msg"; fi
done

echo "plan_cli: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
