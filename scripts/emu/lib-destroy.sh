# shellcheck shell=bash disable=SC2154 # name and name_opt are set by hrelay-emucluster
# hrelay-emucluster, destroy: removes a cluster, also a crashed one.
# Sourced by scripts/hrelay-emucluster (never run on its own); the constants and the
# globals name and name_opt are set there.

# Prints the --help of destroy.
usage_destroy() {
    cat <<EOF
Usage: $PROG [--name NAME] destroy

Kills every process left in the cluster's namespaces, deletes the namespaces (and with them
the veths, the bridge, the ifbs and the tc rules inside) and the state directory
$STATE_ROOT/NAME. Works on a partly built or crashed cluster; destroying a cluster that
does not exist succeeds.
EOF
}

# Kills every process in the cluster's namespaces (they can only be ours: nothing else runs
# in namespaces this script created). $1: "hosts" (host namespaces only) or "all".
kill_cluster_processes() {
    local ns pids
    for ns in $(cluster_namespaces); do
        [[ $1 == all || $ns != *-sw ]] || continue
        pids=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')
        [[ -n ${pids// /} ]] || continue
        # shellcheck disable=SC2086
        kill -KILL $pids 2>/dev/null || true
    done
}

# Removes everything of cluster $name (see usage_destroy).
destroy_cluster() {
    local ns tries
    kill_cluster_processes all
    for ns in $(cluster_namespaces); do
        tries=0
        until ip netns delete "$ns" 2>/dev/null; do
            tries=$((tries + 1))
            [[ $tries -lt 10 ]] || die "cannot delete namespace $ns"
            sleep 0.2
        done
    done
    rm -rf "$(state_dir)"
    [[ -z $(cluster_namespaces) ]] || die "namespaces of '$name' are still there: $(cluster_namespaces | tr '\n' ' ')"
}

# destroy [--help]: removes the cluster (see usage_destroy).
cmd_destroy() {
    while [[ $# -gt 0 ]]; do
        case $1 in
            -h | --help) usage_destroy; exit 0 ;;
            *) usage_error "destroy: unexpected argument '$1'" ;;
        esac
    done
    need_root destroy
    need_tool ip iproute2
    take_lock
    local had
    had=$(cluster_namespaces | wc -l)
    destroy_cluster
    say "cluster '$name' destroyed ($had namespaces removed)"
}
