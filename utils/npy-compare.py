#!/usr/bin/env python3
"""Compares two .npy files element by element.

Prints the shapes, the max absolute and relative error and the number of
elements outside the tolerance; exits 1 if any element is outside
|a - b| <= atol + rtol * |b| (b is the reference), or if dtypes or shapes
differ. --exact requires identical values.

--qparams FILE.json compares on the int8 grid of the reference's output
instead (for example a NAME.quantized-BACKEND.json written by
utils/golden/gen_quantized_golden.py: {"scale": S, "zero_point": Z, ...}).
With step = S, an element is equal when |a - b| < step / 2; the comparison
prints

  float32[2, 10]: 199 of 200 equal (99.5%), worst 1 step(s)

and exits 1 if fewer than the fraction --min-equal (default 0.99) of the
elements are equal, if any element has |a - b| > max_steps * step (with
--max-steps, default 1, plus 0.01 step for float rounding and scales a few
ulps apart), or
if dtypes or shapes differ. An unreadable or malformed JSON file exits 2.

Usage: npy-compare.py ACTUAL.npy REFERENCE.npy [--rtol R] [--atol A] [--exact]
       npy-compare.py ACTUAL.npy REFERENCE.npy --qparams FILE.json
                      [--min-equal FRACTION] [--max-steps N]
"""

import argparse
import json
import math
import sys

import numpy as np

DEFAULT_RTOL = 1e-5
DEFAULT_ATOL = 1e-6
DEFAULT_MIN_EQUAL = 0.99
DEFAULT_MAX_STEPS = 1
# Dequantized values are k * scale in float32, and two pipelines' scales may
# differ in the last bits: allow a hundredth of a step on top of the whole
# number of steps (a neighbouring integer is a whole step away).
STEP_SLACK = 0.01


def load_step(path: str) -> float:
    """The quantization step (scale) in the qparams JSON at PATH; exits 2 with
    the file and what was expected if it cannot be read or is malformed."""
    try:
        with open(path) as f:
            qparams = json.load(f)
    except (OSError, ValueError) as e:
        print(f"error: cannot read qparams {path}: {e}", file=sys.stderr)
        sys.exit(2)
    if not isinstance(qparams, dict):
        print(f"error: qparams {path}: expected a JSON object with \"scale\" and "
              f"\"zero_point\", got {type(qparams).__name__}", file=sys.stderr)
        sys.exit(2)
    scale = qparams.get("scale")
    if (isinstance(scale, bool) or not isinstance(scale, (int, float))
            or not math.isfinite(scale) or scale <= 0):
        print(f"error: qparams {path}: \"scale\" must be a positive finite number, "
              f"got {scale!r}", file=sys.stderr)
        sys.exit(2)
    zero_point = qparams.get("zero_point")
    if isinstance(zero_point, bool) or not isinstance(zero_point, int):
        print(f"error: qparams {path}: \"zero_point\" must be an integer, "
              f"got {zero_point!r}", file=sys.stderr)
        sys.exit(2)
    return float(scale)


def compare_quantized(actual: np.ndarray, reference: np.ndarray, step: float,
                      min_equal: float, max_steps: int) -> int:
    diff = np.abs(actual.astype(np.float64) - reference.astype(np.float64))
    equal = int(np.count_nonzero(diff < step / 2))
    # NaN is neither equal nor within max_steps.
    beyond = int(np.count_nonzero(~(diff <= (max_steps + STEP_SLACK) * step)))
    fraction = equal / actual.size if actual.size else 1.0
    # Rounded so that float noise on a whole number of steps prints as one.
    worst = round(float(diff.max(initial=0)) / step, 3)
    print(f"{actual.dtype}{list(actual.shape)}: {equal} of {actual.size} equal "
          f"({100 * fraction:.1f}%), worst {worst:.3g} step(s)")
    failed = False
    if fraction < min_equal:
        print(f"fail: fewer than {min_equal:g} of the elements are equal", file=sys.stderr)
        failed = True
    if beyond:
        print(f"fail: {beyond} element(s) more than {max_steps} step(s) of {step:g} apart",
              file=sys.stderr)
        failed = True
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("actual")
    parser.add_argument("reference")
    parser.add_argument("--rtol", type=float, help=f"default {DEFAULT_RTOL}")
    parser.add_argument("--atol", type=float, help=f"default {DEFAULT_ATOL}")
    parser.add_argument("--exact", action="store_true")
    parser.add_argument("--qparams", metavar="FILE.json",
                        help="compare on the reference's output quantization grid")
    parser.add_argument("--min-equal", type=float, metavar="FRACTION",
                        help=f"with --qparams: default {DEFAULT_MIN_EQUAL}")
    parser.add_argument("--max-steps", type=int, metavar="N",
                        help=f"with --qparams: default {DEFAULT_MAX_STEPS}")
    args = parser.parse_args()

    if args.qparams is not None:
        if args.exact or args.rtol is not None or args.atol is not None:
            parser.error("--qparams does not combine with --exact, --rtol or --atol")
        min_equal = DEFAULT_MIN_EQUAL if args.min_equal is None else args.min_equal
        max_steps = DEFAULT_MAX_STEPS if args.max_steps is None else args.max_steps
        if not 0 <= min_equal <= 1:
            parser.error(f"--min-equal must be a fraction in [0, 1], got {min_equal}")
        if max_steps < 0:
            parser.error(f"--max-steps must be >= 0, got {max_steps}")
        step = load_step(args.qparams)
    elif args.min_equal is not None or args.max_steps is not None:
        parser.error("--min-equal and --max-steps need --qparams")

    actual = np.load(args.actual)
    reference = np.load(args.reference)
    if actual.shape != reference.shape or actual.dtype != reference.dtype:
        print(f"mismatch: {args.actual} is {actual.dtype}{list(actual.shape)}, "
              f"{args.reference} is {reference.dtype}{list(reference.shape)}")
        return 1
    if args.qparams is not None:
        return compare_quantized(actual, reference, step, min_equal, max_steps)

    rtol = DEFAULT_RTOL if args.rtol is None else args.rtol
    atol = DEFAULT_ATOL if args.atol is None else args.atol
    a = actual.astype(np.float64)
    b = reference.astype(np.float64)
    diff = np.abs(a - b)
    if args.exact:
        bad = int(np.count_nonzero(actual != reference))
    else:
        bad = int(np.count_nonzero(diff > atol + rtol * np.abs(b)))
    rel = diff / np.maximum(np.abs(b), np.finfo(np.float64).tiny)
    print(f"{actual.dtype}{list(actual.shape)}: max abs error "
          f"{diff.max(initial=0):.3g}, max rel error {rel.max(initial=0):.3g}, "
          f"{bad} of {actual.size} outside tolerance")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
