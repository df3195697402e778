# HRELAY_PROG_MPICC: CC becomes the MPI C compiler wrapper. Honours MPICC; otherwise the first
# of mpicc.mpich, mpicc found on PATH.
AC_DEFUN([HRELAY_PROG_MPICC], [
  AC_ARG_VAR([MPICC], [MPI C compiler wrapper (default: mpicc.mpich, then mpicc)])
  AS_IF([test -z "$MPICC"], [AC_CHECK_PROGS([MPICC], [mpicc.mpich mpicc])])
  AS_IF([test -z "$MPICC"],
        [AC_MSG_ERROR([no MPI C compiler found (tried mpicc.mpich, mpicc): install the Debian packages mpich and libmpich-dev, or set MPICC])])
  CC="$MPICC"
])

# HRELAY_CHECK_MPICH: the compiler's mpi.h must be MPICH 4.x (large-count MPI_Alltoallv_c).
AC_DEFUN([HRELAY_CHECK_MPICH], [
  AC_MSG_CHECKING([whether $CC compiles MPI programs])
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]], [[MPI_Init(0, 0); MPI_Finalize();]])],
                 [AC_MSG_RESULT([yes])],
                 [AC_MSG_RESULT([no])
                  AC_MSG_ERROR([$CC cannot build an MPI program: install the Debian package libmpich-dev])])
  AC_MSG_CHECKING([whether mpi.h is MPICH 4.x])
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>
#if !defined(MPICH_VERSION) || !defined(MPICH_NUMVERSION) || MPICH_NUMVERSION < 40000000
#error not MPICH 4
#endif
]], [[MPI_Count c = 0; (void)MPI_Alltoallv_c; (void)c;]])],
                 [AC_MSG_RESULT([yes])],
                 [AC_MSG_RESULT([no])
                  AC_MSG_ERROR([hrelay needs MPICH 4.x (MPI_Alltoallv_c): install the Debian packages mpich and libmpich-dev and use MPICC=mpicc.mpich])])
])

# HRELAY_PROG_MPIEXEC: MPIEXEC is the launcher matching the compiler (mpiexec.mpich, mpiexec).
AC_DEFUN([HRELAY_PROG_MPIEXEC], [
  AC_ARG_VAR([MPIEXEC], [MPI launcher (default: mpiexec.mpich, then mpiexec)])
  AS_IF([test -z "$MPIEXEC"], [AC_PATH_PROGS([MPIEXEC], [mpiexec.mpich mpiexec])])
  AS_IF([test -z "$MPIEXEC"],
        [AC_MSG_ERROR([no MPI launcher found (tried mpiexec.mpich, mpiexec): install the Debian package mpich])])
])

# HRELAY_PROG_MPIFC: MPIFC is the MPI Fortran wrapper used by the Fortran test.
AC_DEFUN([HRELAY_PROG_MPIFC], [
  AC_ARG_VAR([MPIFC], [MPI Fortran compiler wrapper (default: mpifort.mpich, then mpifort)])
  AS_IF([test -z "$MPIFC"], [AC_CHECK_PROGS([MPIFC], [mpifort.mpich mpif90.mpich mpifort])])
  AS_IF([test -z "$MPIFC"],
        [AC_MSG_ERROR([no MPI Fortran compiler found (tried mpifort.mpich, mpifort): install the Debian packages gfortran and libmpich-dev, or set MPIFC])])
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
        [AC_MSG_RESULT([yes])],
        [AC_MSG_RESULT([no])
         AC_MSG_ERROR([$MPIFC cannot build a Fortran MPI program: install the Debian packages gfortran and libmpich-dev])])
  rm -f conftest.f90 conftest.fx conftest.mod mpi.mod
])
