# HRELAY_OPTIONAL(NAME, LABEL, HELP, CHECK, MISSING): an optional part of the build, chosen with
# --enable-NAME / --disable-NAME (HELP describes it); the default (auto) builds it when CHECK
# finds what it needs. CHECK is shell code that sets hrelay_found to yes when it does. An
# explicit --enable-NAME that CHECK cannot satisfy stops configure with MISSING (what is
# missing and which Debian package to install). Afterwards enable_NAME (hyphens as
# underscores; substituted too) is yes or no, the Automake conditional HRELAY_NAME (upper case)
# is set, and the summary at the end of configure has a line LABEL: yes, or no with the reason.
AC_DEFUN([HRELAY_OPTIONAL], [
  AC_ARG_ENABLE([$1], [AS_HELP_STRING([--enable-$1], [$3 (default: when found)])], [],
                [AS_TR_SH([enable_$1])=auto])
  AS_CASE([$AS_TR_SH([enable_$1])], [yes|no|auto], [],
          [AC_MSG_ERROR([--enable-$1=$AS_TR_SH([enable_$1]): expected yes, no or auto])])
  hrelay_found=no
  AS_IF([test "x$AS_TR_SH([enable_$1])" != xno], [$4])
  AS_IF([test "x$hrelay_found" = xyes],
          [AS_TR_SH([enable_$1])=yes
           HRELAY_SUMMARY([$2], [yes])],
        [test "x$AS_TR_SH([enable_$1])" = xyes],
          [AC_MSG_ERROR([--enable-$1: $5])],
        [test "x$AS_TR_SH([enable_$1])" = xauto],
          [AS_TR_SH([enable_$1])=no
           AC_MSG_WARN([$2: not built: $5 (or configure with --disable-$1)])
           HRELAY_SUMMARY([$2], [no: $5])],
          [HRELAY_SUMMARY([$2], [no (--disable-$1)])])
  AM_CONDITIONAL(AS_TR_CPP([HRELAY_$1]), [test "x$AS_TR_SH([enable_$1])" = xyes])
  AC_SUBST(AS_TR_SH([enable_$1]))
])

# HRELAY_SUMMARY(LABEL, OUTCOME): one line of the summary configure prints at the end
# (HRELAY_SUMMARY_PRINT).
AC_DEFUN([HRELAY_SUMMARY], [
  hrelay_summary="$hrelay_summary
  m4_format([%-22s], [$1:]) $2"
])

# HRELAY_SUMMARY_PRINT: prints the summary (after AC_OUTPUT).
AC_DEFUN([HRELAY_SUMMARY_PRINT], [
  AS_ECHO(["
$PACKAGE_NAME $PACKAGE_VERSION configured:$hrelay_summary
"])
])
