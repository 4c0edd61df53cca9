#!/usr/bin/env python3
"""Inputs of qfx-byte-constants.mlir.

  byte-constants.py write DIR  -> DIR/globals.mlir (LLVM dialect globals),
                                  DIR/ramp.mlir (adds a 1024-float constant
                                  to its input), DIR/x.npy (zeros)
  byte-constants.py check DIR  -> checks DIR/y.npy (ramp.mlir's result) is
                                  the constant, bit for bit
"""

import pathlib
import sys

import numpy as np

RAMP = np.arange(1024, dtype=np.float32) * np.float32(0.37) - np.float32(100)


def floats(values: np.ndarray) -> str:
    return "[" + ", ".join(f"{v:.9e}" for v in values) + "]"


def main() -> int:
    mode, directory = sys.argv[1], pathlib.Path(sys.argv[2])
    if mode == "check":
        y = np.load(directory / "y.npy")
        if y.tobytes() != RAMP.tobytes():
            print(f"different: {y[:4]} instead of {RAMP[:4]}")
            return 1
        print("the ramp, bit for bit")
        return 0
    attrs = "{addr_space = 0 : i32, alignment = 64 : i64}"
    ones = np.arange(1, 1025, dtype=np.float32)
    lines = [
        f"llvm.mlir.global private constant @big(dense<{floats(ones)}> : tensor<1024xf32>) "
        f"{attrs} : !llvm.array<1024 x f32>",
        f"llvm.mlir.global private constant @small(dense<{floats(ones[:1023])}> : "
        f"tensor<1023xf32>) {attrs} : !llvm.array<1023 x f32>",
        f"llvm.mlir.global private constant @splat(dense<1.0> : tensor<2048xf32>) {attrs} : "
        "!llvm.array<2048 x f32>",
        f"llvm.mlir.global private constant @bytes(dense<{list(range(-128, 128)) * 32}> : "
        f"tensor<8192xi8>) {attrs} : !llvm.array<8192 x i8>",
        f"llvm.mlir.global private @mutable(dense<{list(range(1024))}> : tensor<1024xi32>) "
        f"{attrs} : !llvm.array<1024 x i32>",
    ]
    (directory / "globals.mlir").write_text("\n".join(lines) + "\n")
    (directory / "ramp.mlir").write_text(
        "func.func @main(%x: tensor<1024xf32>) -> tensor<1024xf32> {\n"
        f'  %c = "tosa.const"() <{{values = dense<{floats(RAMP)}> : tensor<1024xf32>}}> : '
        "() -> tensor<1024xf32>\n"
        "  %y = tosa.add %x, %c : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>\n"
        "  return %y : tensor<1024xf32>\n}\n")
    np.save(directory / "x.npy", np.zeros(1024, np.float32))
    return 0


if __name__ == "__main__":
    sys.exit(main())
