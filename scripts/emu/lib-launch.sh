# shellcheck shell=bash disable=SC2154 # name and name_opt are set by hrelay-emucluster
# hrelay-emucluster, launching: the mpiexec command of a cluster (mpiexec, and
# what run starts), and exec.
# Sourced by scripts/hrelay-emucluster (never run on its own); the constants and the
# globals name and name_opt are set there.

# Prints the --help of mpiexec.
usage_mpiexec() {
    cat <<EOF
Usage: $PROG [--name NAME] mpiexec [MPIEXEC ARGS...]

mpiexec.mpich with the cluster's launcher, hosts file, interface and UCX settings added, and
libhrelay-emu.so put into the ranks' LD_PRELOAD (merged with a '-genv LD_PRELOAD ...' among
the arguments). This is what hrelay-run needs as its launcher; create writes a one-line script
$STATE_ROOT/NAME/mpiexec that calls it, so:

  hrelay-run --mpiexec $STATE_ROOT/NAME/mpiexec --algo direct -n 16 ./app

Without -n, hydra starts one rank per host. Ranks are placed as by 'run -n P' (P: the sum of
the -n values of the arguments' MPMD segments): consecutive ranks on one host when P is
larger than the number of hosts, sharing its NIC and UCX's shared memory.
EOF
}

# Prints the --help of exec.
usage_exec() {
    cat <<EOF
Usage: $PROG [--name NAME] exec HOST COMMAND [ARGS...]

Runs COMMAND in the namespace of host HOST (0..N-1) or of the switch ('sw'), with the
caller's environment, e.g. for iperf3:
  $PROG exec 1 iperf3 -s -D
  $PROG exec 0 iperf3 -c $SUBNET_PREFIX.0.2 -t 5
EOF
}

# Prints the first existing file among the arguments (empty when none exists).
first_file() {
    local f
    for f in "$@"; do
        if [[ -n $f && -f $f ]]; then
            printf '%s\n' "$f"
            return
        fi
    done
}

# Prints the helper library to preload: $1 (--emu-lib), HRELAY_EMU_LIB, the build tree's, or
# the installed one.
find_emu_lib() {
    local f
    [[ -z $1 ]] || { printf '%s\n' "$1"; return; }
    [[ -z ${HRELAY_EMU_LIB:-} ]] || { printf '%s\n' "$HRELAY_EMU_LIB"; return; }
    f=$(first_file "$script_dir/src/emu/.libs/libhrelay-emu.so" \
        "$script_dir/../_build/src/emu/.libs/libhrelay-emu.so" "$INSTALLED_EMU_LIB")
    printf '%s\n' "${f:-$INSTALLED_EMU_LIB}"
}

# Prints libhrelay.so: $1 (--lib), HRELAY_LIB, the build tree's, or the installed one.
find_hrelay_lib() {
    local f
    [[ -z $1 ]] || { printf '%s\n' "$1"; return; }
    [[ -z ${HRELAY_LIB:-} ]] || { printf '%s\n' "$HRELAY_LIB"; return; }
    f=$(first_file "$script_dir/.libs/libhrelay.so" "$script_dir/../_build/.libs/libhrelay.so" \
        "$INSTALLED_HRELAY_LIB")
    printf '%s\n' "${f:-$INSTALLED_HRELAY_LIB}"
}

# Prints the launcher: HRELAY_EMU_MPIEXEC, the configured one, or mpiexec.mpich.
find_mpiexec() {
    local m=${HRELAY_EMU_MPIEXEC:-$CONFIGURED_MPIEXEC}
    [[ $m != @* ]] || m=mpiexec.mpich
    command -v "$m" >/dev/null 2>&1 || die "MPI launcher '$m' not found; install the Debian package mpich (or set HRELAY_EMU_MPIEXEC)"
    printf '%s\n' "$m"
}

# Makes path $1 absolute.
absolute() {
    case $1 in
        /*) printf '%s\n' "$1" ;;
        *) printf '%s/%s\n' "$PWD" "$1" ;;
    esac
}

# Fills the array `launch` with the mpiexec command of cluster $name: the cluster's options with
# hosts file $1, then -genv for every entry of the associative array `rank_env` (sorted), then
# the remaining arguments.
build_launch() {
    local dir var hosts=$1
    shift
    dir=$(state_dir)
    launch=(ip netns exec "$(switch_ns)" env -u LD_PRELOAD "$(find_mpiexec)"
        -launcher ssh -launcher-exec "$dir/launch" -f "$hosts" -iface "$BRIDGE")
    for var in $(printf '%s\n' "${!rank_env[@]}" | sort); do
        launch+=(-genv "$var" "${rank_env[$var]}")
    done
    launch+=("$@")
}

# Sets the defaults of the ranks' environment in `rank_env`. $1: 1 when a host runs several
# ranks and the helper makes each host a machine of its own for UCX; UCX's shared-memory
# transports (sm) then carry the traffic between the ranks of a host. Without the helper every
# namespace would share memory with every other, so sm stays out (and TCP over the host's
# loopback carries that traffic).
default_rank_env() {
    if [[ $1 -eq 1 ]]; then
        rank_env[UCX_TLS]=tcp,self,sm
    else
        rank_env[UCX_TLS]=tcp,self
    fi
    rank_env[UCX_NET_DEVICES]=$HOST_IF
    rank_env[UCX_RNDV_THRESH]=inf
}

# Prints how many ranks the mpiexec arguments ask for: the sum of the -n (-np) values of the
# MPMD segments (separated by ':'; in each, hydra's options come before the program, whose own
# arguments are not looked at), or nothing when no segment gives one.
mpiexec_ranks() {
    local args=("$@") i=0 total='' in_program=0
    while [[ $i -lt ${#args[@]} ]]; do
        if [[ ${args[i]} == : ]]; then
            in_program=0
        elif [[ $in_program -eq 0 ]]; then
            case ${args[i]} in
                -n | -np)
                    if [[ ${args[i + 1]:-} =~ ^[0-9]{1,6}$ ]]; then
                        total=$((${total:-0} + 10#${args[i + 1]}))
                    fi
                    i=$((i + 1)) ;;
                -genv | -env) i=$((i + 2)) ;;
                -f | -hostfile | -machinefile | -hosts | -host | -ppn | -wdir | -genvlist | \
                    -envlist | -configfile | -launcher | -launcher-exec | -iface | -bind-to | \
                    -binding | -map-by | -rmk | -demux | -prepend-pattern | -outfile-pattern | \
                    -errfile-pattern | -profile | -nameserver | -gpus-per-proc | \
                    -ckpoint-prefix | -ckpointlib | -ckpoint-interval | -topolib | -port | \
                    -info | -usize | -tmpdir) i=$((i + 1)) ;;
                -*) ;;
                *) in_program=1 ;;
            esac
        fi
        i=$((i + 1))
    done
    printf '%s\n' "$total"
}

# Prints the hosts file of a launch of P ranks ($1; empty: hydra's default, one rank per host):
# the cluster's 'hosts' (one slot per host) when P <= N, else hosts-P (written when missing),
# which puts consecutive ranks on one host: P/N on each when N divides P, else one more on each
# of the first P mod N hosts.
hosts_file() {
    local np=$1 dir i per extra tmp
    dir=$(state_dir)
    if [[ -z $np || $np -le $N ]]; then
        printf '%s\n' "$dir/hosts"
        return
    fi
    if [[ ! -f $dir/hosts-$np ]]; then
        per=$((np / N))
        extra=$((np % N))
        tmp=$(mktemp "$dir/.hosts-$np.XXXXXX")
        for ((i = 0; i < N; i++)); do
            printf '%s:%d\n' "$(host_ns "$i")" $((per + (i < extra ? 1 : 0)))
        done >"$tmp"
        chmod 644 "$tmp"
        mv -f "$tmp" "$dir/hosts-$np"
    fi
    printf '%s\n' "$dir/hosts-$np"
}

# Prints the colon-separated LD_PRELOAD of the ranks: the given libraries (empty ones
# skipped), then the caller's LD_PRELOAD.
preload_list() {
    local out='' f
    for f in "$@" ${LD_PRELOAD:+"$LD_PRELOAD"}; do
        [[ -n $f ]] || continue
        out=${out:+$out:}$f
    done
    printf '%s\n' "$out"
}

# Checks that the cluster exists and is complete before a launch.
check_cluster() {
    load_config
    [[ $(cluster_namespaces | wc -l) -eq $((N + 1)) ]] ||
        die "cluster '$name' is incomplete; run: $PROG${name_opt} destroy, then create it again"
}

# mpiexec [ARGS]: replaces this process with mpiexec on the cluster (see usage_mpiexec).
cmd_mpiexec() {
    local args=() emu_lib user_preload=
    [[ ${1:-} != -h && ${1:-} != --help ]] || { usage_mpiexec; exit 0; }
    need_root mpiexec
    check_cluster
    declare -A rank_env=()
    # Take '-genv LD_PRELOAD X' out of the arguments; it is merged with the helper below.
    while [[ $# -gt 0 ]]; do
        if [[ $1 == -genv && $# -ge 3 && $2 == LD_PRELOAD ]]; then
            user_preload=$3
            shift 3
            continue
        fi
        args+=("$1")
        shift
    done
    emu_lib=$(find_emu_lib "")
    [[ -f $emu_lib ]] || die "libhrelay-emu.so not found at $emu_lib; build hrelay (make) or set HRELAY_EMU_LIB"
    local np hosts launch=()
    np=$(mpiexec_ranks "${args[@]}")
    hosts=$(hosts_file "$np")
    default_rank_env $((${np:-0} > N))
    rank_env[LD_PRELOAD]=$(preload_list "$user_preload" "$(absolute "$emu_lib")")
    build_launch "$hosts" "${args[@]}"
    exec "${launch[@]}"
}

# exec HOST COMMAND: replaces this process with COMMAND in HOST's namespace.
cmd_exec() {
    [[ ${1:-} != -h && ${1:-} != --help ]] || { usage_exec; exit 0; }
    [[ $# -ge 2 ]] || usage_error "exec needs HOST and COMMAND"
    need_root exec
    check_cluster
    local host=$1 ns
    shift
    if [[ $host == sw ]]; then
        ns=$(switch_ns)
    else
        [[ $host =~ ^[0-9]+$ && $host -lt $N ]] || usage_error "invalid host '$host' (0..$((N - 1)) or sw)"
        ns=$(host_ns "$host")
    fi
    exec ip netns exec "$ns" "$@"
}
