#!/usr/bin/env python3
"""Checks quant-run's dynamic quantization results against PyTorch's.

Usage: check-dynamic.py GOLDEN.json VARIANT OUTPUT_DIR CASE...

OUTPUT_DIR holds <case>.d.npy, <case>.s.npy and <case>.z.npy for each case:
the dequantized tensor, scale and zero point quant-run computed for @VARIANT.
"""

import json
import pathlib
import sys

import numpy as np


def main() -> int:
    golden = json.load(open(sys.argv[1]))
    variant, out = sys.argv[2], pathlib.Path(sys.argv[3])
    failures = 0
    for case in sys.argv[4:]:
        want = golden[f"{variant}/{case}"]
        scale = np.load(out / f"{case}.s.npy")
        zero_point = np.load(out / f"{case}.z.npy")
        values = np.load(out / f"{case}.d.npy")
        want_values = np.array([np.float32(float(v)) for v in want["dequantized"]], np.float32)
        problems = []
        if scale.tobytes() != np.float32(float(want["scale"])).tobytes():
            problems.append(f"scale {scale} != {want['scale']}")
        if int(zero_point) != want["zero_point"]:
            problems.append(f"zero point {zero_point} != {want['zero_point']}")
        if values.tobytes() != want_values.tobytes():
            problems.append(f"{np.count_nonzero(values != want_values)} dequantized values differ")
        if problems:
            print(f"{variant}/{case}: " + "; ".join(problems))
            failures += 1
    print(f"{variant}: {len(sys.argv) - 4} cases, {failures} mismatches")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
