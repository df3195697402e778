# shellcheck shell=bash disable=SC2154 # name and name_opt are set by hrelay-emucluster
# hrelay-emucluster, run: launches a program once or repeatedly under a timeout and
# reports its wall time and CPU use.
# Sourced by scripts/hrelay-emucluster (never run on its own); the constants and the
# globals name and name_opt are set there.

# Prints the --help of run.
usage_run() {
    cat <<EOF
Usage: $PROG [--name NAME] run [options] -- PROGRAM [ARGS...]

Runs PROGRAM with MPICH's hydra (mpiexec.mpich, started in the switch namespace), one rank per
host or several: -launcher ssh -launcher-exec <a script that runs the proxy with 'ip netns
exec HOST'>, -f <hosts file naming the namespaces and their ranks>, -iface $BRIDGE, and for
the ranks UCX_TLS=tcp,self (tcp,self,sm with several ranks on a host), UCX_NET_DEVICES=$HOST_IF,
UCX_RNDV_THRESH=inf and LD_PRELOAD of libhrelay-emu.so (the emulator's helper: idle ranks
block instead of busy-polling, MPI_Finalize cannot hang, each host has its own shared memory).

  -n P             ranks (default N: one per host; P < N uses the first P hosts). P > N puts
                   consecutive ranks on one host: P/N on each when N divides P, else one
                   more on each of the first P mod N hosts. The ranks of a host share its
                   NIC for traffic to other hosts, UCX's shared memory carries the traffic
                   among them (TCP over the host's loopback with --no-helper), and
                   MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) sees each host as a node
  --hrelay         also preload libhrelay.so into the ranks; HRELAY_* variables of the
                   environment reach the ranks (as every variable does) and --env adds more
  --lib PATH       the libhrelay.so to preload (default \$HRELAY_LIB, the build tree's, or
                   $INSTALLED_HRELAY_LIB)
  --emu-lib PATH   the helper to preload (default \$HRELAY_EMU_LIB, the build tree's, or
                   $INSTALLED_EMU_LIB)
  --no-helper      do not preload the helper (to see busy polling and the finalize hang)
  --env VAR=VALUE  set VAR for the ranks (repeatable; overrides the defaults above)
  --timeout S      kill a run after S seconds and count it as hung (default 600; 0: never)
  --repeat K       run K times; print one line per run and finally
                   'runs: K, passed: A, failed: B, hung: C' (exit 0 only when all passed)
  --quiet          with --repeat, keep each run's output in a file instead of printing it
                   (the file is named in the run's line; kept for failed and hung runs)
  --dry-run        print the mpiexec command instead of running it

After each run a line on stderr gives its wall time and CPU use: the CPU seconds of the
launched processes (user + system, all ranks and proxies) and the machine's busy share of
all cores during the run (from /proc/stat, so other load counts too). A CPU-bound run says
nothing about the network. After a hung run, every process left in the cluster's host
namespaces is killed.
EOF
}

# Prints the CPU seconds (user + system) of this shell's finished children so far: fields
# cutime and cstime of /proc/$$/stat ($$ is this shell even inside a command substitution).
children_cpu() {
    local ticks
    ticks=$(getconf CLK_TCK 2>/dev/null || echo 100)
    sed 's/^.*) //' "/proc/$$/stat" | awk -v hz="$ticks" '{ printf "%.2f\n", ($14 + $15) / hz }'
}

# Prints "busy total" jiffies of all CPUs from /proc/stat.
cpu_jiffies() {
    awk '$1 == "cpu" { t = $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9; print t - $5 - $6, t; exit }' /proc/stat
}

# Prints the names of the hosts whose namespaces still hold processes.
busy_hosts() {
    local i out=
    for ((i = 0; i < N; i++)); do
        [[ -z $(ip netns pids "$(host_ns "$i")" 2>/dev/null) ]] || out+=" h$i"
    done
    printf '%s\n' "${out# }"
}

# Runs the command in `launch` once under the timeout; sets run_status (the exit status,
# 124 for a timeout) and prints the run's line on stderr. $1: label, $2: output file or "".
run_once() {
    local label=$1 out=$2 t0 t1 cpu0 cpu1 j0 j1 jt0 jt1 wall cpu busy left
    read -r j0 jt0 < <(cpu_jiffies)
    cpu0=$(children_cpu)
    t0=$(date +%s.%N)
    run_status=0
    local -a guard=()
    [[ $timeout_s -eq 0 ]] || guard=(timeout --kill-after=10 "$timeout_s")
    # In the background, so that an interrupt reaches the launch too (timeout runs it in a
    # process group of its own, which a terminal's Ctrl-C does not reach).
    if [[ -n $out ]]; then
        "${guard[@]}" "${launch[@]}" >"$out" 2>&1 </dev/null &
    else
        "${guard[@]}" "${launch[@]}" </dev/null &
    fi
    local child=$! interrupted=0
    trap 'interrupted=1; kill -TERM "$child" 2>/dev/null || true' INT TERM
    while :; do
        wait "$child" && run_status=0 || run_status=$?
        kill -0 "$child" 2>/dev/null || break
    done
    trap - INT TERM
    if [[ $interrupted -eq 1 ]]; then
        kill_cluster_processes hosts
        die "interrupted; the run's processes were stopped"
    fi
    t1=$(date +%s.%N)
    cpu1=$(children_cpu)
    read -r j1 jt1 < <(cpu_jiffies)
    wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
    cpu=$(awk -v a="$cpu0" -v b="$cpu1" -v w="$wall" -v n="$(nproc)" \
        'BEGIN { c = b - a; printf "%.2f s (%.0f%% of %d cores)", c, (w > 0 ? 100 * c / w / n : 0), n }')
    busy=$(awk -v a="$j0" -v b="$j1" -v c="$jt0" -v d="$jt1" \
        'BEGIN { printf "%.0f%%", (d > c ? 100 * (b - a) / (d - c) : 0) }')
    local verdict=pass
    if [[ $run_status -eq 124 || $run_status -eq 137 ]]; then
        verdict=HUNG
        left=$(busy_hosts)
        [[ -z $left ]] || verdict+=" (processes left on: $left; killed)"
        kill_cluster_processes hosts
        run_status=124
    elif [[ $run_status -ne 0 ]]; then
        verdict="FAIL (exit $run_status)"
    fi
    if [[ -n $out && $run_status -eq 0 ]]; then
        rm -f "$out"
        out=
    fi
    say "$label: $verdict; wall $wall s; CPU of the run $cpu; machine busy $busy${out:+; output in $out}"
}

# run [options] -- PROGRAM [ARGS]: launches, possibly repeatedly (see usage_run); returns the
# program's status, or with --repeat 0 only when every run passed.
cmd_run() {
    local np='' with_hrelay=0 lib='' emu_lib='' helper=1 repeat=1 dry=0 quiet=0 var
    timeout_s=600
    declare -A rank_env=()
    declare -A user_env=()
    while [[ $# -gt 0 ]]; do
        case $1 in
            -h | --help) usage_run; exit 0 ;;
            -n | -np) [[ $# -ge 2 ]] || usage_error "$1 needs a number"; np=$2; shift ;;
            --hrelay) with_hrelay=1 ;;
            --lib) [[ $# -ge 2 ]] || usage_error "--lib needs a path"; lib=$2; shift ;;
            --lib=*) lib=${1#*=} ;;
            --emu-lib) [[ $# -ge 2 ]] || usage_error "--emu-lib needs a path"; emu_lib=$2; shift ;;
            --emu-lib=*) emu_lib=${1#*=} ;;
            --no-helper) helper=0 ;;
            --env) [[ $# -ge 2 ]] || usage_error "--env needs VAR=VALUE"; var=$2; shift
                [[ $var =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || usage_error "invalid --env '$var' (VAR=VALUE)"
                user_env[${var%%=*}]=${var#*=} ;;
            --env=*) var=${1#*=}
                [[ $var =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || usage_error "invalid --env '$var' (VAR=VALUE)"
                user_env[${var%%=*}]=${var#*=} ;;
            --timeout) [[ $# -ge 2 ]] || usage_error "--timeout needs seconds"; timeout_s=$2; shift ;;
            --timeout=*) timeout_s=${1#*=} ;;
            --repeat) [[ $# -ge 2 ]] || usage_error "--repeat needs a count"; repeat=$2; shift ;;
            --repeat=*) repeat=${1#*=} ;;
            --quiet) quiet=1 ;;
            --dry-run) dry=1 ;;
            --) shift; break ;;
            *) usage_error "run: unknown option '$1' (the program comes after '--')" ;;
        esac
        shift
    done
    [[ $# -gt 0 ]] || usage_error "run needs a program after '--'"
    [[ $timeout_s =~ ^[0-9]{1,6}$ ]] || usage_error "invalid --timeout '$timeout_s' (seconds)"
    [[ $repeat =~ ^[1-9][0-9]{0,5}$ ]] || usage_error "invalid --repeat '$repeat'"
    need_root run
    check_cluster
    [[ -z $np ]] || [[ $np =~ ^[1-9][0-9]{0,5}$ ]] || usage_error "invalid -n '$np'"
    np=${np:-$N}

    local preload_emu='' preload_hrelay=''
    if [[ $helper -eq 1 ]]; then
        preload_emu=$(find_emu_lib "$emu_lib")
        [[ -f $preload_emu ]] || die "libhrelay-emu.so not found at $preload_emu; build hrelay (make), or give --emu-lib PATH / HRELAY_EMU_LIB"
        preload_emu=$(absolute "$preload_emu")
    fi
    if [[ $with_hrelay -eq 1 ]]; then
        preload_hrelay=$(find_hrelay_lib "$lib")
        [[ -f $preload_hrelay ]] || die "libhrelay.so not found at $preload_hrelay; build hrelay (make), or give --lib PATH / HRELAY_LIB"
        preload_hrelay=$(absolute "$preload_hrelay")
    fi
    default_rank_env $((helper == 1 && np > N))
    rank_env[LD_PRELOAD]=$(preload_list "$preload_hrelay" "$preload_emu")
    [[ -n ${rank_env[LD_PRELOAD]} ]] || unset 'rank_env[LD_PRELOAD]'
    for var in "${!user_env[@]}"; do
        rank_env[$var]=${user_env[$var]}
    done

    local launch=() hosts
    hosts=$(hosts_file "$np")
    build_launch "$hosts" -n "$np" "$@"
    if [[ $dry -eq 1 ]]; then
        printf '%q' "${launch[0]}"
        printf ' %q' "${launch[@]:1}"
        printf '\n'
        return 0
    fi

    local k passed=0 failed=0 hung=0 out='' logdir=''
    if [[ $quiet -eq 1 && $repeat -gt 1 ]]; then
        logdir=$(mktemp -d "${TMPDIR:-/tmp}/$PROG-$name.XXXXXX")
    fi
    for ((k = 1; k <= repeat; k++)); do
        out=
        [[ -z $logdir ]] || out=$logdir/run-$k.log
        run_once "run $k/$repeat" "$out"
        case $run_status in
            0) passed=$((passed + 1)) ;;
            124) hung=$((hung + 1)) ;;
            *) failed=$((failed + 1)) ;;
        esac
    done
    [[ -z $logdir ]] || rmdir "$logdir" 2>/dev/null || true
    if [[ $repeat -gt 1 ]]; then
        printf 'runs: %d, passed: %d, failed: %d, hung: %d\n' "$repeat" "$passed" "$failed" "$hung"
        [[ $passed -eq $repeat ]]
        return
    fi
    return "$run_status"
}
