#!/usr/bin/env python3
"""Inputs of bound-constants.test.

  ramp.py write DIR  -> DIR/ramp.mlir (adds a constant of 2048 floats, 8 KiB,
                        to its input), DIR/x.npy (zeros)
  ramp.py check DIR  -> checks DIR/y.npy (ramp.mlir's result) is the
                        constant, bit for bit
"""

import pathlib
import sys

import numpy as np

RAMP = np.arange(2048, dtype=np.float32) * np.float32(0.37) - np.float32(100)


def main() -> int:
    mode, directory = sys.argv[1], pathlib.Path(sys.argv[2])
    if mode == "check":
        y = np.load(directory / "y.npy")
        if y.tobytes() != RAMP.tobytes():
            print(f"different: {y[:4]} instead of {RAMP[:4]}")
            return 1
        print("the ramp, bit for bit")
        return 0
    values = ", ".join(f"{v:.9e}" for v in RAMP)
    (directory / "ramp.mlir").write_text(
        "func.func @main(%x: tensor<2048xf32>) -> tensor<2048xf32> {\n"
        f'  %c = "tosa.const"() <{{values = dense<[{values}]> : tensor<2048xf32>}}> : '
        "() -> tensor<2048xf32>\n"
        "  %y = tosa.add %x, %c : (tensor<2048xf32>, tensor<2048xf32>) -> tensor<2048xf32>\n"
        "  return %y : tensor<2048xf32>\n}\n")
    np.save(directory / "x.npy", np.zeros(2048, np.float32))
    return 0


if __name__ == "__main__":
    sys.exit(main())
