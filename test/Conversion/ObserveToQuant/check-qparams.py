#!/usr/bin/env python3
"""Checks the !quant.uniform types of a converted module against golden
qparams.

Usage: check-qparams.py CONVERTED.mlir GOLDEN.json ID,ID,...

The quant.qcast ops of the module, in order, belong to the observer ids
given; each must have exactly the golden float32 scales and zero points.
"""

import json
import re
import sys

import numpy as np

QCAST = re.compile(r"quant\.qcast .* to tensor<[0-9x]*x!quant\.uniform<([^>]*)>>")


def parse(params: str):
    """(scales, zero points) of the inside of a !quant.uniform<...>."""
    storage, rest = params.split(",", 1)
    pairs = rest.strip()
    if pairs.startswith("{"):
        pairs = pairs.strip("{}").split(",")
    else:
        pairs = [pairs]
    scales, zero_points = [], []
    for pair in pairs:
        scale, _, zero_point = pair.strip().partition(":")
        scales.append(np.float32(float(scale)))
        zero_points.append(int(zero_point) if zero_point else 0)
    return scales, zero_points


def main() -> int:
    text = open(sys.argv[1]).read()
    golden = json.load(open(sys.argv[2]))
    ids = sys.argv[3].split(",")
    types = QCAST.findall(text)
    if len(types) != len(ids):
        print(f"found {len(types)} quant.qcast ops, expected {len(ids)}")
        return 1
    failures = 0
    for observer_id, params in zip(ids, types):
        scales, zero_points = parse(params)
        want = golden[observer_id]
        want_scales = [np.float32(float(v)) for v in want["scales"]]
        if [s.tobytes() for s in scales] != [s.tobytes() for s in want_scales] or zero_points != want["zero_points"]:
            print(f"id {observer_id}: got {scales} {zero_points}, expected {want_scales} {want['zero_points']}")
            failures += 1
    print(f"{len(ids)} quantized values checked, {failures} mismatches")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
