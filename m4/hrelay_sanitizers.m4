# HRELAY_ENABLE_SANITIZERS: --enable-sanitizers builds everything (library, tools, tests) with
# AddressSanitizer and UndefinedBehaviorSanitizer (any undefined behaviour aborts). The MPI tests
# then preload the ASan runtime before libhrelay.so (HRELAY_ASAN_RT, the runtime's path, goes to
# tests/mpi/mpi-env.sh) with the leak suppressions of tests/sanitizers/lsan.supp.
AC_DEFUN([HRELAY_ENABLE_SANITIZERS], [
  AC_ARG_ENABLE([sanitizers],
    [AS_HELP_STRING([--enable-sanitizers], [build with AddressSanitizer and UndefinedBehaviorSanitizer (for testing)])],
    [], [enable_sanitizers=no])
  HRELAY_ASAN_RT=
  AS_IF([test "x$enable_sanitizers" = xyes], [
    hrelay_san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
    CFLAGS="$CFLAGS $hrelay_san"
    LDFLAGS="$LDFLAGS -fsanitize=address,undefined"
    AC_MSG_CHECKING([for the AddressSanitizer runtime])
    HRELAY_ASAN_RT=`$CC -print-file-name=libasan.so`
    AS_IF([test -f "$HRELAY_ASAN_RT"], [AC_MSG_RESULT([$HRELAY_ASAN_RT])],
          [AC_MSG_RESULT([no])
           AC_MSG_ERROR([--enable-sanitizers: $CC has no libasan.so: install the Debian package libasan8 (gcc)])])
    AC_MSG_CHECKING([whether $CC links with the sanitizers])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[]], [[]])], [AC_MSG_RESULT([yes])],
                   [AC_MSG_RESULT([no])
                    AC_MSG_ERROR([--enable-sanitizers: $CC cannot link with $hrelay_san])])
  ])
  AC_SUBST([HRELAY_ASAN_RT])
])
