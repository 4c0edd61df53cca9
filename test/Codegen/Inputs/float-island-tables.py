#!/usr/bin/env python3
"""Inputs of qfx-float-island-tables.mlir: a SiLU between an int8
dequantization and quantization, twice.

  float-island-tables.py write DIR -> DIR/table.mlir (per-tensor input:
                                      qfx-float-island-tables makes it a
                                      table), DIR/float.mlir (the same
                                      numbers as per-axis qparams, equal on
                                      every channel: the pass leaves it in
                                      float), DIR/x.npy (every int8 value)
  float-island-tables.py check DIR -> DIR/table.npy and DIR/float.npy, the
                                      two programs' outputs, are equal
"""

import pathlib
import sys

import numpy as np

SHAPE = (1, 16, 16, 64)
IN_SCALE, IN_ZP = 0.0371, 63
OUT_SCALE, OUT_ZP = 0.0213, 16


def program(input_type: str) -> str:
    shape = "x".join(map(str, SHAPE))
    return f"""func.func @main(%x: tensor<{shape}xi8>) -> tensor<{shape}xi8> {{
  %q = quant.scast %x : tensor<{shape}xi8> to tensor<{shape}x{input_type}>
  %d = quant.dcast %q : tensor<{shape}x{input_type}> to tensor<{shape}xf32>
  %s = qfx.composite "torch.nn.SiLU"(%d) attributes {{qfx.origin = "torch.nn.SiLU"}} : (tensor<{shape}xf32>) -> tensor<{shape}xf32> {{
  ^bb0(%a: tensor<{shape}xf32>):
    %g = tosa.sigmoid %a : (tensor<{shape}xf32>) -> tensor<{shape}xf32>
    %shift = "tosa.const"() <{{values = dense<0> : tensor<1xi8>}}> : () -> tensor<1xi8>
    %m = tosa.mul %a, %g, %shift : (tensor<{shape}xf32>, tensor<{shape}xf32>, tensor<1xi8>) -> tensor<{shape}xf32>
    qfx.yield %m : tensor<{shape}xf32>
  }}
  %o = quant.qcast %s : tensor<{shape}xf32> to tensor<{shape}x!quant.uniform<u8:f32, {OUT_SCALE}:{OUT_ZP}>>
  %r = quant.scast %o : tensor<{shape}x!quant.uniform<u8:f32, {OUT_SCALE}:{OUT_ZP}>> to tensor<{shape}xi8>
  return %r : tensor<{shape}xi8>
}}
"""


def main() -> int:
    mode, directory = sys.argv[1], pathlib.Path(sys.argv[2])
    if mode == "write":
        per_tensor = f"!quant.uniform<u8:f32, {IN_SCALE}:{IN_ZP}>"
        channels = ", ".join([f"{IN_SCALE}:{IN_ZP}"] * SHAPE[-1])
        per_axis = f"!quant.uniform<u8:f32:3, {{{channels}}}>"
        (directory / "table.mlir").write_text(program(per_tensor))
        (directory / "float.mlir").write_text(program(per_axis))
        count = int(np.prod(SHAPE))
        x = (np.arange(count) % 256 - 128).astype(np.int8).reshape(SHAPE)
        np.save(directory / "x.npy", x)
        return 0
    table, floats = np.load(directory / "table.npy"), np.load(directory / "float.npy")
    if table.tobytes() != floats.tobytes():
        print(f"different at {int(np.count_nonzero(table != floats))} elements")
        return 1
    print(f"equal, {len(np.unique(table))} distinct outputs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
