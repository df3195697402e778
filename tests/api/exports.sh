#!/bin/sh
# libhrelay.so exports exactly the symbols it means to (as jansson's check-exports): the defined
# dynamic symbols (nm -D --defined-only: type and name) must equal the list below for the
# configured MPI library. An added or a missing symbol fails the test and prints the difference.
#   every build    the C entry points MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Alltoall,
#                  MPI_Alltoallv, and hrelay.h's hrelay_version, hrelay_set_algorithm,
#                  hrelay_last_algorithm, hrelay_last_run
#   large counts   MPI_Alltoall_c, MPI_Alltoallv_c (config.h: HRELAY_HAVE_MPI_LARGE_COUNT)
#   MPICH family   the `use mpi_f08` init and finalize subroutines (src/shim/fortran_mpich.c)
#   Open MPI       the Fortran names of MPI_Alltoall(v), MPI_Init(_thread) and MPI_Finalize in
#                  every spelling, and ompi_*_f (src/shim/fortran_ompi.c)
# Run by make check from the top build directory.
set -u
PROG=tests/api/exports.sh
fail() {
    echo "FAIL: $PROG: $*" >&2
    exit 1
}
. ./tests/mpi/mpi-env.sh || exit 99
[ -f "$HRELAY_LIB" ] || fail "$HRELAY_LIB missing (make all builds it)"
[ -f config.h ] || fail "config.h missing in $(pwd) (run from the top build directory)"
command -v nm >/dev/null || fail "nm not found: install the Debian package binutils"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hrelay-exports.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

# The expected list, one "TYPE NAME" per line (T: a function in the text section).
{
    for name in MPI_Init MPI_Init_thread MPI_Finalize MPI_Alltoall MPI_Alltoallv \
        hrelay_version hrelay_set_algorithm hrelay_last_algorithm hrelay_last_run; do
        echo "T $name"
    done
    if grep -q '^#define HRELAY_HAVE_MPI_LARGE_COUNT 1' config.h; then
        echo "T MPI_Alltoall_c"
        echo "T MPI_Alltoallv_c"
    fi
    case $HRELAY_MPI_FAMILY in
        mpich)
            for name in mpi_init_f08_ mpi_init_thread_f08_ mpi_finalize_f08_; do
                echo "T $name"
            done
            ;;
        openmpi)
            for f in alltoall alltoallv init init_thread finalize; do
                upper=$(echo "$f" | tr 'a-z' 'A-Z')
                for name in "MPI_$upper" "mpi_$f" "mpi_${f}_" "mpi_${f}__" "ompi_${f}_f"; do
                    echo "T $name"
                done
            done
            ;;
        *) fail "unknown MPI family '$HRELAY_MPI_FAMILY' in tests/mpi/mpi-env.sh" ;;
    esac
} | LC_ALL=C sort >"$tmp/expected"

nm -D --defined-only "$HRELAY_LIB" >"$tmp/nm" || fail "nm -D --defined-only $HRELAY_LIB failed"
awk 'NF == 3 { print $2, $3 } NF == 2 { print $1, $2 }' "$tmp/nm" | LC_ALL=C sort >"$tmp/actual"

if ! cmp -s "$tmp/expected" "$tmp/actual"; then
    echo "FAIL: $PROG: $HRELAY_LIB ($HRELAY_MPI_FAMILY) does not export the expected symbols" \
        "(- expected only, + exported only):" >&2
    diff -u "$tmp/expected" "$tmp/actual" | sed -n '/^[-+][^-+]/p' >&2
    exit 1
fi
echo "$HRELAY_LIB ($HRELAY_MPI_FAMILY): $(wc -l <"$tmp/actual") symbols, as expected"
