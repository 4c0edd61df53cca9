#!/usr/bin/env python3
"""Checks the statistics of a calibrated module against golden data.

Usage: check-calibration.py CALIBRATED.mlir GOLDEN.json

Every observer id in the golden file must have the same statistics on every
qfx.observe that carries it, equal to the golden float32 values bit for bit;
observers not in the golden file must carry no statistics.
"""

import json
import re
import sys

import numpy as np

OBSERVE = re.compile(r"qfx\.observe %\S+ id (\d+) spec\(.*?\)(?: stats\((.*)\))? :")
FIELD = re.compile(r"(min|max|counts) = (\[[^\]]*\]|[^,>]+)")


def parse_stats(text: str) -> dict:
    stats = {}
    for name, value in FIELD.findall(text):
        values = value.strip("[]").split(",")
        stats[name] = [np.float32(float(v)) for v in values if v.strip()]
    return stats


def main() -> int:
    module = open(sys.argv[1]).read()
    golden = json.load(open(sys.argv[2]))
    seen = set()
    failures = 0
    for match in OBSERVE.finditer(module):
        observer_id, stats_text = match.group(1), match.group(2)
        expected = golden.get(observer_id)
        if expected is None:
            if stats_text:
                print(f"id {observer_id}: unexpected stats {stats_text}")
                failures += 1
            continue
        seen.add(observer_id)
        if not stats_text:
            print(f"id {observer_id}: no stats")
            failures += 1
            continue
        actual = parse_stats(stats_text)
        for field, values in expected.items():
            want = [np.float32(float(v)) for v in values]
            got = actual.get(field)
            if got is None or len(got) != len(want) or any(
                a.tobytes() != b.tobytes() for a, b in zip(got, want)
            ):
                print(f"id {observer_id} {field}: got {got}, expected {want}")
                failures += 1
    missing = set(golden) - seen
    if missing:
        print(f"ids without a qfx.observe: {sorted(missing)}")
        failures += 1
    print(f"{len(seen)} observer ids checked, {failures} mismatches")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
