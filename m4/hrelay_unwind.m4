# HRELAY_CHECK_LIBUNWIND: sets hrelay_found to yes when pkg-config knows libunwind and
# libunwind.h compiles; LIBUNWIND_CFLAGS and LIBUNWIND_LIBS are set then.
AC_DEFUN([HRELAY_CHECK_LIBUNWIND], [
  PKG_CHECK_MODULES([LIBUNWIND], [libunwind], [
    hrelay_save_CPPFLAGS=$CPPFLAGS
    CPPFLAGS="$CPPFLAGS $LIBUNWIND_CFLAGS"
    AC_CHECK_HEADER([libunwind.h], [hrelay_found=yes])
    CPPFLAGS=$hrelay_save_CPPFLAGS
  ], [:])
])

# HRELAY_UNWINDER: after HRELAY_OPTIONAL([libunwind], ...): defines HRELAY_HAVE_LIBUNWIND when
# libunwind unwinds call sites (src/shim/site.c); without it glibc's backtrace() (execinfo.h)
# does, and configure stops if the C library has none.
AC_DEFUN([HRELAY_UNWINDER], [
  AS_IF([test "x$enable_libunwind" = xyes],
    [AC_DEFINE([HRELAY_HAVE_LIBUNWIND], [1],
               [Define to 1 to unwind call sites with libunwind (else glibc's backtrace).])
     HRELAY_SUMMARY([call sites unwound by], [libunwind])],
    [LIBUNWIND_CFLAGS=
     LIBUNWIND_LIBS=
     AC_CHECK_HEADER([execinfo.h], [hrelay_found=yes], [hrelay_found=no])
     AS_IF([test "x$hrelay_found" = xyes], [AC_CHECK_FUNC([backtrace], [], [hrelay_found=no])])
     AS_IF([test "x$hrelay_found" != xyes],
           [AC_MSG_ERROR([call sites need libunwind or the C library's backtrace() (glibc), and neither was found: install the Debian package libunwind-dev])])
     HRELAY_SUMMARY([call sites unwound by], [glibc's backtrace()])])
])
