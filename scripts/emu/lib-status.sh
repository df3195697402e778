# shellcheck shell=bash disable=SC2154 # name and name_opt are set by hrelay-emucluster
# hrelay-emucluster, status and list: describe clusters.
# Sourced by scripts/hrelay-emucluster (never run on its own); the constants and the
# globals name and name_opt are set there.

# Prints the --help of status.
usage_status() {
    cat <<EOF
Usage: $PROG [--name NAME] status

Prints the cluster's settings, the files a launch uses, and per host the packets sent and
dropped by its send queue and by the switch port towards it (tc statistics since create).
Exit status 0 when the cluster exists and every namespace is present, 1 otherwise.
EOF
}

# Prints the --help of list.
usage_list() {
    cat <<EOF
Usage: $PROG list

Prints one line per cluster on this machine (a state directory in $STATE_ROOT or namespaces
named like a cluster's): its name, hosts, rate, duplex and how many of its namespaces exist.
EOF
}

# Prints "sent_packets dropped" of the first qdisc line of 'tc -s qdisc show' output on stdin
# whose handle is $1.
qdisc_counts() {
    awk -v h="$1" '
        $1 == "qdisc" && $3 == h { found = 1; next }
        found && $1 == "Sent" { gsub(/,/, "", $0); print $4, $7; exit }'
}

# status: prints the settings, files and queue statistics; fails when the cluster is missing
# or incomplete.
cmd_status() {
    while [[ $# -gt 0 ]]; do
        case $1 in
            -h | --help) usage_status; exit 0 ;;
            *) usage_error "status: unexpected argument '$1'" ;;
        esac
    done
    need_root status
    load_config
    local dir present expected i sendq recvq
    dir=$(state_dir)
    present=$(cluster_namespaces | wc -l)
    expected=$((N + 1))
    echo "cluster:    $name"
    echo "hosts:      $N ($(host_ns 0) .. $(host_ns $((N - 1))), $(host_addr 0) .. $(host_addr $((N - 1))))"
    echo "rate:       $(rate_text "$RATE_BPS") per NIC, $DUPLEX duplex"
    echo "tcp:        $CC, slow start after idle off"
    echo "mtu:        $MTU"
    echo "queues:     host send queue $TXQUEUE packets; switch buffer $QUEUE_MS ms ($QUEUE_BYTES bytes) per port"
    echo "namespaces: $present of $expected present"
    echo "launcher:   $dir/launch (hosts file $dir/hosts)"
    echo "mpiexec:    $dir/mpiexec"
    if [[ $present -ne $expected ]]; then
        say "cluster '$name' is incomplete; run: $PROG${name_opt} destroy, then create it again"
        return 1
    fi
    echo "host  send-queue-packets  send-queue-drops  switch-buffer-packets  switch-buffer-drops"
    for ((i = 0; i < N; i++)); do
        if [[ $DUPLEX == full ]]; then
            sendq=$(tc -n "$(host_ns "$i")" -s qdisc show dev "$HOST_IF" | qdisc_counts 10:)
            recvq=$(tc -n "$(switch_ns)" -s qdisc show dev "p$i" | qdisc_counts 10:)
        else
            sendq=$(tc -n "$(host_ns "$i")" -s qdisc show dev "$IFB" | qdisc_counts 10:)
            recvq=$(tc -n "$(host_ns "$i")" -s qdisc show dev "$IFB" | qdisc_counts 20:)
        fi
        read -r sp sd <<<"${sendq:-? ?}"
        read -r rp rd <<<"${recvq:-? ?}"
        printf '%4d  %18s  %16s  %21s  %19s\n' "$i" "$sp" "$sd" "$rp" "$rd"
    done
}

# list: prints one line per cluster found on the machine (state or namespaces).
cmd_list() {
    [[ ${1:-} != -h && ${1:-} != --help ]] || { usage_list; exit 0; }
    [[ $# -eq 0 ]] || usage_error "list: unexpected argument '$1'"
    need_root list
    local names n
    names=$( { for n in "$STATE_ROOT"/*/; do [[ -d $n ]] && basename "$n"; done
        ip netns list 2>/dev/null | awk '{print $1}' | sed -n 's/^\([a-z][a-z0-9]*\)-\(sw\|h[0-9][0-9]*\)$/\1/p'
    } | sort -u)
    for n in $names; do
        ( # a subshell: name and the loaded settings stay in it
            # shellcheck disable=SC2030
            name=$n
            present=$(cluster_namespaces | wc -l)
            if [[ -f $(state_dir)/config ]]; then
                # shellcheck disable=SC1091
                . "$(state_dir)/config"
                printf '%s: %d hosts at %s, %s duplex, %d of %d namespaces\n' "$name" "$N" \
                    "$(rate_text "$RATE_BPS")" "$DUPLEX" "$present" $((N + 1))
            else
                printf '%s: no state (a crashed create?), %d namespaces; remove with: %s --name %s destroy\n' \
                    "$name" "$present" "$PROG" "$name"
            fi
        )
    done
}
