#!/usr/bin/env bash
# The command line of hrelay-emucluster, without building a cluster (no root needed; as root,
# every command runs as user nobody, so nothing can be built): every command's --help and
# --version; usage errors (status 2) name what is wrong; every command that needs root refuses
# with status 1 and a message naming root; the pieces' helpers parse and print rates and name
# hosts (scripts/emu/lib-common.sh), count the ranks of an mpiexec command line and write the
# host file that places them (scripts/emu/lib-launch.sh) as documented. Run by make check from
# the top build directory.
set -u

PROG=tests/emu/cli.sh
fail() {
    echo "FAIL: $*" >&2
    exit 1
}

if [ "${HRELAY_BUILT_EMU:-yes}" = no ]; then
    echo "SKIP: tests/emu/cli.sh: configured without the emulated cluster (no hrelay-emucluster)"
    exit 77
fi
EMU=$PWD/hrelay-emucluster
[ -x "$EMU" ] || fail "$EMU missing (make all builds it)"
LIB=${srcdir:-.}/scripts/emu/lib-common.sh
[ -f "$LIB" ] || fail "$LIB missing"
# A name of its own: should a check below wrongly pass its command through, nothing of another
# cluster is touched (and as root every check runs as user nobody, so nothing is built at all).
export HRELAY_EMU_NAME=cli$$
as_user=()
if [ "$(id -u)" -eq 0 ]; then
    as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi

# expect STATUS PATTERN ARGS...: runs hrelay-emucluster ARGS (as user nobody when root); fails
# unless it exits with STATUS and its output (stdout and stderr) matches the extended regular
# expression PATTERN.
expect() {
    local want=$1 pattern=$2 out status
    shift 2
    out=$("${as_user[@]}" "$EMU" "$@" 2>&1)
    status=$?
    [ "$status" -eq "$want" ] || fail "'$*': status $status (expected $want): $out"
    printf '%s\n' "$out" | grep -Eq -- "$pattern" ||
        fail "'$*': output does not match '$pattern': $out"
}

echo "== --help and --version"
expect 0 '^Usage: hrelay-emucluster \[--name NAME\] COMMAND' --help
expect 0 '^Usage: hrelay-emucluster \[--name NAME\] COMMAND' help
for command in create destroy status list run mpiexec exec; do
    expect 0 "^Usage: hrelay-emucluster( \\[--name NAME\\])? $command" "$command" --help
    expect 0 "^Usage: hrelay-emucluster( \\[--name NAME\\])? $command" "$command" -h
done
expect 0 '^hrelay-emucluster \(hrelay\) [0-9]+\.[0-9]+' --version
# Every command and option of the tool's help is described in its command's help.
for option in --duplex --queue --txqueue --cc --mtu; do
    expect 0 "^ +$option " create --help
done
for option in -n --hrelay --lib --emu-lib --no-helper --env --timeout --repeat --quiet --dry-run; do
    expect 0 "^ +$option " run --help
done

echo "== usage errors"
expect 2 'no command given' --name hx
expect 2 "unknown command 'bogus'" bogus
expect 2 "unknown option '--bogus'" --bogus list
expect 2 "invalid cluster name 'Hx'" --name Hx list
expect 2 "invalid cluster name 'abcdefghijklm'" --name abcdefghijklm list
expect 2 '--name needs a name' --name
expect 2 "create needs N and RATE" create 4
expect 2 "invalid N '0'" create 0 100mbit
expect 2 "invalid N '1001'" create 1001 100mbit
expect 2 "invalid RATE '100x'" create 4 100x
expect 2 "invalid RATE '200g'" create 4 200g
expect 2 "invalid --duplex 'both'" create 4 100mbit --duplex both
expect 2 "invalid --queue '0'" create 4 100mbit --queue 0
expect 2 "invalid --txqueue 'x'" create 4 100mbit --txqueue=x
expect 2 "invalid --mtu '1000'" create 4 100mbit --mtu 1000
expect 2 "invalid --cc 'nosuchcc'; this kernel offers: " create 4 100mbit --cc nosuchcc
expect 2 "create: unknown option '--rate'" create 4 --rate 100mbit
expect 2 "destroy: unexpected argument 'x'" destroy x
expect 2 "status: unexpected argument 'x'" status x
expect 2 "list: unexpected argument 'x'" list x
expect 2 "run needs a program after '--'" run --
expect 2 "run: unknown option '--bogus'" run --bogus -- true
expect 2 "run: unknown option 'prog' \\(the program comes after '--'\\)" run prog
expect 2 "invalid --timeout '1.5'" run --timeout 1.5 -- true
expect 2 "invalid --repeat '0'" run --repeat 0 -- true
expect 2 "invalid --env 'X'" run --env X -- true
expect 2 "invalid --env '1X=2'" run --env=1X=2 -- true
expect 2 '--lib needs a path' run --lib
expect 2 "exec needs HOST and COMMAND" exec 0

echo "== without root"
for args in "create 4 100mbit" "destroy" "status" "list" "run -- true" "mpiexec -n 2 true" \
    "exec 0 true"; do
    # shellcheck disable=SC2086 # the words of args are the arguments
    out=$("${as_user[@]}" "$EMU" $args 2>&1)
    status=$?
    command=${args%% *}
    [ "$status" -eq 1 ] || fail "non-root '$args': status $status (expected 1): $out"
    printf '%s\n' "$out" | grep -q "^hrelay-emucluster: error: '$command' needs root" ||
        fail "non-root '$args': no \"'$command' needs root\" message: $out"
done

echo "== helpers of scripts/emu/lib-common.sh and lib-launch.sh"
state=$(mktemp -d "${TMPDIR:-/tmp}/hrelay-emu-cli.XXXXXX") || exit 99
trap 'rm -rf "$state"' EXIT
(
    # shellcheck disable=SC2034 # read by the sourced helpers
    PROG=hrelay-emucluster SUBNET_PREFIX=10.77 name=hx STATE_ROOT=$state N=4
    # shellcheck source=scripts/emu/lib-common.sh
    . "$LIB"
    # shellcheck source=scripts/emu/lib-launch.sh
    . "${LIB%/*}/lib-launch.sh"
    check() {
        [ "$2" = "$3" ] || fail "$1 gave '$2' (expected '$3')"
    }
    check "parse_rate 200mbit" "$(parse_rate 200mbit)" 200000000
    check "parse_rate 200M" "$(parse_rate 200M)" 200000000
    check "parse_rate 1g" "$(parse_rate 1g)" 1000000000
    check "parse_rate 500k" "$(parse_rate 500k)" 500000
    check "parse_rate 500000" "$(parse_rate 500000)" 500000
    check "parse_rate 100gbit" "$(parse_rate 100gbit)" 100000000000
    for bad in 0 101g 1t 12x 1.5m '' 0000000000001g; do
        parse_rate "$bad" >/dev/null && fail "parse_rate accepted '$bad'"
    done
    check "rate_text 200000000" "$(rate_text 200000000)" "200 Mbit/s"
    check "rate_text 1000000000" "$(rate_text 1000000000)" "1 Gbit/s"
    check "rate_text 1500" "$(rate_text 1500)" "1500 bit/s"
    check "host_ns 3" "$(host_ns 3)" hx-h3
    check "switch_ns" "$(switch_ns)" hx-sw
    check "host_addr 0" "$(host_addr 0)" 10.77.0.1
    check "host_addr 255" "$(host_addr 255)" 10.77.1.0
    check "host_addr 999" "$(host_addr 999)" 10.77.3.232
    check "host_mac 255" "$(host_mac 255)" 02:68:72:00:01:00
    check "port_mac 0" "$(port_mac 0)" 02:68:72:01:00:01
    # The ranks an mpiexec command line asks for (hrelay-run's form first).
    check "mpiexec_ranks (hrelay-run)" \
        "$(mpiexec_ranks -genv LD_PRELOAD /l.so -genv HRELAY_ALGO direct -n 4 ./app -n 9)" 4
    check "mpiexec_ranks -np" "$(mpiexec_ranks -ppn 2 -f hosts -np 8 ./app)" 8
    check "mpiexec_ranks MPMD" "$(mpiexec_ranks -n 2 ./a -n 7 : -genvall -np 3 ./b)" 5
    check "mpiexec_ranks without -n" "$(mpiexec_ranks -genv A b ./app -n 4)" ""
    check "mpiexec_ranks -n without a number" "$(mpiexec_ranks -n)" ""
    # The host file of a launch on the 4 hosts of cluster hx.
    mkdir -p "$state/hx"
    check "hosts_file 4" "$(hosts_file 4)" "$state/hx/hosts"
    check "hosts_file ''" "$(hosts_file '')" "$state/hx/hosts"
    check "hosts_file 10" "$(hosts_file 10)" "$state/hx/hosts-10"
    check "hosts-10" "$(paste -sd ' ' "$state/hx/hosts-10")" "hx-h0:3 hx-h1:3 hx-h2:2 hx-h3:2"
    check "hosts_file 16" "$(hosts_file 16)" "$state/hx/hosts-16"
    check "hosts-16" "$(paste -sd ' ' "$state/hx/hosts-16")" "hx-h0:4 hx-h1:4 hx-h2:4 hx-h3:4"
) || exit 1
echo "PASS"
exit 0
