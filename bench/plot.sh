#!/usr/bin/env bash
# plot.sh TABLE.CSV OUTDIR: draws OUTDIR/<pattern>.png for every pattern of TABLE.CSV (the
# --csv output of alltoallv_bench): median seconds per call (log) against bytes per rank (log),
# one line per algorithm whose rows are ok, with error bars from q1 to q3, and the lower bound
# dashed. Needs gnuplot (Debian: gnuplot-nox). Used by scripts/bench.
set -euo pipefail

if [[ $# -ne 2 || $1 == -h || $1 == --help ]]; then
    echo "Usage: bench/plot.sh TABLE.CSV OUTDIR (draws OUTDIR/<pattern>.png per pattern)"
    [[ $# -eq 1 && ($1 == -h || $1 == --help) ]] && exit 0
    exit 2
fi
csv=$1
out=$2
[[ -r $csv ]] || { echo "plot.sh: cannot read $csv" >&2; exit 1; }
command -v gnuplot >/dev/null 2>&1 || { echo "plot.sh: gnuplot not found (gnuplot-nox)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hrelay-plot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The CSV's columns (alltoallv_bench): 1 pattern, 2 ranks, 3 bytes_per_rank, 4 algorithm,
# 5 ran, 6 status, 8 median_s, 9 q1_s, 10 q3_s, 12 lower_bound_s.
awk -F, 'NR > 1 && !seen[$1]++ {print $1}' "$csv" >"$tmp/patterns"
while IFS= read -r pattern; do
    rm -f "$tmp"/*.dat
    awk -F, -v p="$pattern" -v d="$tmp" 'NR > 1 && $1 == p {
        if ($6 == "ok") print $3, $8, $9, $10 > (d "/" $4 ".dat")
        if (!bound[$3]++ && $12 != "") print $3, $12 > (d "/bound.dat")
    }' "$csv"
    ranks=$(awk -F, -v p="$pattern" 'NR > 1 && $1 == p {print $2; exit}' "$csv")
    algorithms=$(awk -F, -v p="$pattern" 'NR > 1 && $1 == p && $6 == "ok" && !seen[$4]++ {print $4}' "$csv")
    [[ -n $algorithms ]] || continue
    plot=()
    for a in $algorithms; do
        plot+=("'$tmp/$a.dat' using 1:2:3:4 with yerrorlines title '$a'")
    done
    [[ ! -s $tmp/bound.dat ]] || plot+=("'$tmp/bound.dat' using 1:2 with lines dashtype 2 lw 2 lc rgb 'black' title 'lower bound'")
    {
        echo "set terminal pngcairo size 900,600 noenhanced"
        echo "set output '$out/$pattern.png'"
        echo "set title '$pattern, P = $ranks: median time per MPI_Alltoallv (bars: q1..q3)'"
        echo "set logscale x 2"
        echo "set logscale y 10"
        echo "set format x '%.0b %BB'"
        echo "set format y '%.0e s'"
        echo "set xlabel 'bytes per rank'"
        echo "set ylabel 'seconds per call'"
        echo "set key left top"
        echo "set grid"
        printf 'plot %s' "${plot[0]}"
        printf ', \\\n  %s' "${plot[@]:1}"
        echo
    } >"$tmp/plot.gp"
    gnuplot "$tmp/plot.gp" </dev/null
done <"$tmp/patterns"
