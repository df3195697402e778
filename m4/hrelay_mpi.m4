# HRELAY_PROG_MPICC: CC becomes the MPI C compiler wrapper. Honours MPICC; otherwise the first
# of mpicc.mpich, mpicc found on PATH.
AC_DEFUN([HRELAY_PROG_MPICC], [
  AC_ARG_VAR([MPICC], [MPI C compiler wrapper (default: mpicc.mpich, then mpicc; mpicc.openmpi for Open MPI)])
  AS_IF([test -z "$MPICC"], [AC_CHECK_PROGS([MPICC], [mpicc.mpich mpicc])])
  AS_IF([test -z "$MPICC"],
        [AC_MSG_ERROR([no MPI C compiler found (tried mpicc.mpich, mpicc): install the Debian packages mpich and libmpich-dev (or openmpi-bin and libopenmpi-dev with MPICC=mpicc.openmpi), or set MPICC])])
  CC="$MPICC"
])

# HRELAY_CHECK_MPI: the compiler's mpi.h must be of the MPICH ABI family (MPICH, Intel MPI,
# MVAPICH, Cray MPICH: MPICH_VERSION, MPI 3.0 or later) or Open MPI 4 or later. Sets
# HRELAY_MPI_FAMILY (mpich or openmpi; AM_CONDITIONAL HRELAY_OPENMPI), and defines
# HRELAY_HAVE_MPI_LARGE_COUNT (AM_CONDITIONAL too) when the MPI-4 large-count functions
# (MPI_Alltoallv_c) exist: MPICH 4 has them, Open MPI 4.1 does not.
AC_DEFUN([HRELAY_CHECK_MPI], [
  AC_MSG_CHECKING([whether $CC compiles MPI programs])
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]], [[MPI_Init(0, 0); MPI_Finalize();]])],
                 [AC_MSG_RESULT([yes])],
                 [AC_MSG_RESULT([no])
                  AC_MSG_ERROR([$CC cannot build an MPI program: install the Debian package libmpich-dev (MPICH) or libopenmpi-dev (Open MPI)])])
  AC_MSG_CHECKING([which MPI library mpi.h belongs to])
  HRELAY_MPI_FAMILY=
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>
#if !defined(MPICH_VERSION) || MPI_VERSION < 3
#error not the MPICH ABI family with MPI 3
#endif
]], [[]])], [HRELAY_MPI_FAMILY=mpich])
  AS_IF([test -z "$HRELAY_MPI_FAMILY"],
    [AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>
#if !defined(OPEN_MPI) || OMPI_MAJOR_VERSION < 4
#error not Open MPI 4 or later
#endif
]], [[]])], [HRELAY_MPI_FAMILY=openmpi])])
  AS_CASE([$HRELAY_MPI_FAMILY],
    [mpich], [AC_MSG_RESULT([the MPICH ABI family (MPICH, Intel MPI, MVAPICH, Cray MPICH)])],
    [openmpi], [AC_MSG_RESULT([Open MPI])],
    [AC_MSG_RESULT([neither])
     AC_MSG_ERROR([hrelay supports the MPICH ABI family (MPICH, Intel MPI, MVAPICH, Cray MPICH; MPI 3.0 or later) and Open MPI 4 or later, and $CC's mpi.h is neither: install the Debian packages mpich and libmpich-dev and use MPICC=mpicc.mpich, or openmpi-bin and libopenmpi-dev with MPICC=mpicc.openmpi])])
  AC_SUBST([HRELAY_MPI_FAMILY])
  AM_CONDITIONAL([HRELAY_OPENMPI], [test "x$HRELAY_MPI_FAMILY" = xopenmpi])

  AC_MSG_CHECKING([for the MPI-4 large-count functions (MPI_Alltoallv_c)])
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]],
                   [[MPI_Count c[1] = {0}; MPI_Aint d[1] = {0};
                     return PMPI_Alltoallv_c(0, c, d, MPI_BYTE, 0, c, d, MPI_BYTE, MPI_COMM_WORLD);]])],
                 [hrelay_large_count=yes], [hrelay_large_count=no])
  AC_MSG_RESULT([$hrelay_large_count])
  AS_IF([test "x$hrelay_large_count" = xyes],
        [AC_DEFINE([HRELAY_HAVE_MPI_LARGE_COUNT], [1],
                   [Define to 1 if the MPI library has MPI_Alltoallv_c and the other MPI-4 large-count functions.])],
        [AC_MSG_WARN([$CC's MPI library has no MPI_Alltoall_c / MPI_Alltoallv_c: hrelay intercepts MPI_Alltoall and MPI_Alltoallv only, and passes calls with a message over INT_MAX bytes to the MPI library])])
  AM_CONDITIONAL([HRELAY_LARGE_COUNT], [test "x$hrelay_large_count" = xyes])
])

# HRELAY_PROG_MPIEXEC: MPIEXEC is the launcher matching the compiler's MPI library
# (mpiexec.mpich or mpiexec.openmpi, then mpiexec).
AC_DEFUN([HRELAY_PROG_MPIEXEC], [
  AC_ARG_VAR([MPIEXEC], [MPI launcher (default: mpiexec.mpich, or mpiexec.openmpi for Open MPI, then mpiexec)])
  AS_IF([test -z "$MPIEXEC"], [AC_PATH_PROGS([MPIEXEC], [mpiexec.$HRELAY_MPI_FAMILY mpiexec])])
  AS_IF([test -z "$MPIEXEC"],
        [AC_MSG_ERROR([no MPI launcher found (tried mpiexec.$HRELAY_MPI_FAMILY, mpiexec): install the Debian package mpich (or openmpi-bin)])])
])

# HRELAY_CHECK_MPIFC: sets hrelay_found to yes when MPIFC, the MPI Fortran wrapper the Fortran
# tests use, compiles a program with `use mpi` (mpif.h and `use mpi_f08` are checked by the
# tests). Honours MPIFC; otherwise looks for the wrapper of the MPI family.
AC_DEFUN([HRELAY_CHECK_MPIFC], [
  AC_ARG_VAR([MPIFC], [MPI Fortran compiler wrapper (default: mpifort.mpich, or mpifort.openmpi for Open MPI, then mpifort)])
  AS_IF([test -z "$MPIFC"],
        [AC_CHECK_PROGS([MPIFC], [mpifort.$HRELAY_MPI_FAMILY mpif90.$HRELAY_MPI_FAMILY mpifort])])
  AS_IF([test -n "$MPIFC"], [
    AC_MSG_CHECKING([whether $MPIFC compiles an MPI Fortran program])
    cat > conftest.f90 <<'_HRELAY_EOF'
program t
  use mpi
  integer :: ierr
  call MPI_Init(ierr)
  call MPI_Finalize(ierr)
end program t
_HRELAY_EOF
    AS_IF([$MPIFC -o conftest.fx conftest.f90 >&AS_MESSAGE_LOG_FD 2>&1],
          [hrelay_found=yes], [hrelay_found=no])
    AC_MSG_RESULT([$hrelay_found])
    rm -f conftest.f90 conftest.fx conftest.mod mpi.mod
  ])
])
