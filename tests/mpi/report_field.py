#!/usr/bin/env python3
"""Prints one figure of an hrelay report (HRELAY_REPORT), for the shell tests.

Usage: report_field.py REPORT SITE FIELD
  SITE   the start of a call site's name (e.g. "sites.c:42 "), or "total", or "config"
  FIELD  a key of that object; "algorithms.NAME" for one family's count (0 if it did not run),
         "cost.NAME" for a cost parameter of "config"
Exits 1 (with a message) if the report cannot be read, no site matches, or several do.
"""
import json
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    path, site, field = sys.argv[1:]
    try:
        with open(path) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"report_field: {path}: {e}")
    if site in ("total", "config"):
        obj = report[site]
    else:
        found = [s for s in report["callsites"] if s["site"].startswith(site)]
        if len(found) != 1:
            names = [s["site"] for s in report["callsites"]]
            sys.exit(f"report_field: {len(found)} sites start with {site!r} in {names}")
        obj = found[0]
    if "." in field:
        outer, inner = field.split(".", 1)
        value = obj.get(outer, {}).get(inner, 0)
    else:
        if field not in obj:
            sys.exit(f"report_field: no {field!r} in {obj}")
        value = obj[field]
    print(value)


main()
