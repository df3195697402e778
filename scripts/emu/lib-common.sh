# shellcheck shell=bash disable=SC2154 # name and name_opt are set by hrelay-emucluster
# hrelay-emucluster, shared helpers: messages, the names and addresses of a cluster,
# rates, its saved settings and the lock of create and destroy.
# Sourced by scripts/hrelay-emucluster (never run on its own); the constants and the
# globals name and name_opt are set there.

# ---- messages -----------------------------------------------------------------------------

# Prints a message on stderr.
say() {
    printf '%s: %s\n' "$PROG" "$*" >&2
}

# Prints an error on stderr and exits with status 1.
die() {
    printf '%s: error: %s\n' "$PROG" "$*" >&2
    exit 1
}

# Prints a usage error on stderr and exits with status 2.
usage_error() {
    printf '%s: %s (try %s --help)\n' "$PROG" "$*" "$PROG" >&2
    exit 2
}

# Exits with a clear message unless running as root.
need_root() {
    [[ $(id -u) -eq 0 ]] ||
        die "'$1' needs root (network namespaces, veths, a bridge and tc); run it as root, e.g. sudo $PROG ${1}"
}

# Exits unless command $1 exists; $2 names the Debian package.
need_tool() {
    command -v "$1" >/dev/null 2>&1 || die "'$1' not found; install the Debian package $2"
}

# ---- names and addresses ------------------------------------------------------------------

# Each of these prints one name or address of cluster $name.
switch_ns() { printf '%s-sw\n' "$name"; }
host_ns() { printf '%s-h%d\n' "$name" "$1"; }
host_addr() { printf '%s.%d.%d\n' "$SUBNET_PREFIX" $((($1 + 1) >> 8)) $((($1 + 1) & 255)); }
host_mac() { printf '02:68:72:00:%02x:%02x\n' $((($1 + 1) >> 8)) $((($1 + 1) & 255)); }
port_mac() { printf '02:68:72:01:%02x:%02x\n' $((($1 + 1) >> 8)) $((($1 + 1) & 255)); }
state_dir() { printf '%s/%s\n' "$STATE_ROOT" "$name"; }

# Prints the namespaces of cluster $name that exist, one per line.
cluster_namespaces() {
    ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${name}-(sw|h[0-9]+)\$" || true
}

# Prints the congestion control algorithms the kernel offers, one per line.
available_cc() {
    tr ' ' '\n' </proc/sys/net/ipv4/tcp_available_congestion_control 2>/dev/null | grep . ||
        echo cubic
}

# Prints RATE ($1) in bits per second, or fails.
parse_rate() {
    local r=${1,,} mult=1 digits
    [[ $r =~ ^([0-9]+)([kmg]?)(bit)?$ ]] || return 1
    digits=${BASH_REMATCH[1]}
    case ${BASH_REMATCH[2]} in
        k) mult=1000 ;;
        m) mult=1000000 ;;
        g) mult=1000000000 ;;
    esac
    [[ ${#digits} -le 12 ]] || return 1
    ((10#$digits > 0 && 10#$digits * mult <= 100000000000)) || return 1
    printf '%d\n' $((10#$digits * mult))
}

# Prints bits per second $1 the way people read it (200 Mbit/s).
rate_text() {
    local b=$1
    if ((b % 1000000000 == 0)); then printf '%d Gbit/s\n' $((b / 1000000000))
    elif ((b % 1000000 == 0)); then printf '%d Mbit/s\n' $((b / 1000000))
    elif ((b % 1000 == 0)); then printf '%d kbit/s\n' $((b / 1000))
    else printf '%d bit/s\n' "$b"
    fi
}

# Loads the settings of an existing cluster (N, RATE_BPS, DUPLEX, ...) or exits.
load_config() {
    local dir
    dir=$(state_dir)
    [[ -f $dir/config ]] ||
        die "no cluster '$name' (no $dir/config); create it with: $PROG${name_opt} create N RATE"
    # shellcheck disable=SC1091
    . "$dir/config"
}

# Serialises create and destroy (of all clusters: they are short) with flock on one lock file,
# held until exit.
take_lock() {
    mkdir -p "$STATE_ROOT"
    exec 9>"$STATE_ROOT/.lock"
    flock -w 300 9 || die "another $PROG has been creating or destroying a cluster for 5 minutes ($STATE_ROOT/.lock)"
}
