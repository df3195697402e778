#!/bin/sh
# Stands in for the Check unit tests of plan/ when configure did not build them: reports them as
# skipped, with the reason, so that make check says so.
echo "SKIP: the Check unit tests of plan/ are not built: configure found no Check, or was" \
    "given --disable-unit-tests (install the Debian package check and run configure again)"
exit 77
