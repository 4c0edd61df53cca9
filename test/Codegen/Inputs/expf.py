#!/usr/bin/env python3
"""Inputs of qfx-lower-intrinsic-calls.mlir: the expanded expf against libm's.

  expf.py write DIR  -> DIR/exp.mlir (tosa.exp of its input), DIR/x.npy: the
                        floats around each of the expansion's boundaries
                        (overflow, underflow, subnormal results, the table's
                        steps), +-0, +-inf, NaNs, subnormal inputs, and
                        2^20 random bit patterns
  expf.py check DIR  -> compares DIR/y.npy (exp.mlir's result) with libm's
                        expf of each input, bit for bit (NaN for NaN)
"""

import ctypes
import ctypes.util
import pathlib
import sys

import numpy as np


def inputs() -> np.ndarray:
    def around(value: float, count: int = 64) -> np.ndarray:
        bits = int(np.float32(value).view(np.uint32))
        return np.arange(bits - count, bits + count, dtype=np.uint32).view(np.float32)

    special = [np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -1.0,
                         np.finfo(np.float32).max, -np.finfo(np.float32).max,
                         np.finfo(np.float32).tiny, 1e-45, -1e-45], np.float32)]
    hexes = ("0x1.62e42ep6", "-0x1.9fe368p6", "-0x1.9d1d9ep6")  # overflow, underflow
    for boundary in (88.0, *map(float.fromhex, hexes), -87.33654, np.log(2.0) / 32, 0.5, 20.0):
        special.append(around(boundary))
        special.append(around(-boundary))
    quiet_nans = np.array([0x7FC00001, 0xFFC00000, 0x7F800001], np.uint32).view(np.float32)
    random_bits = np.random.default_rng(7).integers(0, 2**32, 2**20, dtype=np.uint64)
    return np.concatenate(special + [quiet_nans, random_bits.astype(np.uint32).view(np.float32)])


def main() -> int:
    mode, directory = sys.argv[1], pathlib.Path(sys.argv[2])
    x = inputs()
    if mode == "write":
        n = x.size
        (directory / "exp.mlir").write_text(
            f"func.func @main(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {{\n"
            f"  %y = tosa.exp %x : (tensor<{n}xf32>) -> tensor<{n}xf32>\n"
            f"  return %y : tensor<{n}xf32>\n}}\n")
        np.save(directory / "x.npy", x)
        return 0
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    libm.expf.restype, libm.expf.argtypes = ctypes.c_float, [ctypes.c_float]
    expected = np.array([libm.expf(float(v)) for v in x], np.float32)
    y = np.load(directory / "y.npy")
    nan = np.isnan(expected)
    wrong = (np.isnan(y) != nan) | (~nan & (y.view(np.uint32) != expected.view(np.uint32)))
    if wrong.any():
        for k in np.flatnonzero(wrong)[:5]:
            print(f"expf({x[k]!r}) = {y[k]!r}, libm {expected[k]!r}")
        print(f"{int(wrong.sum())} of {x.size} differ")
        return 1
    print(f"libm's expf on all {x.size} inputs, bit for bit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
