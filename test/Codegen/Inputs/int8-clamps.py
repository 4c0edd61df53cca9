#!/usr/bin/env python3
"""Inputs of qfx-int8-clamps.mlir: integer chains from int8 to int8 that
clamp, on every int8 value, in two programs.

  int8-clamps.py write DIR -> DIR/folded.mlir (the chains: qfx-int8-clamps
                              makes each a tosa.clamp), DIR/kept.mlir (the
                              same chains, each also returning its int32
                              start, so that the pass keeps them), DIR/x.npy
                              (every int8 value)
  int8-clamps.py check DIR -> DIR/folded.npy and DIR/kept.npy, the two
                              programs' int8 results, are equal
"""

import pathlib
import sys

import numpy as np

T8, T32 = "tensor<1x256xi8>", "tensor<1x256xi32>"
ONES = "tensor<1x1xi32>"

# Each chain: the ops after the cast to int32, as (op, constant, extra).
CHAINS = [
    # qfx-lower's ReLU6 of mobilenet_v2: the scales' ratio 1048575 / 2^20.
    [("mul", 1048575, 0), ("add", 127, None), ("shift", 20, False),
     ("maximum", -59, None), ("minimum", 127, None)],
    # A product rounded and shifted back (x), subtractions around a clamp.
    [("mul", 1024, 10), ("sub", -3, None), ("clamp", (-100, 50), None), ("sub", 3, None)],
    # (4x + 1) >> 2 rounded: x.
    [("mul", 4, 0), ("add", 1, None), ("shift", 2, True), ("maximum", -128, None)],
]


def chain(index: int, ops: list, keep: bool) -> tuple:
    """The lines of chain INDEX on %x, its int8 result and, if KEEP, its
    int32 start (returned too, a second use)."""
    p = f"%c{index}"
    lines = [f"  {p}_0 = tosa.cast %x : ({T8}) -> {T32}"]
    value = f"{p}_0"
    for k, (op, constant, extra) in enumerate(ops, 1):
        out = f"{p}_{k}"
        if op == "clamp":
            lo, hi = constant
            lines.append(f"  {out} = tosa.clamp {value} {{min_val = {lo} : i32, "
                         f"max_val = {hi} : i32}} : ({T32}) -> {T32}")
            value = out
            continue
        lines.append(f'  {out}_k = "tosa.const"() <{{values = dense<{constant}> : {ONES}}}> '
                     f": () -> {ONES}")
        if op == "mul":
            lines.append(f'  {out}_s = "tosa.const"() <{{values = dense<{extra}> : tensor<1xi8>}}> '
                         ": () -> tensor<1xi8>")
            lines.append(f"  {out} = tosa.mul {value}, {out}_k, {out}_s : ({T32}, {ONES}, "
                         f"tensor<1xi8>) -> {T32}")
        elif op == "shift":
            lines.append(f"  {out} = tosa.arithmetic_right_shift {value}, {out}_k "
                         f"{{round = {str(extra).lower()}}} : ({T32}, {ONES}) -> {T32}")
        else:
            lines.append(f"  {out} = tosa.{op} {value}, {out}_k : ({T32}, {ONES}) -> {T32}")
        value = out
    lines.append(f"  {p}_r = tosa.cast {value} : ({T32}) -> {T8}")
    return lines, f"{p}_r", f"{p}_0"


def program(keep: bool) -> str:
    body, results = [], []
    for index, ops in enumerate(CHAINS):
        lines, result, start = chain(index, ops, keep)
        body += lines
        results.append(result)
        if keep:
            results.append(start)
    types = ", ".join(T8 if r.endswith("_r") else T32 for r in results)
    return (f"func.func @main(%x: {T8}) -> ({types}) {{\n" + "\n".join(body)
            + f"\n  return {', '.join(results)} : {types}\n}}\n")


def main() -> int:
    mode, directory = sys.argv[1], pathlib.Path(sys.argv[2])
    if mode == "write":
        (directory / "folded.mlir").write_text(program(keep=False))
        (directory / "kept.mlir").write_text(program(keep=True))
        np.save(directory / "x.npy", np.arange(-128, 128, dtype=np.int8).reshape(1, 256))
        return 0
    for index in range(len(CHAINS)):
        folded = np.load(directory / f"folded{index}.npy")
        kept = np.load(directory / f"kept{index}.npy")
        if folded.tobytes() != kept.tobytes():
            print(f"chain {index}: different at {int(np.count_nonzero(folded != kept))} inputs")
            return 1
        print(f"chain {index}: equal, outputs in [{folded.min()}, {folded.max()}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
