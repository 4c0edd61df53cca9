#!/usr/bin/env python3
"""Writes random int8 TOSA matmul chains (the shape qfx-lower gives a Linear:
tosa.matmul with a constant weight, optionally tosa.mul by 2^f and tosa.add
of an int32 bias, tosa.rescale to int8, optionally tosa.clamp) and random
inputs, for comparing qfx-codegen's kernels with the generic lowering.

Usage: matmul-cases.py OUTDIR  -> OUTDIR/caseN.mlir, OUTDIR/caseN.npy; prints
the case names, one per line.
"""

import pathlib
import sys

import numpy as np

# (M, N, K): ones, odd sizes, K not a multiple of 4 or 64, N not a multiple
# of 16, more than one microkernel tile in each direction.
SHAPES = [(1, 1, 1), (1, 16, 4), (2, 10, 16), (3, 17, 5), (8, 32, 64),
          (9, 33, 67), (16, 64, 128), (17, 48, 3), (1, 100, 300),
          (24, 16, 256), (5, 1, 9), (13, 31, 66)]


def dense(values: np.ndarray, dtype: str) -> str:
    return "dense<" + np.array2string(values, separator=", ", threshold=1 << 30,
                                      max_line_width=1 << 30) + f"> : tensor<{'x'.join(map(str, values.shape))}x{dtype}>"


def case(rng: np.random.Generator, m: int, n: int, k: int, index: int) -> str:
    weight = rng.integers(-128, 128, size=(1, k, n), dtype=np.int64)
    a_zp = int(rng.integers(-128, 128))
    per_channel = index % 2 == 0
    channels = n if per_channel else 1
    multipliers = rng.integers(1 << 30, (1 << 31) - 1, size=channels)
    shifts = rng.integers(30, 46, size=channels)
    out_zp = int(rng.integers(-128, 128))
    fraction = [0, 0, 3, 8][index % 4]
    with_bias = index % 3 != 2
    clamp = index % 4 in (1, 2)
    lines = [f"func.func @main(%a: tensor<1x{m}x{k}xi8>) -> tensor<1x{m}x{n}xi8> {{"]
    lines.append(f'  %w = "tosa.const"() <{{values = {dense(weight, "i8")}}}> : () -> tensor<1x{k}x{n}xi8>')
    lines.append(f'  %azp = "tosa.const"() <{{values = dense<{a_zp}> : tensor<1xi8>}}> : () -> tensor<1xi8>')
    lines.append('  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>')
    lines.append(f"  %acc = tosa.matmul %a, %w, %azp, %wzp : (tensor<1x{m}x{k}xi8>, tensor<1x{k}x{n}xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x{m}x{n}xi32>")
    value = "%acc"
    if fraction:
        lines.append(f'  %f = "tosa.const"() <{{values = dense<{1 << fraction}> : tensor<1x1x1xi32>}}> : () -> tensor<1x1x1xi32>')
        lines.append('  %s0 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>')
        lines.append(f"  %scaled = tosa.mul {value}, %f, %s0 : (tensor<1x{m}x{n}xi32>, tensor<1x1x1xi32>, tensor<1xi8>) -> tensor<1x{m}x{n}xi32>")
        value = "%scaled"
    if with_bias:
        bias = rng.integers(-(1 << 20), 1 << 20, size=(1, 1, n), dtype=np.int64)
        lines.append(f'  %b = "tosa.const"() <{{values = {dense(bias, "i32")}}}> : () -> tensor<1x1x{n}xi32>')
        lines.append(f"  %biased = tosa.add {value}, %b : (tensor<1x{m}x{n}xi32>, tensor<1x1x{n}xi32>) -> tensor<1x{m}x{n}xi32>")
        value = "%biased"
    lines.append(f'  %mult = "tosa.const"() <{{values = {dense(multipliers, "i32")}}}> : () -> tensor<{channels}xi32>')
    lines.append(f'  %shift = "tosa.const"() <{{values = {dense(shifts, "i8")}}}> : () -> tensor<{channels}xi8>')
    lines.append('  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>')
    lines.append(f'  %ozp = "tosa.const"() <{{values = dense<{out_zp}> : tensor<1xi8>}}> : () -> tensor<1xi8>')
    per = "true" if per_channel else "false"
    lines.append(f"  %r = tosa.rescale {value}, %mult, %shift, %izp, %ozp {{input_unsigned = false, output_unsigned = false, per_channel = {per}, rounding_mode = SINGLE_ROUND, scale32 = true}} : (tensor<1x{m}x{n}xi32>, tensor<{channels}xi32>, tensor<{channels}xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x{m}x{n}xi8>")
    value = "%r"
    if clamp:
        lo, hi = sorted(int(x) for x in rng.integers(-128, 128, size=2))
        lines.append(f"  %c = tosa.clamp %r {{min_val = {lo} : i8, max_val = {hi} : i8}} : (tensor<1x{m}x{n}xi8>) -> tensor<1x{m}x{n}xi8>")
        value = "%c"
    lines.append(f"  return {value} : tensor<1x{m}x{n}xi8>")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> None:
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(2026)
    for index, (m, n, k) in enumerate(SHAPES):
        name = f"case{index}"
        (out / f"{name}.mlir").write_text(case(rng, m, n, k, index))
        np.save(out / f"{name}.npy", rng.integers(-128, 128, size=(1, m, k)).astype(np.int8))
        print(name)


if __name__ == "__main__":
    main()
