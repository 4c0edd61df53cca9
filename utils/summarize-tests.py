#!/usr/bin/env python3
"""Sums JUnit XML reports of several test runners into one line
"N passed, N failed[, N skipped]" and exits non-zero if anything failed.

A runner that exited non-zero without reporting a failing test (it crashed,
or found no tests) counts as one failure, so a broken suite never looks green.

Usage: summarize-tests.py --runner NAME EXIT_STATUS REPORT.xml [--runner ...]
"""

import argparse
import pathlib
import sys
import xml.etree.ElementTree as ElementTree


def count(report: pathlib.Path) -> tuple[int, int, int]:
    """(passed, failed, skipped) test cases in a JUnit XML report."""
    passed = failed = skipped = 0
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        elif case.find("skipped") is not None:
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--runner", nargs=3, action="append", required=True,
        metavar=("NAME", "EXIT_STATUS", "REPORT"))
    args = parser.parse_args()

    total_passed = total_failed = total_skipped = 0
    for name, status, report in args.runner:
        path = pathlib.Path(report)
        if path.is_file():
            passed, failed, skipped = count(path)
        else:
            print(f"{name}: no report at {path}", file=sys.stderr)
            passed = failed = skipped = 0
        if int(status) != 0 and failed == 0:
            print(f"{name}: exited with status {status} without a failing "
                  "test; counted as one failure", file=sys.stderr)
            failed = 1
        if passed + failed == 0:
            print(f"{name}: ran no test; counted as one failure",
                  file=sys.stderr)
            failed = 1
        print(f"{name}: {passed} passed, {failed} failed, {skipped} skipped",
              file=sys.stderr)
        total_passed += passed
        total_failed += failed
        total_skipped += skipped

    print(f"{total_passed} passed, {total_failed} failed, "
          f"{total_skipped} skipped")
    return 1 if total_failed else 0


if __name__ == "__main__":
    sys.exit(main())
