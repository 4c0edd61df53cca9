//===- Passes.td - qfx conversion passes -------------------*- tablegen -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_CONVERSION_PASSES_TD
#define QFX_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def QFXLowerQuantToLinalg : Pass<"qfx-lower-quant-to-linalg"> {
  let summary = "Lowers quantize/dequantize casts to linalg with PyTorch's "
                "numerics";
  let description = [{
    Rewrites `quant.qcast`, `quant.dcast`, `qfx.fake_quant`, `qfx.quantize`
    and `qfx.dequantize` into `linalg.generic` ops on the storage integer
    types, bit-compatible with PyTorch 1.13:

    - quantize: `clamp(round_half_even(x * (1 / scale)) + zero_point, qmin,
      qmax)`, with `1 / scale` and the product in float32 (dividing by the
      scale instead gives different results);
    - dequantize: `(float(q) - float(zero_point)) * scale` in float32;
    - fake quantize: the two in sequence, staying in float.

    Per-axis types quantize along their quantized dimension. `[qmin, qmax]`
    is the quantized type's storage range (`u8<0:15>` gives [0, 15]); for
    `qfx.quantize` it is the result element type's full range. Afterwards
    `quant.scast` pairs that cancel are removed; any quantized type left
    (e.g. on a function argument) is an error.

    Unlike upstream's `--lower-quant-ops`, which truncates and does not clamp,
    this matches PyTorch bit for bit.

    ```mlir
    %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 0.1:128>>
    // becomes
    %q = linalg.generic ... {
      %s = arith.mulf %in, %inv_scale : f32
      %r = math.roundeven %s : f32
      %z = arith.addf %r, %zero_point : f32
      %c = arith.minimumf (arith.maximumf %z, %qmin), %qmax : f32
      %i = arith.fptoui %c : f32 to i8
      linalg.yield %i : i8
    } -> tensor<4xi8>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::quant::QuantDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // QFX_CONVERSION_PASSES_TD
