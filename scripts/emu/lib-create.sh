# shellcheck shell=bash disable=SC2154 # name and name_opt are set by hrelay-emucluster
# hrelay-emucluster, create: builds a cluster (namespaces, veths, bridge, tc)
# and writes its state.
# Sourced by scripts/hrelay-emucluster (never run on its own); the constants and the
# globals name and name_opt are set there.

# Prints the --help of create.
usage_create() {
    cat <<EOF
Usage: $PROG [--name NAME] create N RATE [--duplex full|half] [--queue MS]
                 [--txqueue PACKETS] [--cc ALGORITHM] [--mtu BYTES]

Builds a cluster of N hosts (1..$MAX_HOSTS) whose NICs run at RATE. An existing cluster of the
same name is destroyed first, so running the same create twice gives the same cluster.

  N                 number of hosts: namespaces NAME-h0 .. NAME-h<N-1> (one rank each,
                    unless 'run -n P' places more)
  RATE              link rate in bits per second: digits with an optional k, m or g
                    (x1000) and an optional 'bit': 200m, 200mbit, 1g, 500000 (at most 100g)
  --duplex full     (default) RATE for sending and RATE for receiving, independently
  --duplex half     sending and receiving share RATE: both directions of the host's NIC
                    go through one ifb device with one HTB class at RATE (children: the
                    host's send queue, and the switch buffer for its receives)
  --queue MS        buffer of the switch port towards each host, in milliseconds at RATE
                    (default 20; at least 192 KiB, since a packet may be a 64 KiB GSO
                    aggregate); receive losses happen here, as in a real switch
  --txqueue PACKETS the host's send queue (default 10000 packets: deep, so TCP is held
                    back by the kernel's per-socket limits as on a real NIC, not by drops)
  --cc ALGORITHM    TCP congestion control of the hosts (default cubic, Linux's default;
                    one of: $(available_cc | paste -sd ' '))
  --mtu BYTES       MTU of every NIC and the bridge (default 9000; 1280..65000)

Also on every host: static ARP entries and static bridge (FDB) entries for all hosts,
net.ipv4.tcp_slow_start_after_idle=0, IPv6 off. Addresses: host i is $SUBNET_PREFIX.x.y
(x.y = i+1 in base 256), the switch (where mpiexec runs) $SWITCH_ADDR, all /16, inside
the cluster's namespaces only.
EOF
}

# Prints the 'ip -batch' lines that create the namespaces and the veth pairs.
batch_root() {
    local i
    printf 'netns add %s\n' "$(switch_ns)"
    for ((i = 0; i < N; i++)); do
        printf 'netns add %s\n' "$(host_ns "$i")"
    done
    for ((i = 0; i < N; i++)); do
        printf 'link add name p%d mtu %d address %s netns %s type veth peer name %s mtu %d address %s netns %s\n' \
            "$i" "$MTU" "$(port_mac "$i")" "$(switch_ns)" \
            "$HOST_IF" "$MTU" "$(host_mac "$i")" "$(host_ns "$i")"
    done
}

# Prints the 'ip -batch' lines of the switch namespace: the bridge, its address, the ports,
# static ARP entries for every host.
batch_switch() {
    local i
    printf 'link set lo up\n'
    printf 'link add %s address %s mtu %d type bridge stp_state 0 forward_delay 0 mcast_snooping 0\n' \
        "$BRIDGE" "$SWITCH_MAC" "$MTU"
    for ((i = 0; i < N; i++)); do
        printf 'link set p%d master %s\n' "$i" "$BRIDGE"
        printf 'link set p%d up\n' "$i"
    done
    printf 'link set %s mtu %d up\n' "$BRIDGE" "$MTU"
    printf 'address add %s/16 dev %s\n' "$SWITCH_ADDR" "$BRIDGE"
    for ((i = 0; i < N; i++)); do
        printf 'neigh replace %s lladdr %s dev %s nud permanent\n' \
            "$(host_addr "$i")" "$(host_mac "$i")" "$BRIDGE"
    done
}

# Prints the 'bridge -batch' lines: a static FDB entry per host, on its port.
batch_fdb() {
    local i
    for ((i = 0; i < N; i++)); do
        printf 'fdb replace %s dev p%d master static\n' "$(host_mac "$i")" "$i"
    done
}

# Prints the 'ip -batch' lines of host $1: its NIC, its address, static ARP entries for the
# other hosts and the switch, and in half duplex its ifb.
batch_host() {
    local h=$1 j
    printf 'link set lo up\n'
    printf 'link set %s txqueuelen %d up\n' "$HOST_IF" "$TXQUEUE"
    printf 'address add %s/16 dev %s noprefixroute\n' "$(host_addr "$h")" "$HOST_IF"
    # The congestion control rides on the route: a namespace other than the first may only
    # default to the algorithms of net.ipv4.tcp_allowed_congestion_control (a host-wide
    # setting this script leaves alone), while a route's congctl applies to every TCP
    # connection over it, both ends.
    printf 'route add %s.0.0/16 dev %s proto kernel scope link src %s congctl %s\n' \
        "$SUBNET_PREFIX" "$HOST_IF" "$(host_addr "$h")" "$CC"
    printf 'neigh replace %s lladdr %s dev %s nud permanent\n' "$SWITCH_ADDR" "$SWITCH_MAC" "$HOST_IF"
    for ((j = 0; j < N; j++)); do
        [[ $j -ne $h ]] || continue
        printf 'neigh replace %s lladdr %s dev %s nud permanent\n' \
            "$(host_addr "$j")" "$(host_mac "$j")" "$HOST_IF"
    done
    if [[ $DUPLEX == half ]]; then
        printf 'link add %s mtu %d type ifb\n' "$IFB" "$MTU"
        printf 'link set %s txqueuelen %d up\n' "$IFB" "$TXQUEUE"
    fi
}

# Prints the 'tc -batch' lines of the switch: each port's egress (towards its host) limited
# to RATE with a QUEUE_BYTES buffer. Half duplex shapes at the hosts instead.
batch_tc_switch() {
    local i
    [[ $DUPLEX == full ]] || return 0
    for ((i = 0; i < N; i++)); do
        printf 'qdisc replace dev p%d root handle 1: htb default 1\n' "$i"
        printf 'class add dev p%d parent 1: classid 1:1 htb rate %dbit ceil %dbit quantum %d\n' "$i" "$RATE_BPS" "$RATE_BPS" "$QUANTUM"
        printf 'qdisc add dev p%d parent 1:1 handle 10: bfifo limit %d\n' "$i" "$QUEUE_BYTES"
    done
}

# Prints the 'tc -batch' lines of host $1. Full duplex: its NIC's egress limited to RATE with
# a TXQUEUE-packet queue. Half duplex: both directions of the NIC redirected into the ifb,
# whose one HTB class at RATE has two children: 1:10 the host's sends (TXQUEUE packets, the
# host's own address as source) and 1:20 everything it receives (QUEUE_BYTES, the switch buffer).
batch_tc_host() {
    local h=$1 half
    if [[ $DUPLEX == full ]]; then
        printf 'qdisc replace dev %s root handle 1: htb default 1\n' "$HOST_IF"
        printf 'class add dev %s parent 1: classid 1:1 htb rate %dbit ceil %dbit quantum %d\n' "$HOST_IF" "$RATE_BPS" "$RATE_BPS" "$QUANTUM"
        printf 'qdisc add dev %s parent 1:1 handle 10: pfifo limit %d\n' "$HOST_IF" "$TXQUEUE"
        return
    fi
    half=$(((RATE_BPS + 1) / 2))
    printf 'qdisc add dev %s clsact\n' "$HOST_IF"
    printf 'filter add dev %s egress protocol all prio 1 u32 match u32 0 0 action mirred egress redirect dev %s\n' "$HOST_IF" "$IFB"
    printf 'filter add dev %s ingress protocol all prio 1 u32 match u32 0 0 action mirred egress redirect dev %s\n' "$HOST_IF" "$IFB"
    printf 'qdisc replace dev %s root handle 1: htb default 20\n' "$IFB"
    printf 'class add dev %s parent 1: classid 1:1 htb rate %dbit ceil %dbit quantum %d\n' "$IFB" "$RATE_BPS" "$RATE_BPS" "$QUANTUM"
    printf 'class add dev %s parent 1:1 classid 1:10 htb rate %dbit ceil %dbit quantum %d\n' "$IFB" "$half" "$RATE_BPS" "$QUANTUM"
    printf 'class add dev %s parent 1:1 classid 1:20 htb rate %dbit ceil %dbit quantum %d\n' "$IFB" "$half" "$RATE_BPS" "$QUANTUM"
    printf 'qdisc add dev %s parent 1:10 handle 10: pfifo limit %d\n' "$IFB" "$TXQUEUE"
    printf 'qdisc add dev %s parent 1:20 handle 20: bfifo limit %d\n' "$IFB" "$QUEUE_BYTES"
    printf 'filter add dev %s parent 1: protocol ip prio 1 u32 match ip src %s/32 flowid 1:10\n' "$IFB" "$(host_addr "$h")"
}

# Prints the shell commands that set the sysctls of a host namespace.
host_sysctls() {
    cat <<EOF
echo 0 > /proc/sys/net/ipv4/tcp_slow_start_after_idle
echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6
echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6
EOF
}

# Runs a batch command ('ip -n NS', 'tc -n NS', 'bridge -n NS': $2...) with the batch on
# stdin; on failure prints what failed (step $1) with the tool's message and returns 1.
run_batch() {
    local what=$1 err
    shift
    if ! err=$("$@" -batch - 2>&1); then
        printf '%s: error: %s failed: %s\n' "$PROG" "$what" "$err" >&2
        return 1
    fi
    [[ -z $err ]] || printf '%s: %s: %s\n' "$PROG" "$what" "$err" >&2
}

# Writes the files a launch uses into the state directory: config, hosts, launch, mpiexec.
write_state() {
    local dir i
    dir=$(state_dir)
    mkdir -p "$dir"
    cat >"$dir/config" <<EOF
# $PROG cluster '$name', created $(date -u '+%Y-%m-%dT%H:%M:%SZ')
N=$N
RATE_BPS=$RATE_BPS
DUPLEX=$DUPLEX
QUEUE_MS=$QUEUE_MS
QUEUE_BYTES=$QUEUE_BYTES
TXQUEUE=$TXQUEUE
CC=$CC
MTU=$MTU
EOF
    : >"$dir/hosts"
    for ((i = 0; i < N; i++)); do
        printf '%s:1\n' "$(host_ns "$i")" >>"$dir/hosts"
    done
    # hydra's ssh launcher calls: launch [-x] HOST WORD...; like ssh, the words form one shell
    # command (hydra quotes them for a shell), run here in HOST's namespace.
    cat >"$dir/launch" <<EOF
#!/bin/sh
# hydra -launcher-exec for cluster '$name' (written by $PROG create): [ssh flags] HOST COMMAND
while [ \$# -gt 0 ]; do
    case \$1 in -x | -X | -q | -t | -T | -n) shift ;; *) break ;; esac
done
case \$1 in
    $name-h[0-9]*) ;;
    *) echo "$PROG launch: '\$1' is not a host of cluster '$name'" >&2; exit 255 ;;
esac
host=\$1
shift
exec ip netns exec "\$host" /bin/sh -c "\$*"
EOF
    cat >"$dir/mpiexec" <<EOF
#!/bin/sh
# mpiexec for cluster '$name' (written by $PROG create), e.g. for hrelay-run --mpiexec
exec '$SELF' --name '$name' mpiexec "\$@"
EOF
    chmod 755 "$dir/launch" "$dir/mpiexec"
}

# create N RATE [options]: builds the cluster, replacing one of the same name (see
# usage_create); a failure removes what was built.
cmd_create() {
    local pos=()
    DUPLEX=full QUEUE_MS=20 TXQUEUE=10000 CC=cubic MTU=9000
    while [[ $# -gt 0 ]]; do
        case $1 in
            -h | --help) usage_create; exit 0 ;;
            --duplex) [[ $# -ge 2 ]] || usage_error "--duplex needs full or half"; DUPLEX=$2; shift ;;
            --duplex=*) DUPLEX=${1#*=} ;;
            --queue) [[ $# -ge 2 ]] || usage_error "--queue needs milliseconds"; QUEUE_MS=$2; shift ;;
            --queue=*) QUEUE_MS=${1#*=} ;;
            --txqueue) [[ $# -ge 2 ]] || usage_error "--txqueue needs packets"; TXQUEUE=$2; shift ;;
            --txqueue=*) TXQUEUE=${1#*=} ;;
            --cc) [[ $# -ge 2 ]] || usage_error "--cc needs an algorithm"; CC=$2; shift ;;
            --cc=*) CC=${1#*=} ;;
            --mtu) [[ $# -ge 2 ]] || usage_error "--mtu needs bytes"; MTU=$2; shift ;;
            --mtu=*) MTU=${1#*=} ;;
            -*) usage_error "create: unknown option '$1'" ;;
            *) pos+=("$1") ;;
        esac
        shift
    done
    [[ ${#pos[@]} -eq 2 ]] || usage_error "create needs N and RATE, e.g. '$PROG create 16 200mbit'"
    N=${pos[0]}
    [[ $N =~ ^[1-9][0-9]{0,3}$ && $N -le $MAX_HOSTS ]] || usage_error "invalid N '$N' (1..$MAX_HOSTS)"
    RATE_BPS=$(parse_rate "${pos[1]}") || usage_error "invalid RATE '${pos[1]}' (e.g. 200mbit, 1g, 500k)"
    [[ $DUPLEX == full || $DUPLEX == half ]] || usage_error "invalid --duplex '$DUPLEX' (full or half)"
    [[ $QUEUE_MS =~ ^[1-9][0-9]{0,4}$ ]] || usage_error "invalid --queue '$QUEUE_MS' (milliseconds, 1..99999)"
    [[ $TXQUEUE =~ ^[1-9][0-9]{0,6}$ ]] || usage_error "invalid --txqueue '$TXQUEUE' (packets, 1..9999999)"
    [[ $MTU =~ ^[0-9]{4,5}$ && $MTU -ge 1280 && $MTU -le 65000 ]] || usage_error "invalid --mtu '$MTU' (1280..65000)"
    available_cc | grep -qx -- "$CC" ||
        usage_error "invalid --cc '$CC'; this kernel offers: $(available_cc | paste -sd ' ')"
    QUEUE_BYTES=$((RATE_BPS * QUEUE_MS / 8000))
    ((QUEUE_BYTES >= 196608)) || QUEUE_BYTES=196608
    # HTB's quantum (bytes a class may send per round) must hold the largest packet; its default
    # (rate / 10) exceeds what HTB accepts without a warning at these rates.
    QUANTUM=$((MTU > 65536 ? MTU : 65536))

    need_root create
    need_tool ip iproute2
    need_tool tc iproute2
    need_tool bridge iproute2
    need_tool flock util-linux
    take_lock
    destroy_cluster
    trap 'say "create failed; removing what was built"; destroy_cluster' ERR

    local i
    batch_root | run_batch namespaces ip
    batch_switch | run_batch switch ip -n "$(switch_ns)"
    batch_fdb | run_batch fdb bridge -n "$(switch_ns)"
    batch_tc_switch | run_batch "switch shaping" tc -n "$(switch_ns)"
    ip netns exec "$(switch_ns)" /bin/sh -c 'echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6'
    for ((i = 0; i < N; i++)); do
        batch_host "$i" | run_batch "host $i" ip -n "$(host_ns "$i")"
        batch_tc_host "$i" | run_batch "host $i shaping" tc -n "$(host_ns "$i")"
        host_sysctls | ip netns exec "$(host_ns "$i")" /bin/sh -e
    done
    write_state
    trap - ERR
    say "cluster '$name': $N hosts at $(rate_text "$RATE_BPS"), $DUPLEX duplex, TCP $CC, MTU $MTU, switch buffer $QUEUE_MS ms ($QUEUE_BYTES bytes) per port"
    say "run programs with: $PROG${name_opt} run [--hrelay] -- PROGRAM [ARGS...]"
}
