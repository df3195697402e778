#!/usr/bin/env bash
# summary.sh TABLE.CSV OUTPUT.TXT [--invocation TEXT] [--command TEXT] [--started TEXT]
#            [--load TEXT] [--ucx-tls TEXT] [--launcher TEXT] [--note TEXT] [--srcdir DIR]
#            [--hrelay-env TEXT]
# Prints the README.md of a benchmark run (scripts/bench): the commands, the machine, the CPU
# use, the median ratios to native, to the lower bound and to the node-level bound per pattern
# and size, the whole-run ratios to native (every call, exploration included), what auto ran
# and how close it came to the fastest candidate, hrelay's per-call overhead at the smallest
# size, the targets of issues 4, 5, 13 and 14, and the plots.
set -euo pipefail

if [[ $# -lt 2 || $1 == -h || $1 == --help ]]; then
    sed -n '2,8s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
    [[ $# -ge 1 && ($1 == -h || $1 == --help) ]] && exit 0
    exit 2
fi
csv=$1
text=$2
shift 2
declare -A opt=([invocation]="" [command]="" [started]="" [load]="" [ucx-tls]="" [launcher]="" [note]=""
    [srcdir]=. [hrelay-env]="")
while [[ $# -ge 2 ]]; do
    key=${1#--}
    [[ -n ${opt[$key]+set} ]] || { echo "summary.sh: unknown option $1" >&2; exit 2; }
    opt[$key]=$2
    shift 2
done
[[ $# -eq 0 ]] || { echo "summary.sh: option $1 needs a value" >&2; exit 2; }

# table COLUMN FORMAT: one markdown table per pattern: rows = sizes, columns = algorithms, cells
# = column COLUMN of the CSV (printf FORMAT), "n/a" where the family handed the pattern on, "-"
# where the column is empty.
table() {
    awk -F, -v col="$1" -v fmt="$2" '
    NR == 1 { next }
    !seenp[$1]++ { pats[np++] = $1 }
    !seena[$1, $4]++ { algs[$1, na[$1]++] = $4 }
    !seens[$1, $3]++ { sizes[$1, ns[$1]++] = $3 }
    { cell[$1, $3, $4] = $6 != "ok" ? $6 : $col != "" ? sprintf(fmt, $col) : "-" }
    function human(b) {
        if (b >= 1048576 && b % 1048576 == 0) return (b / 1048576) " MiB"
        if (b >= 1024 && b % 1024 == 0) return (b / 1024) " KiB"
        return b " B"
    }
    END {
        for (i = 0; i < np; i++) {
            p = pats[i]
            printf "\n**%s**\n\n| bytes per rank |", p
            for (a = 0; a < na[p]; a++) printf " %s |", algs[p, a]
            printf "\n|---|"
            for (a = 0; a < na[p]; a++) printf "---:|"
            printf "\n"
            for (s = 0; s < ns[p]; s++) {
                printf "| %s |", human(sizes[p, s])
                for (a = 0; a < na[p]; a++) printf " %s |", cell[p, sizes[p, s], algs[p, a]]
                printf "\n"
            }
        }
    }' "$csv"
}

# What auto ran, and the per-call overhead at each pattern's smallest size, in microseconds:
# differences of medians, and of minima (the least disturbed call of each).
auto_and_overhead() {
    awk -F, '
    NR == 1 { next }
    !seenp[$1]++ { pats[np++] = $1; small[$1] = $3 }
    $3 < small[$1] { small[$1] = $3 }
    $4 == "auto" { ran[$1] = ran[$1] (ran[$1] == "" ? "" : ", ") $3 ": " $5 }
    $6 == "ok" { med[$1, $3, $4] = $8; low[$1, $3, $4] = $11 }
    function diff(p, a, b) {
        s = small[p]
        if (!((p, s, a) in med) || !((p, s, b) in med)) return "- | -"
        return sprintf("%+.1f | %+.1f", 1e6 * (med[p, s, a] - med[p, s, b]),
                       1e6 * (low[p, s, a] - low[p, s, b]))
    }
    END {
        print "\n## What auto ran (bytes per rank: family)\n"
        for (i = 0; i < np; i++) printf "- %s: %s\n", pats[i], ran[pats[i]]
        print "\n## Per-call overhead at the smallest size (microseconds, same run)\n"
        print "Differences of medians, then of minima (the least disturbed call of each)."
        print "`native - pmpi` is what intercepting costs when hrelay steps aside; `direct - native`"
        print "and `auto - native` what a planned call costs over MPI'"'"'s own at that size.\n"
        print "| pattern | bytes per rank | native - pmpi: median | min | direct - native: median | min | auto - native: median | min |"
        print "|---|---:|---:|---:|---:|---:|---:|---:|"
        for (i = 0; i < np; i++) {
            p = pats[i]
            printf "| %s | %d | %s | %s | %s |\n", p, small[p], diff(p, "native", "pmpi"),
                diff(p, "direct", "native"), diff(p, "auto", "native")
        }
    }' "$csv"
}

# The targets of issue 5, evaluated on this run (they are stated for 16 emulated hosts at
# 100-400 Mbit/s; elsewhere they are indications). $2: 1 for a half-duplex run.
targets() {
    awk -F, -v half="$2" '
    NR == 1 { next }
    $6 == "ok" { med[$1, $3, $4] = $8; rb[$1, $3, $4] = $15 }
    !seenp[$1]++ { pats[np++] = $1 }
    !seens[$1, $3]++ { sizes[$1, ns[$1]++] = $3 }
    function has(p, s, a) { return (p, s, a) in med }
    END {
        big = 1048576
        printf "\n## Targets (issue 5) on this run\n\n"
        printf "Stated for 16 emulated hosts, full duplex, 100-400 Mbit/s, at >= 1 MiB per rank; on other\n"
        printf "runs an indication only. Computed from table.csv by bench/summary.sh.\n\n"
        worst = 0; wp = ""; n1 = 0
        for (i = 0; i < np; i++) for (k = 0; k < ns[pats[i]]; k++) {
            p = pats[i]; s = sizes[p, k]
            if (s < big || !has(p, s, "auto") || rb[p, s, "auto"] == "") continue
            n1++
            if (rb[p, s, "auto"] + 0 > worst) { worst = rb[p, s, "auto"] + 0; wp = p " at " s }
        }
        if (n1) printf "- auto within 1.15x of the lower bound at >= 1 MiB: worst %.2fx (%s): %s\n",
            worst, wp, worst <= 1.15 ? "met" : "missed"
        else printf "- auto within 1.15x of the lower bound at >= 1 MiB: no such rows\n"
        n2 = 0; miss2 = ""
        for (i = 0; i < np; i++) for (k = 0; k < ns[pats[i]]; k++) {
            p = pats[i]; s = sizes[p, k]
            if (s < big || !has(p, s, "native") || !has(p, s, "auto") || rb[p, s, "native"] + 0 <= 1.5) continue
            n2++
            sp = med[p, s, "native"] / med[p, s, "auto"]
            if (sp < 1.4) miss2 = miss2 sprintf(" %s at %s (%.2fx);", p, s, sp)
        }
        if (n2 == 0) v2 = "no such case"
        else if (miss2 == "") v2 = "met"
        else v2 = "missed:" miss2
        printf "- where native is above 1.5x the bound (>= 1 MiB, %d cases), auto >= 1.4x faster: %s\n", n2, v2
        n3 = 0; miss3 = ""; nm3 = 0
        for (i = 0; i < np; i++) for (k = 0; k < ns[pats[i]]; k++) {
            p = pats[i]; s = sizes[p, k]
            if (!has(p, s, "native") || !has(p, s, "auto")) continue
            n3++
            r = med[p, s, "auto"] / med[p, s, "native"]
            if (r > 1.05) { nm3++; if (nm3 <= 12) miss3 = miss3 sprintf(" %s at %s (%.2fx);", p, s, r) }
        }
        if (n3 == 0) v3 = "no rows"
        else if (nm3 == 0) v3 = sprintf("met (%d pattern/size pairs)", n3)
        else v3 = sprintf("missed in %d of %d pattern/size pairs:%s%s", nm3, n3, miss3, nm3 > 12 ? " ..." : "")
        printf "- auto never more than 5%% slower than native: %s\n", v3
        if (half != 1) {
            printf "- half duplex, three-cycles, forward >= 1.15x faster than the best direct schedule: not a half-duplex run\n"
        } else {
            line = ""
            for (k = 0; k < ns["three-cycles"]; k++) {
                s = sizes["three-cycles", k]; best = 0
                split("direct stepwise greedy", fam, " ")
                for (f = 1; f <= 3; f++) if (has("three-cycles", s, fam[f]) && (best == 0 || med["three-cycles", s, fam[f]] < best)) best = med["three-cycles", s, fam[f]]
                if (best > 0 && has("three-cycles", s, "forward"))
                    line = line sprintf(" %s: %.2fx;", s, best / med["three-cycles", s, "forward"])
            }
            printf "- half duplex, three-cycles, best direct schedule / forward (target >= 1.15):%s\n", line == "" ? " no such rows" : line
        }
    }' "$1"
}

# Issue 4's target on this run: per pattern and size, auto's median against the fastest
# candidate's median measured in the same run (pmpi excluded: it is native without hrelay).
auto_vs_best() {
    awk -F, '
    NR == 1 { next }
    !seenp[$1]++ { pats[np++] = $1 }
    !seens[$1, $3]++ { sizes[$1, ns[$1]++] = $3 }
    $6 == "ok" { med[$1, $3, $4] = $8; if ($4 == "auto") ran[$1, $3] = $5 }
    END {
        print "\n## auto against the fastest candidate (issue 4: within 10 %)\n"
        print "Medians of this run; `pmpi` is left out (it is `native` without hrelay)."
        print "A ratio above 1.10 misses the target.\n"
        print "| pattern | bytes per rank | auto ran | fastest | auto / fastest |"
        print "|---|---:|---|---|---:|"
        n = 0; miss = 0
        for (i = 0; i < np; i++) for (k = 0; k < ns[pats[i]]; k++) {
            p = pats[i]; s = sizes[p, k]
            if (!((p, s, "auto") in med)) continue
            best = ""; bt = 0
            for (key in med) {
                split(key, f, SUBSEP)
                if (f[1] != p || f[2] != s || f[3] == "pmpi") continue
                if (best == "" || med[key] < bt) { best = f[3]; bt = med[key] }
            }
            r = med[p, s, "auto"] / bt
            n++; if (r > 1.10) miss++
            printf "| %s | %d | %s | %s | %.2f%s |\n", p, s, ran[p, s], best, r, (r > 1.10 ? " (missed)" : "")
        }
        printf "\nauto within 10 %% of the fastest candidate in %d of %d pattern/size pairs.\n", n - miss, n
    }' "$1"
}

# The targets of issue 14 (auto never loses, drifting patterns) and issue 13 (node-level
# bound), evaluated on this run. Columns: 1 pattern, 2 ranks, 3 bytes per rank, 4 algorithm,
# 6 status, 8 median, 19 ratio to the node-level bound, 22 whole-run ratio to native, 30 and 31
# the interval its median over the runs lies in (--runs 5 or more).
targets_run() {
    awk -F, '
    NR == 1 { next }
    !seenp[$1]++ { pats[np++] = $1 }
    !seens[$1, $3]++ { sizes[$1, ns[$1]++] = $3 }
    $6 == "ok" { med[$1, $3, $4] = $8; rn[$1, $3, $4] = $19; run[$1, $3, $4] = $22; ranks = $2
                 cilo[$1, $3, $4] = $30; cihi[$1, $3, $4] = $31 }
    function has(p, s, a) { return (p, s, a) in med }
    END {
        printf "\n## Targets (issues 13 and 14) on this run\n\n"
        printf "Issue 14 is stated for one node (2 ranks) and 16 emulated hosts; issue 13 for 8 hosts x 4\n"
        printf "ranks, full duplex, at >= 64 KiB per pair. Elsewhere they are indications. Computed from\n"
        printf "table.csv by bench/summary.sh.\n\n"
        n = 0; nm = 0; miss = ""; worst = 0; wp = ""
        for (i = 0; i < np; i++) for (k = 0; k < ns[pats[i]]; k++) {
            p = pats[i]; s = sizes[p, k]
            if (!has(p, s, "auto") || !has(p, s, "native") || run[p, s, "auto"] == "") continue
            n++; r = run[p, s, "auto"] + 0
            if (r > worst) { worst = r; wp = p " at " s }
            if (r > 1.05) { nm++; if (nm <= 12) miss = miss sprintf(" %s at %s (%.2fx);", p, s, r) }
        }
        if (n == 0) printf "- auto / native over the whole run (exploration included) <= 1.05: no rows\n"
        else if (nm == 0) printf "- auto / native over the whole run (exploration included) <= 1.05: met on %d pattern/size pairs (worst %.2fx, %s)\n", n, worst, wp
        else printf "- auto / native over the whole run (exploration included) <= 1.05: missed in %d of %d:%s%s\n", nm, n, miss, (nm > 12 ? " ..." : "")
        n = 0; sw = 0; ss = 0; und = ""
        for (i = 0; i < np; i++) for (k = 0; k < ns[pats[i]]; k++) {
            p = pats[i]; s = sizes[p, k]
            if (!has(p, s, "auto") || cilo[p, s, "auto"] == "") continue
            n++
            if (cihi[p, s, "auto"] + 0 <= 1.05) sw++
            else if (cilo[p, s, "auto"] + 0 > 1.05) { ss++; und = und sprintf(" %s at %s slower (%.2f - %.2f);", p, s, cilo[p, s, "auto"], cihi[p, s, "auto"]) }
            else und = und sprintf(" %s at %s (%.2f - %.2f);", p, s, cilo[p, s, "auto"], cihi[p, s, "auto"])
        }
        if (n > 0) printf "- the same by the intervals of the medians over the runs: %d of %d shown within 5 %%, %d shown more than 5 %% slower, %d not decided%s%s\n", sw, n, ss, n - sw - ss, (und == "" ? "" : ":"), und
        n = 0; miss = ""
        for (i = 0; i < np; i++) for (k = 0; k < ns[pats[i]]; k++) {
            p = pats[i]; s = sizes[p, k]
            if (p !~ /^drift-/ || !has(p, s, "auto") || !has(p, s, "native")) continue
            n++; sp = med[p, s, "native"] / med[p, s, "auto"]
            if (sp < 0.95) miss = miss sprintf(" %s at %s (%.2fx);", p, s, sp)
        }
        if (n == 0) printf "- drifting patterns, auto >= 0.95x native'"'"'s speed (medians): no rows\n"
        else printf "- drifting patterns, auto >= 0.95x native'"'"'s speed (medians): %s\n", (miss == "" ? sprintf("met (%d pattern/size pairs)", n) : "missed:" miss)
        n = 0; worst = 0; wp = ""; n2 = 0; miss2 = ""
        for (i = 0; i < np; i++) for (k = 0; k < ns[pats[i]]; k++) {
            p = pats[i]; s = sizes[p, k]
            if (s / ranks < 65536 || !has(p, s, "auto") || rn[p, s, "auto"] == "") continue
            n++
            if (rn[p, s, "auto"] + 0 > worst) { worst = rn[p, s, "auto"] + 0; wp = p " at " s }
            if (!has(p, s, "native") || rn[p, s, "native"] + 0 <= 1.5) continue
            n2++; sp = med[p, s, "native"] / med[p, s, "auto"]
            if (sp < 1.5) miss2 = miss2 sprintf(" %s at %s (%.2fx);", p, s, sp)
        }
        if (n == 0) printf "- auto within 1.2x the node-level bound at >= 64 KiB per pair: no such rows (or no off-node traffic)\n"
        else printf "- auto within 1.2x the node-level bound at >= 64 KiB per pair: worst %.2fx (%s): %s\n", worst, wp, (worst <= 1.2 ? "met" : "missed")
        if (n2 == 0) printf "- where native is above 1.5x the node-level bound (>= 64 KiB per pair), auto >= 1.5x faster: no such case\n"
        else printf "- where native is above 1.5x the node-level bound (>= 64 KiB per pair, %d cases), auto >= 1.5x faster: %s\n", n2, (miss2 == "" ? "met" : "missed:" miss2)
    }' "$1"
}

# The patterns and sizes the benchmark did not run, one line per pattern and reason.
not_run() {
    sed -n 's/^== \(.*\), \([0-9]*\) bytes per rank: not run: \(.*\)$/\1|\3|\2/p' "$1" |
        awk -F'|' '{k = $1 ": " $2; if (!(k in sz)) order[n++] = k; sz[k] = sz[k] (sz[k] == "" ? "" : ", ") $3}
            END {for (i = 0; i < n; i++) printf "- not run: %s (bytes per rank: %s)\n", order[i], sz[order[i]]}'
}

# The commit of the source tree, "+ changes" if files outside docs/performance differ from it.
source_version() {
    local v
    v=$(git -C "$1" rev-parse --short HEAD 2>/dev/null) || { echo unknown; return; }
    if [[ -n $(git -C "$1" status --porcelain -- . ':!docs/performance' 2>/dev/null) ]]; then
        v+=" + uncommitted changes"
    fi
    echo "$v"
}

name=$(basename "$(dirname "$(readlink -f "$csv")")")
echo "# Benchmark run: $name"
echo
echo "MPI_Alltoallv timed side by side by bench/alltoallv_bench (method: [../README.md](../README.md))."
echo "Started ${opt[started]}."
[[ -z ${opt[note]} ]] || { echo; echo "${opt[note]}"; }
cat <<EOF

## Commands

\`\`\`
${opt[invocation]}
\`\`\`

which ran (launcher: ${opt[launcher]}):

\`\`\`
${opt[command]}
\`\`\`

## Machine

EOF
echo "- hrelay: commit $(source_version "${opt[srcdir]}")"
echo "- MPI: $(grep -m1 '^# [0-9]* ranks' "$text" | sed 's/^# //' | tr -s '\t' ' ')"
echo "- MPICH: $(mpichversion 2>/dev/null | awk -F'\t' '/Version|Device/ {gsub(/ +/, " "); printf "%s%s", sep, $0; sep = "; "}' || echo unknown)"
echo "- UCX: $(dpkg-query -W -f='${Version}' libucx0 2>/dev/null || echo unknown); UCX_TLS for the ranks: ${opt[ucx-tls]}"
echo "- kernel: $(uname -srm); load average before -> after the run: ${opt[load]}"
echo
echo '```'
lscpu 2>/dev/null | grep -E '^(Architecture|CPU\(s\)|Model name|Thread|Core|Socket|NUMA node\(s\)|L[123]|Hypervisor|Virtualization type)' || echo "lscpu not available"
echo '```'
echo
echo "## Lower bound and CPU use"
echo
grep -m1 '^# link rate' "$text" | sed 's/^# /- /'
grep -m1 '^# nodes' "$text" | sed 's/^# /- /'
grep -m1 '^# CPU use of the run' "$text" | sed 's/^# /- /'
grep -m1 '^# auto / native over the whole run: ' "$text" | sed 's/^# /- /'
# only where some run's interval decides (alltoallv_bench: at least 90 % confidence)
{ grep -m1 "^# by the intervals of the runs' medians" "$text" || true; } | sed 's/^# /- /'
[[ -z ${opt[hrelay-env]// /} ]] || echo "- HRELAY_* variables in the environment (forwarded to the ranks): \`${opt[hrelay-env]% }\`"
grep -m1 -E '^# (every checked|RESULTS DIFFERED)' "$text" | sed 's/^# /- /'
not_run "$text"
echo "- the \`cpu_use\` column of table.csv: CPU seconds of all ranks (user + sys) over the wall"
echo "  time of that algorithm's calls, i.e. busy cores"
echo
echo "## Median time / native (below 1: faster than MPI's own MPI_Alltoallv)"
table 14 "%.2f"
echo
echo "## Median time / lower bound"
table 15 "%.2f"
if awk -F, 'NR > 1 && $19 != "" {found = 1} END {exit !found}' "$csv"; then
    echo
    echo "## Median time / node-level bound (the most off-node bytes of a node at the link rate)"
    table 19 "%.2f"
fi
echo
echo "## Whole run / native (every call of the candidate from its first, warm-up and exploration included)"
table 22 "%.2f"
auto_and_overhead
auto_vs_best "$csv"
half=0
grep -q '^# link rate.* half duplex bound' "$text" && half=1
targets "$csv" "$half"
targets_run "$csv"
echo
echo "## Plots"
echo
for png in "$(dirname "$csv")"/*.png; do
    [[ -e $png ]] || continue
    echo "![$(basename "$png" .png)]($(basename "$png"))"
done
echo
echo "Files: table.csv, table.json (every row: median, q1, q3, min, bounds, ratios, CPU use, whole run),"
echo "output.txt (the benchmark's text tables)."
