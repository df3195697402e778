#!/bin/bash
# One version: configure's (AC_INIT, PACKAGE_VERSION) is the one include/hrelay.h's
# HRELAY_VERSION_* macros state, the library reports (the report's "version", from
# hrelay_version's string) and every tool prints with --version as "TOOL (hrelay) VERSION".
. "${srcdir:-.}/tests/mpi/common.sh"
want=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' config.h)
[ -n "$want" ] || hr_fail "no PACKAGE_VERSION in config.h"
h=${srcdir:-.}/include/hrelay.h
macro() {
    sed -n "s/^#define HRELAY_VERSION_$1 \"*\([^\"]*\)\"*\$/\1/p" "$h"
}
[ "$(macro STRING)" = "$want" ] || hr_fail "hrelay.h says $(macro STRING), configure $want"
[ "$(macro MAJOR).$(macro MINOR).$(macro PATCH)" = "$want" ] ||
    hr_fail "hrelay.h's MAJOR.MINOR.PATCH: $(macro MAJOR).$(macro MINOR).$(macro PATCH), not $want"

for tool in hrelay-run hrelay-plan; do
    got=$(./$tool --version) || hr_fail "$tool --version failed"
    [ "$got" = "$tool (hrelay) $want" ] || hr_fail "$tool --version: '$got'"
done
got=$(hr_run_plain 1 -- ./hrelay-calibrate --version | grep -v '^+ ') ||
    hr_fail "hrelay-calibrate --version failed"
[ "$got" = "hrelay-calibrate (hrelay) $want" ] || hr_fail "hrelay-calibrate --version: '$got'"

r=$HR_TMP/report.json
hr_run 2 HRELAY_REPORT="$r" -- ./tests/mpi/sites two 1 >/dev/null || hr_fail "run"
grep -q "^{\"version\": \"$want\"," "$r" || hr_fail "the report's version: $(head -c 80 "$r")"
exit 0
