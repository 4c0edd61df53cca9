#!/usr/bin/env python3
"""Compares two .npy files element by element.

Prints the shapes, the max absolute and relative error and the number of
elements outside the tolerance; exits 1 if any element is outside
|a - b| <= atol + rtol * |b| (b is the reference), or if dtypes or shapes
differ. --exact requires identical values.

Usage: npy-compare.py ACTUAL.npy REFERENCE.npy [--rtol R] [--atol A] [--exact]
"""

import argparse
import sys

import numpy as np


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("actual")
    parser.add_argument("reference")
    parser.add_argument("--rtol", type=float, default=1e-5)
    parser.add_argument("--atol", type=float, default=1e-6)
    parser.add_argument("--exact", action="store_true")
    args = parser.parse_args()

    actual = np.load(args.actual)
    reference = np.load(args.reference)
    if actual.shape != reference.shape or actual.dtype != reference.dtype:
        print(f"mismatch: {args.actual} is {actual.dtype}{list(actual.shape)}, "
              f"{args.reference} is {reference.dtype}{list(reference.shape)}")
        return 1
    a = actual.astype(np.float64)
    b = reference.astype(np.float64)
    diff = np.abs(a - b)
    if args.exact:
        bad = int(np.count_nonzero(actual != reference))
    else:
        bad = int(np.count_nonzero(diff > args.atol + args.rtol * np.abs(b)))
    rel = diff / np.maximum(np.abs(b), np.finfo(np.float64).tiny)
    print(f"{actual.dtype}{list(actual.shape)}: max abs error "
          f"{diff.max(initial=0):.3g}, max rel error {rel.max(initial=0):.3g}, "
          f"{bad} of {actual.size} outside tolerance")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
