#!/usr/bin/env python3
"""Input of qfx-byte-constants.mlir.

  byte-constants.py DIR  -> DIR/globals.mlir (LLVM dialect globals)
"""

import pathlib
import sys

import numpy as np

def floats(values: np.ndarray) -> str:
    return "[" + ", ".join(f"{v:.9e}" for v in values) + "]"


def main() -> int:
    directory = pathlib.Path(sys.argv[1])
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
