# shellcheck shell=bash disable=SC2154 # PROG and NAME are set by the test
# What the root tests of the emulated cluster share (tests/emu/smoke.sh, placement.sh): the
# tool and the test program of the build tree, a temporary directory and the cluster NAME,
# both removed at exit or on a signal (and a cluster an earlier, killed run of the test left
# is removed first), a clean HRELAY_* environment, and helpers. Sourced from the top build
# directory after the test has set PROG, NAME and fail().

EMU=$PWD/hrelay-emucluster
EXCHANGE=$PWD/tests/emu/exchange
[ -x "$EMU" ] || fail "$EMU missing (make all builds it)"
[ -x "$EXCHANGE" ] || fail "$EXCHANGE missing (make check builds it)"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hrelay-emu-$(basename "$PROG" .sh).XXXXXX") || exit 99

# emu ARGS: hrelay-emucluster on the test's cluster.
emu() {
    "$EMU" --name "$NAME" "$@"
}

# Removes the cluster and the temporary directory.
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
    emu destroy >/dev/null 2>&1
    rm -rf "$TMP"
}
# A signal (make check stopped, a CI timeout) exits, so the EXIT trap cleans up then too.
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# Removes the clusters an earlier run of this test left (one killed by SIGKILL): named as
# this one is, its letters then a process id, where that process no longer runs.
sweep_stale() {
    local prefix=${NAME%%[0-9]*} name pid
    for name in $("$EMU" list 2>/dev/null | sed -n 's/^\([a-z][a-z0-9]*\):.*/\1/p'); do
        pid=${name#"$prefix"}
        [[ $name != "$NAME" && $pid != "$name" && $pid =~ ^[0-9]+$ ]] || continue
        kill -0 "$pid" 2>/dev/null && continue
        echo "removing cluster $name, left by an earlier run (process $pid is gone)"
        "$EMU" --name "$name" destroy >/dev/null 2>&1
    done
}
sweep_stale
unset HRELAY_ALGO HRELAY_REPORT HRELAY_DUMP HRELAY_VERBOSE HRELAY_DISABLE HRELAY_EMU_NAME \
    HRELAY_EMU_WAKEUP HRELAY_EMU_FINALIZE HRELAY_EMU_SPIN HRELAY_EMU_WAIT_MS HRELAY_EMU_VERBOSE \
    HRELAY_EMU_PAUSE_US

# run LABEL [run options] -- PROGRAM ARGS: one launch on the cluster, output in $TMP/LABEL.
run() {
    local label=$1
    shift
    echo "+ hrelay-emucluster run $*"
    emu run --timeout 120 "$@" >"$TMP/$label" 2>"$TMP/$label.err"
    local status=$?
    cat "$TMP/$label" "$TMP/$label.err"
    [ $status -eq 0 ] || fail "$label: exit status $status"
}

# field TEST KEY FILE: the value of KEY= on the line of FILE that starts with TEST.
field() {
    sed -n "s/^$1 .*[ ]$2=\([0-9.]*\).*/\1/p" "$3"
}

# within VALUE LOW HIGH: succeeds if LOW <= VALUE <= HIGH (decimals).
within() {
    awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "" && v >= lo && v <= hi) }'
}
