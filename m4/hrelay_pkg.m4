# HRELAY_PKG_REQUIRE(VAR, MODULE, DEBIAN-PACKAGE): pkg-config MODULE is required; VAR_CFLAGS and
# VAR_LIBS are set; a missing module stops configure naming the Debian package to install.
AC_DEFUN([HRELAY_PKG_REQUIRE], [
  PKG_CHECK_MODULES([$1], [$2], [],
    [AC_MSG_ERROR([$2 not found by pkg-config: install the Debian package $3])])
])
