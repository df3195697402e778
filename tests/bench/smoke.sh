#!/bin/bash
# The benchmark must not rot (about half a minute): bench/alltoallv_bench on 2 ranks, every
# pattern (fixed, drifting, MPI_Alltoall), two tiny sizes, two repetitions, every node its own
# rank; then the pattern that needs 3 ranks on 3; then the drifting patterns, the MPI_Alltoall
# pattern and the FFT transposes on 4 ranks with --node-size 2. Checks that it exits 0 (every
# checked result equals PMPI's, on drifting patterns every second call too), that the CSV has a
# row per pattern, size and candidate with a status of ok or n/a (exactly the patterns that
# cannot apply listed as skipped), a median, a bound, a CPU use and whole-run figures where ok,
# the number of calls summed and checked; that the walker-otto pattern ran the walker-otto
# family and auto ran something; that the node-level bound equals the rank-level one with one
# rank per node and has its known value with two; that every drifting pattern's calls differ;
# that the JSON parses and holds auto's whole-run ratios, with pmpi's beside them where it ran
# (the text summary too, and scripts/bench's README from bench/summary.sh with and without
# the line of decided intervals); that --runs 3 makes rows of 3 runs
# (checked calls summed, the whole-run ratio within its range, native's exactly 1) and that
# --calls lists every call of those runs (summing to each run's total, and giving each
# row's count of MPI's stalls and its whole-run ratio without them); that --order blocks
# keeps each candidate at one position in all rounds of a run, and that with --runs 5 every
# whole-run ratio has the interval its median lies in (min - max at 15/16); and that a
# corrupted result (--inject-error) is caught (exit 1, MISMATCH). Timings on these sizes mean
# nothing; see scripts/bench.
# shellcheck source=tests/mpi/common.sh
. "${srcdir:-.}/tests/mpi/common.sh"
bench=./bench/alltoallv_bench
csv=$HR_TMP/smoke.csv
json=$HR_TMP/smoke.json
families="pmpi native direct stepwise greedy walker-otto transpose forward node-direct node-transpose
node-forward node-aggregate auto"

# run_bench RANKS OUTPUT ARGS...: the benchmark under hrelay; its output goes to OUTPUT.
run_bench() {
    local n=$1 output=$2
    shift 2
    hr_run "$n" -- "$bench" --rate 1G "$@" >"$output" 2>&1
    local rc=$?
    cat "$output"
    return $rc
}

# check_table CSV JSON RANKS ROUNDS CHECKED_DRIFT SIZES PATTERNS FAMILIES SKIPPED: every
# pattern and size either skipped (SKIPPED: "pattern:size" words) or with one ok or n/a row per
# candidate in FAMILIES; drift-bfs at one size (--bfs-max, 65536 here). Ok rows have a median,
# a bound, a CPU use, ROUNDS calls summed into run_total_s and ratios to native's; they were
# checked twice (fixed patterns) or CHECKED_DRIFT times (drifting ones).
check_table() {
    python3 - "$@" <<'EOF' || hr_fail "$1: wrong content"
import csv, json, sys
path, jpath, ranks, rounds, drift_checked, sizes, patterns, families, skipped = sys.argv[1:]
rows = list(csv.DictReader(open(path)))
sizes, patterns, families = sizes.split(), patterns.split(), families.split()
skipped = set(skipped.split())
seen = {}
for r in rows:
    assert r["ranks"] == ranks, r
    assert r["status"] in ("ok", "n/a"), r
    seen.setdefault((r["pattern"], r["bytes_per_rank"]), []).append(r["algorithm"])
    if r["status"] != "ok":
        continue
    for col in ("median_s", "lower_bound_s", "cpu_use", "run_total_s", "run_ratio_native",
                "bound_node_s"):
        assert r[col] != "", (col, r)
    assert int(r["run_calls"]) == int(rounds), r
    assert float(r["run_total_s"]) >= int(r["reps"]) * float(r["min_s"]), r
    want = int(drift_checked) if r["pattern"].startswith("drift-") else 2
    assert int(r["checked_calls"]) == want, (want, r)
    if r["algorithm"] == "native":
        assert float(r["run_ratio_native"]) == 1.0, r
    assert r["runs"] == "1", r
    assert r["run_ratio_native_lo"] == r["run_ratio_native_hi"] == r["run_ratio_native"], r
for p in patterns:
    for s in (["65536"] if p == "drift-bfs" else sizes):
        if p + ":" + s in skipped:
            assert (p, s) not in seen, (p, s)
        else:
            assert seen.get((p, s)) == families, (p, s, seen.get((p, s)))
d = json.load(open(jpath))
assert len(d["rows"]) == len(rows), "rows"
got = sorted(x["pattern"] + ":" + str(x["bytes_per_rank"]) for x in d["skipped"])
assert got == sorted(skipped), got
assert d["summary"]["mismatches"] == 0 and d["summary"]["cpu_use"] > 0, d["summary"]
runs = d["summary"]["auto_vs_native_run"]
both = {(r["pattern"], r["bytes_per_rank"]) for r in rows
        if r["algorithm"] == "auto" and r["status"] == "ok"} & \
       {(r["pattern"], r["bytes_per_rank"]) for r in rows
        if r["algorithm"] == "native" and r["status"] == "ok"}
assert len(runs["pairs"]) == len(both), runs
assert runs["worst"]["ratio"] == max(x["ratio"] for x in runs["pairs"]), runs
pmpi = {(r["pattern"], int(r["bytes_per_rank"])): float(r["run_ratio_native"]) for r in rows
        if r["algorithm"] == "pmpi" and r["status"] == "ok"}
for x in runs["pairs"]:
    want = pmpi.get((x["pattern"], x["bytes_per_rank"]))
    if want is None:
        assert "pmpi_ratio" not in x, x
    else:
        assert abs(x["pmpi_ratio"] - want) <= 1e-6 * want, (x, want)
EOF
}

patterns=$("$bench" --help | awk '/--patterns/ {on = 1; next} on && /^  --/ {exit} on && /^                      [a-z]/ {print $1}')
npatterns=$(echo "$patterns" | wc -w)
[ "$npatterns" -ge 18 ] || hr_fail "--help lists $npatterns patterns"

# 2 ranks: every pattern; three-cycles needs 3 ranks, the Y -> Z transpose a grid with C > 1
run_bench 2 "$HR_TMP/out2" --quiet --sizes 1K,8K --reps 2 --warmup 2 --check-every 2 \
    --bfs-max 64K --moe-token-bytes 512 --node-size 1 --csv "$csv" --json "$json" ||
    hr_fail "alltoallv_bench failed on 2 ranks"
check_table "$csv" "$json" 2 6 4 "1024 8192" "$patterns" "$families" \
    "three-cycles:1024 three-cycles:8192 fft-yz:1024 fft-yz:8192"
grep -q '^walker-otto,2,8192,walker-otto,walker-otto,ok,2,' "$csv" ||
    hr_fail "the walker-otto family did not run the walker-otto pattern"
grep -q '^incast,2,8192,walker-otto,native,n/a,' "$csv" ||
    hr_fail "the walker-otto family on incast is not reported as n/a (ran native)"
grep -q '^uniform,2,8192,native,native,ok,' "$csv" || hr_fail "native did not run native"
grep -q '^uniform,2,8192,auto,[a-z+-]*,ok,' "$csv" || hr_fail "auto did not run"
grep -q '^alltoall,2,8192,auto,[a-z+-]*,ok,' "$csv" || hr_fail "auto did not run MPI_Alltoall"
awk -F, 'NR > 1 && $13 != $18 {exit 1}' "$csv" ||
    hr_fail "with one rank per node the node-level bound differs from the rank-level one"
grep -q '^# CPU use of the run: ' "$HR_TMP/out2" || hr_fail "no CPU use printed"
grep -q '^# auto / native over the whole run: worst [0-9.]* (' "$HR_TMP/out2" ||
    hr_fail "no whole-run summary of auto against native"

run_bench 3 "$HR_TMP/out3" --quiet --patterns three-cycles --sizes 1K --reps 1 --csv "$csv" ||
    hr_fail "alltoallv_bench failed on 3 ranks"
[ "$(grep -c '^three-cycles,3,1024,.*,ok,' "$csv")" -ge 2 ] || hr_fail "three-cycles did not run"

# 4 ranks, two nodes of two: uniform 8 KiB is 2 KiB per pair, 6 KiB per rank off-rank and
# 8 KiB per node off-node; the Y -> Z transpose of a 2 x 2 grid stays within the nodes.
# drift-moe without capacity: with it the hot expert receives at capacity on every call, so its
# bound would not show the drift.
drift="drift-samplesort drift-bfs drift-moe drift-particles"
run_bench 4 "$HR_TMP/out4" --patterns "uniform,alltoall,fft-xy,fft-yz,${drift// /,}" --sizes 8K \
    --reps 1 --warmup 1 --check-every 2 --bfs-max 64K --moe-token-bytes 256 --moe-capacity 0 \
    --node-size 2 --families pmpi,native,direct,auto --csv "$csv" --json "$json" ||
    hr_fail "alltoallv_bench failed on 4 ranks"
check_table "$csv" "$json" 4 4 3 8192 "uniform alltoall fft-xy fft-yz $drift" \
    "pmpi native direct auto" ""
grep -q '^#   uniform  *8192 bytes per rank: [0-9.]* over 4 calls (pmpi [0-9.]*)' "$HR_TMP/out4" ||
    hr_fail "the whole-run summary does not give pmpi's ratio beside auto's"
grep -q '^# nodes (one NIC each, for the node-level bound): --node-size 2 (consecutive ranks): 2 nodes x 2 ranks$' \
    "$HR_TMP/out4" || hr_fail "the node layout is not printed"
awk -F, '$1 == "uniform" && ($13 != 6144 || $18 != 8192) {exit 1}' "$csv" ||
    hr_fail "uniform at 4 ranks, 2 per node: bounds are not 6144 and 8192 bytes"
awk -F, '$1 == "fft-yz" && ($13 == 0 || $18 != 0) {exit 1}' "$csv" ||
    hr_fail "fft-yz on a 2 x 2 grid, 2 ranks per node: it should stay within the nodes"
for pattern in $drift; do
    range=$(sed -n "/^== $pattern,/{n;s/.*lower bound per call \([0-9]*\) \.\. \([0-9]*\) bytes.*/\1 \2/p}" "$HR_TMP/out4")
    [ -n "$range" ] || hr_fail "$pattern: no per-call bounds printed"
    read -r low high <<<"$range"
    [ "$low" -lt "$high" ] || hr_fail "$pattern: every call has the same bound ($range): no drift"
done

# --runs 3: every row the median of three runs on fresh communicators
calls=$HR_TMP/calls.csv
run_bench 2 "$HR_TMP/runs" --patterns uniform,drift-samplesort --sizes 1K --reps 3 --warmup 1 \
    --check-every 2 --runs 3 --families pmpi,native,auto --csv "$csv" --json "$json" \
    --calls "$calls" --stall 1.2,0 ||
    hr_fail "alltoallv_bench --runs 3 failed"
grep -q 'every pattern and size measured 3 times over on fresh communicators' "$HR_TMP/runs" ||
    hr_fail "--runs 3 is not said in the header"
grep -q 'x_run_lo x_run_hi' "$HR_TMP/runs" || hr_fail "--runs 3: no range columns in the table"
python3 - "$csv" "$json" <<'EOF' || hr_fail "--runs 3: wrong rows"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 6, rows
for r in rows:
    assert r["status"] == "ok" and r["runs"] == "3", r
    lo, mid, hi = (float(r[c]) for c in ("run_ratio_native_lo", "run_ratio_native",
                                            "run_ratio_native_hi"))
    assert lo <= mid <= hi, r
    # 6 rounds a run; checked: the first and the last (drifting: and rounds 2 and 4)
    assert int(r["checked_calls"]) == 3 * (4 if r["pattern"].startswith("drift-") else 2), r
    if r["algorithm"] == "native":
        assert lo == mid == hi == 1.0, r
    # 3 runs are too few for an interval of the median at 90 %
    assert r["run_ratio_ci_lo"] == r["run_ratio_ci_hi"] == "" and r["run_ratio_ci_level"] == "0", r
d = json.load(open(sys.argv[2]))
assert d["meta"]["runs"] == 3 and all(x["runs"] == 3 for x in d["rows"]), d["meta"]
steady = {(r["pattern"], r["algorithm"]): r for r in rows}
for x in d["summary"]["auto_vs_native_run"]["pairs"]:
    a, n = steady[(x["pattern"], "auto")], steady[(x["pattern"], "native")]
    assert x["stalls"] == int(a["stalls"]) and x["native_stalls"] == int(n["stalls"]), x
    assert abs(x["steady_ratio"] - float(a["run_ratio_steady"])) <= 1e-6, x
    assert d["summary"]["auto_vs_native_run"]["stall_factor"] == 1.2, d["summary"]
EOF
# --calls: every call of every run, each round's candidates at positions 0, 1, 2, and each
# candidate's calls of a run summing to its run's total (the row: the median of the runs')
python3 - "$csv" "$calls" <<'EOF' || hr_fail "--calls: wrong lines"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
lines = list(csv.DictReader(open(sys.argv[2])))
assert list(lines[0].keys()) == ["pattern", "bytes_per_rank", "run", "round", "position",
                                 "algorithm", "ran", "seconds", "bound_s"], lines[0].keys()
assert len(lines) == 2 * 3 * 6 * 3, len(lines)  # patterns, runs, rounds, candidates
rounds, sums = {}, {}
for c in lines:
    assert float(c["seconds"]) > 0 and float(c["bound_s"]) > 0 and c["ran"], c
    rounds.setdefault((c["pattern"], c["run"], c["round"]), []).append(
        (int(c["position"]), c["algorithm"]))
    key = (c["pattern"], c["algorithm"], c["run"])
    sums[key] = sums.get(key, 0.0) + float(c["seconds"])
for k, v in rounds.items():
    assert sorted(p for p, _ in v) == [0, 1, 2], (k, v)
    assert sorted(a for _, a in v) == ["auto", "native", "pmpi"], (k, v)
for r in rows:
    med = statistics.median(sums[(r["pattern"], r["algorithm"], str(j))] for j in range(3))
    assert abs(med - float(r["run_total_s"])) <= 1e-6 * med + 1e-9, (r, med)
# MPI's stalls (--stall 1.2,0, so that there are some at 1 KiB on one node): calls that ran
# MPI's own algorithm and took more than 1.2 x their reference, native's median timed call
# (rounds 2 - 4) of the run (drifting: native's median over those calls of its time per second
# of bound, times the call's bound), counted, and the whole-run ratio with each of them, the
# row's and native's, at its reference; the median over the runs
def run_calls(pattern, algorithm, j):
    return [(int(c["round"]), c) for c in lines if c["pattern"] == pattern and
            c["algorithm"] == algorithm and c["run"] == str(j)]
total_stalls, drift_stalls = 0, 0
for r in rows:
    drift = r["pattern"].startswith("drift-")
    stalls, ratios = 0, []
    for j in range(3):
        native = run_calls(r["pattern"], "native", j)
        timed = [c for k, c in native if 2 <= k <= 4]
        if drift:
            per_s = statistics.median(float(c["seconds"]) / float(c["bound_s"]) for c in timed)
        else:
            median = statistics.median(float(c["seconds"]) for c in timed)
        def steady(calls):
            n, t = 0, 0.0
            for _, c in calls:
                t_c = float(c["seconds"])
                ref = per_s * float(c["bound_s"]) if drift else median
                stall = c["ran"] in ("native", "pmpi", "mpi") and t_c > 1.2 * ref and \
                    t_c - ref > 0
                n += stall
                t += ref if stall else t_c
            return n, t
        n, t = steady(run_calls(r["pattern"], r["algorithm"], j))
        stalls += n
        ratios.append(t / steady(native)[1])
    assert int(r["stalls"]) == stalls, (r, stalls)
    total_stalls += stalls
    drift_stalls += stalls if drift else 0
    want = statistics.median(ratios)
    assert abs(float(r["run_ratio_steady"]) - want) <= 1e-5 * want, (r, want)
assert total_stalls > drift_stalls > 0, "no call over 1.2 x its reference: a rule not exercised"
EOF
# auto's saving split by what its calls ran, pooled over the runs: its calls that ran a plan
# and the seconds native's calls of the same rounds took more than they, the same of its calls
# of MPI's own algorithm, each over native's whole time; the two add up to auto's saving
python3 - "$json" "$calls" <<'EOF' || hr_fail "--runs 3: wrong split of auto's saving"
import csv, json, sys
d = json.load(open(sys.argv[1]))
lines = list(csv.DictReader(open(sys.argv[2])))
pairs = d["summary"]["auto_vs_native_run"]["pairs"]
assert len(pairs) == 2, pairs
for x in pairs:
    t = {(c["algorithm"], c["run"], c["round"]): c for c in lines if c["pattern"] == x["pattern"]}
    plans, saved, total, native = 0, [0.0, 0.0], 0.0, 0.0
    for (a, j, k), c in t.items():
        if a != "auto":
            continue
        n = float(t[("native", j, k)]["seconds"])
        mpi = c["ran"] in ("native", "pmpi", "mpi")
        plans += not mpi
        saved[mpi] += n - float(c["seconds"])
        total += float(c["seconds"])
        native += n
    assert x["plan_calls"] == plans, (x, plans)
    assert abs(x["plan_saving"] - saved[0] / native) <= 1e-6, (x, saved, native)
    assert abs(x["mpi_saving"] - saved[1] / native) <= 1e-6, (x, saved, native)
    assert abs(x["plan_saving"] + x["mpi_saving"] - (1 - total / native)) <= 1e-6, x
EOF
grep -q "^#   uniform  *1024 bytes per rank: [0-9.]* over 6 calls (pmpi [0-9.]*); MPI's stalls: auto [0-9]*, native [0-9]*; without them [0-9.]*; plans on [0-9]* of 18 calls saving -*[0-9.]* %, MPI's calls -*[0-9.]* %" "$HR_TMP/runs" &&
    grep -q "^#   (MPI's stalls: calls of MPI's own algorithm over 1.2 x native's median and 0 ms over it" "$HR_TMP/runs" &&
    grep -q "^#   (plans on N of M calls saving X %, MPI's calls Y %: over all runs" "$HR_TMP/runs" ||
    hr_fail "--runs 3: the whole-run summary does not give the ratio without MPI's stalls, or the split of auto's saving with its legend"
grep -q "^#   drift-samplesort  *1024 bytes per rank: .*; MPI's stalls: auto [0-9]*, native [0-9]*; without them [0-9.]*" "$HR_TMP/runs" ||
    hr_fail "--runs 3: the whole-run summary does not give a drifting pattern's ratio without MPI's stalls"
# scripts/bench's README of such a run, whose three runs decide no interval (no line of them)
if grep -q "^# by the intervals of the runs' medians" "$HR_TMP/runs"; then
    hr_fail "--runs 3: intervals said to decide at 75 % confidence"
fi
"${srcdir:-.}/bench/summary.sh" "$csv" "$HR_TMP/runs" --srcdir "${srcdir:-.}" >"$HR_TMP/runs.md" ||
    hr_fail "bench/summary.sh failed on a run whose intervals decide nothing"
grep -q "^- auto / native over the whole run: worst " "$HR_TMP/runs.md" ||
    hr_fail "bench/summary.sh: no whole-run line in the README of --runs 3"

# --order blocks: the same checks pass, the JSON says so, and in every run each candidate
# keeps one position in all its rounds; with 5 runs each whole-run ratio has the interval its
# median lies in: min - max of the runs' ratios at 15/16
run_bench 2 "$HR_TMP/blocks" --patterns uniform,drift-samplesort --sizes 1K --reps 3 \
    --warmup 1 --check-every 2 --runs 5 --families pmpi,native,auto --csv "$csv" \
    --json "$json" --calls "$calls" --order blocks ||
    hr_fail "alltoallv_bench --order blocks failed"
grep -q "each candidate's calls in a block (--order blocks)" "$HR_TMP/blocks" ||
    hr_fail "--order blocks is not said in the header"
python3 - "$csv" "$json" "$calls" <<'EOF' || hr_fail "--order blocks: wrong rows or order"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 6 and all(r["status"] == "ok" for r in rows), rows
for r in rows:
    assert int(r["checked_calls"]) == 5 * (4 if r["pattern"].startswith("drift-") else 2), r
d = json.load(open(sys.argv[2]))
assert d["meta"]["order"] == "blocks"
positions, sums = {}, {}
for c in csv.DictReader(open(sys.argv[3])):
    positions.setdefault((c["pattern"], c["run"], c["algorithm"]), set()).add(c["position"])
    key = (c["pattern"], c["algorithm"], c["run"])
    sums[key] = sums.get(key, 0.0) + float(c["seconds"])
assert len(positions) == 2 * 5 * 3, positions
assert all(len(p) == 1 for p in positions.values()), positions
pairs = {x["pattern"]: x for x in d["summary"]["auto_vs_native_run"]["pairs"]}
for r in rows:
    ratios = [sums[(r["pattern"], r["algorithm"], str(j))] / sums[(r["pattern"], "native", str(j))]
              for j in range(5)]
    lo, hi = float(r["run_ratio_ci_lo"]), float(r["run_ratio_ci_hi"])
    assert abs(lo - min(ratios)) <= 1e-6 * lo and abs(hi - max(ratios)) <= 1e-6 * hi, (r, ratios)
    assert float(r["run_ratio_ci_level"]) == 0.9375, r
    if r["algorithm"] == "auto":
        x = pairs[r["pattern"]]
        assert x["runs"] == 5 and x["ci_level"] == 0.9375, x
        assert abs(x["ci_lo"] - lo) <= 1e-6 * lo and abs(x["ci_hi"] - hi) <= 1e-6 * hi, (x, r)
summary = d["summary"]["auto_vs_native_run"]
within = sum(float(r["run_ratio_ci_hi"]) <= 1.05 for r in rows if r["algorithm"] == "auto")
slower = sum(float(r["run_ratio_ci_lo"]) > 1.05 for r in rows if r["algorithm"] == "auto")
assert summary["shown_within_5_percent"] == within, (summary, within)
assert summary["shown_slower_5_percent"] == slower, (summary, slower)
EOF
grep -q "^#   uniform  *1024 bytes per rank: [0-9.]* over 6 calls.*; median of 5 runs, 94 % interval [0-9.]* - [0-9.]*" "$HR_TMP/blocks" &&
    grep -q "^# by the intervals of the runs' medians (at least 90 % confidence): [0-9]* of 2 shown within 5 %, [0-9]* shown more than 5 % slower, [0-9]* not decided by the runs$" "$HR_TMP/blocks" ||
    hr_fail "--runs 5: the whole-run summary does not give the intervals of the medians"
"${srcdir:-.}/bench/summary.sh" "$csv" "$HR_TMP/blocks" --srcdir "${srcdir:-.}" >"$HR_TMP/blocks.md" &&
    grep -q "^- by the intervals of the runs' medians (at least 90 % confidence)" "$HR_TMP/blocks.md" ||
    hr_fail "bench/summary.sh: the README of --runs 5 does not give the intervals of the medians"
run_bench 2 "$HR_TMP/blocks-bad" --order sideways && hr_fail "--order sideways was accepted"
grep -q "invalid value 'sideways' for --order" "$HR_TMP/blocks-bad" ||
    hr_fail "no message for an invalid --order"

run_bench 2 "$HR_TMP/inject" --quiet --patterns uniform --sizes 1K --reps 1 --inject-error &&
    hr_fail "--inject-error was not detected"
grep -q 'MISMATCH' "$HR_TMP/inject" || hr_fail "no MISMATCH message for the injected error"
grep -q 'RESULTS DIFFERED' "$HR_TMP/inject" || hr_fail "no summary of the mismatch"
echo "smoke: ok"
