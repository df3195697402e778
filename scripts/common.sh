# shellcheck shell=bash
# Shared by scripts/build, check, demo and bench-plan (sourced, not run): messages, the
# repository root, and "bootstrap, configure and build if needed" for a build directory.
# Callers use `set -euo pipefail` and set PROG to their own name before sourcing this file.

# The repository root (the directory above scripts/).
HRELAY_SRCDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Prints a progress message on stderr.
note() {
    printf '%s: %s\n' "$PROG" "$*" >&2
}

# Prints an error message on stderr and exits with status 1.
die() {
    printf '%s: error: %s\n' "$PROG" "$*" >&2
    exit 1
}

# Succeeds if file $1 is missing or older than any of the files after it.
is_stale() {
    local target=$1 f
    shift
    [[ -e $target ]] || return 0
    for f in "$@"; do
        [[ -e $f && $f -nt $target ]] && return 0
    done
    return 1
}

# Runs autoreconf -fi in the source tree when configure is missing or older than configure.ac,
# Makefile.am, any folder's local.mk or any m4/hrelay_*.m4 of the project.
bootstrap() {
    local inputs=("$HRELAY_SRCDIR/configure.ac" "$HRELAY_SRCDIR/Makefile.am")
    local f
    while IFS= read -r f; do
        inputs+=("$f")
    done < <(find "$HRELAY_SRCDIR/src" "$HRELAY_SRCDIR/scripts" "$HRELAY_SRCDIR/tests" \
        "$HRELAY_SRCDIR/bench" -name local.mk 2>/dev/null
        ls "$HRELAY_SRCDIR"/m4/hrelay_*.m4 2>/dev/null)
    if is_stale "$HRELAY_SRCDIR/configure" "${inputs[@]}"; then
        note "bootstrapping: autoreconf -fi (in $HRELAY_SRCDIR)"
        (cd "$HRELAY_SRCDIR" && autoreconf -fi) || die "autoreconf failed"
    fi
}

# Makes $1 an absolute path (relative to the repository root when relative).
builddir_path() {
    case $1 in
        /*) printf '%s\n' "$1" ;;
        *) printf '%s/%s\n' "$HRELAY_SRCDIR" "$1" ;;
    esac
}

# Configures build directory $1 (created if needed) unless it is already configured; the
# remaining arguments go to configure. An existing build tree re-runs configure by itself
# (through make) when configure changed.
configure_builddir() {
    local dir=$1
    shift
    if [[ -f $HRELAY_SRCDIR/config.status && $dir != "$HRELAY_SRCDIR" ]]; then
        die "the source tree $HRELAY_SRCDIR is configured in place; run 'make distclean' there first, or use --builddir $HRELAY_SRCDIR"
    fi
    mkdir -p "$dir"
    if [[ ! -f $dir/Makefile || ! -f $dir/config.status ]]; then
        note "configuring in $dir: $HRELAY_SRCDIR/configure $*"
        (cd "$dir" && "$HRELAY_SRCDIR/configure" "$@") ||
            die "configure failed; see $dir/config.log"
    fi
}

# The number of parallel make jobs: the number of processors.
make_jobs() {
    nproc 2>/dev/null || echo 2
}

# Bootstraps, configures and builds in directory $1; the remaining arguments go to configure.
build_tree() {
    local dir=$1
    shift
    bootstrap
    configure_builddir "$dir" "$@"
    note "building in $dir: make -j$(make_jobs)"
    make -C "$dir" -j"$(make_jobs)" || die "build failed (make in $dir)"
}

# Runs scripts/install-deps; exits with its message if a dependency is missing and cannot be
# installed.
ensure_deps() {
    "$HRELAY_SRCDIR/scripts/install-deps" ||
        die "missing dependencies (see above); install them and run $PROG again"
}
