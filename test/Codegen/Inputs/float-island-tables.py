#!/usr/bin/env python3
"""Inputs of qfx-float-island-tables.mlir: a SiLU, and a GELU, between an
int8 dequantization and quantization, twice each.

  float-island-tables.py write DIR -> DIR/table.mlir (per-tensor input:
                                      qfx-float-island-tables makes it a
                                      table), DIR/float.mlir (the same
                                      numbers as per-axis qparams, equal on
                                      every channel: the pass leaves it in
                                      float), DIR/gelu-table.mlir and
                                      DIR/gelu-float.mlir (the same with a
                                      GELU, which qfx-lower-gelu computes in
                                      both), DIR/x.npy (every int8 value)
  float-island-tables.py check DIR -> DIR/table.npy and DIR/float.npy, the
                                      two programs' outputs, are equal, and
                                      so are DIR/gelu-table.npy and
                                      DIR/gelu-float.npy
"""

import pathlib
import sys

import numpy as np

SHAPE = (1, 16, 16, 64)
IN_SCALE, IN_ZP = 0.0371, 63
OUT_SCALE, OUT_ZP = 0.0213, 16

SILU = """  ^bb0(%a: tensor<{shape}xf32>):
    %g = tosa.sigmoid %a : (tensor<{shape}xf32>) -> tensor<{shape}xf32>
    %shift = "tosa.const"() <{{values = dense<0> : tensor<1xi8>}}> : () -> tensor<1xi8>
    %m = tosa.mul %a, %g, %shift : (tensor<{shape}xf32>, tensor<{shape}xf32>, tensor<1xi8>) -> tensor<{shape}xf32>
    qfx.yield %m : tensor<{shape}xf32>"""

# The exporter's GELU body, x * ((erf(x / sqrt(2)) + 1) * 0.5).
GELU = """  ^bb0(%a: tensor<{shape}xf32>):
    %c = "tosa.const"() <{{values = dense<0.707106769> : tensor<1x1x1x1xf32>}}> : () -> tensor<1x1x1x1xf32>
    %shift = "tosa.const"() <{{values = dense<0> : tensor<1xi8>}}> : () -> tensor<1xi8>
    %t = tosa.mul %a, %c, %shift : (tensor<{shape}xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<{shape}xf32>
    %e = tosa.erf %t : (tensor<{shape}xf32>) -> tensor<{shape}xf32>
    %one = "tosa.const"() <{{values = dense<1.0> : tensor<1x1x1x1xf32>}}> : () -> tensor<1x1x1x1xf32>
    %p = tosa.add %e, %one : (tensor<{shape}xf32>, tensor<1x1x1x1xf32>) -> tensor<{shape}xf32>
    %half = "tosa.const"() <{{values = dense<0.5> : tensor<1x1x1x1xf32>}}> : () -> tensor<1x1x1x1xf32>
    %h = tosa.mul %p, %half, %shift : (tensor<{shape}xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<{shape}xf32>
    %m = tosa.mul %a, %h, %shift : (tensor<{shape}xf32>, tensor<{shape}xf32>, tensor<1xi8>) -> tensor<{shape}xf32>
    qfx.yield %m : tensor<{shape}xf32>"""


def program(input_type: str, name: str, body: str) -> str:
    shape = "x".join(map(str, SHAPE))
    body = body.format(shape=shape)
    return f"""func.func @main(%x: tensor<{shape}xi8>) -> tensor<{shape}xi8> {{
  %q = quant.scast %x : tensor<{shape}xi8> to tensor<{shape}x{input_type}>
  %d = quant.dcast %q : tensor<{shape}x{input_type}> to tensor<{shape}xf32>
  %s = qfx.composite "{name}"(%d) attributes {{qfx.origin = "{name}"}} : (tensor<{shape}xf32>) -> tensor<{shape}xf32> {{
{body}
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
        for prefix, name, body in (("", "torch.nn.SiLU", SILU), ("gelu-", "torch.nn.GELU", GELU)):
            (directory / f"{prefix}table.mlir").write_text(program(per_tensor, name, body))
            (directory / f"{prefix}float.mlir").write_text(program(per_axis, name, body))
        count = int(np.prod(SHAPE))
        x = (np.arange(count) % 256 - 128).astype(np.int8).reshape(SHAPE)
        np.save(directory / "x.npy", x)
        return 0
    failed = False
    for prefix in ("", "gelu-"):
        table = np.load(directory / f"{prefix}table.npy")
        floats = np.load(directory / f"{prefix}float.npy")
        if table.tobytes() != floats.tobytes():
            print(f"{prefix}different at {int(np.count_nonzero(table != floats))} elements")
            failed = True
        else:
            print(f"{prefix}equal, {len(np.unique(table))} distinct outputs")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
