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
    Rewrites `quant.qcast`, `quant.dcast`, `qfx.fake_quant`, `qfx.quantize`,
    `qfx.dequantize` and `qfx.choose_qparams` into linalg ops on the storage
    integer types, bit-compatible with PyTorch 1.13:

    - quantize: `clamp(round_half_even(x * (1 / scale)) + zero_point, qmin,
      qmax)`, with `1 / scale` and the product in float32 (dividing by the
      scale instead gives different results);
    - dequantize: `(float(q) - float(zero_point)) * scale` in float32;
    - fake quantize: the two in sequence, staying in float;
    - choose_qparams: aten's ChooseQuantizationParams over the tensor's
      minimum and maximum, as `quantize_per_tensor_dynamic` uses it (range
      extended to 0, double-precision scale, 0.1 for a zero scale, the
      6.1e-5 small-scale cut-off, the nudged zero point).

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

def QFXConvert : Pass<"qfx-convert", "::mlir::ModuleOp"> {
  let summary = "Turns calibrated observers into quantize/dequantize casts: "
                "the reference model";
  let description = [{
    PyTorch's convert_fx to the reference model: every calibrated
    `qfx.observe` becomes `quant.qcast` + `quant.dcast` with the
    `!quant.uniform` type whose scale and zero point its observer computes
    (the numerics library, bit-compatible with PyTorch 1.13's
    calculate_qparams); per-channel observers give per-axis types along
    their `ch_axis`.

    ```mlir
    %1 = qfx.observe %0 id 3 spec(#qfx.observer<minmax>)
        stats(#qfx.minmax<min = -1.0, max = 3.0>) : tensor<4xf32>
    // becomes
    %q = quant.qcast %0 : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 0.0156862754:64>>
    %1 = quant.dcast %q : tensor<4x!quant.uniform<u8:f32, 0.0156862754:64>> to tensor<4xf32>
    ```

    - An observed constant (a weight) is quantized now: it becomes an integer
      constant, `quant.scast` to the quantized type, and `quant.dcast`. A
      weight observer without statistics observes its constant here, as
      PyTorch's convert does.
    - The storage range is the dtype's full range, as in PyTorch's
      `quantize_per_tensor`; `quant_min`/`quant_max` and `reduce_range`
      shape only the scale and zero point.
    - Observers that share an id get the same type. `fixed_qparams` uses its
      arguments. `reuse_input` and float32 placeholders disappear. float16
      placeholder and noop observers become a cast to f16 and back.
    - A placeholder with `compute_dtype` and a quint8 / qint8 dtype marks a
      dynamically quantized activation: it becomes `qfx.choose_qparams` +
      `qfx.quantize` + `qfx.dequantize`, PyTorch's
      `quantize_per_tensor_dynamic(x, dtype, reduce_range)` + `dequantize`.
      PyTorch reduces the range to 7 bits only on its x86/fbgemm engines:
      `dynamic-reduce-range` says which (default on, as for `default:x86`).
    - Errors: an activation observer without statistics (the model was not
      calibrated), observers of one id whose statistics differ, and what is
      not supported yet: `per_channel_affine_float_qparams`.
  }];
  let options = [
    Option<"dynamicReduceRange", "dynamic-reduce-range", "bool",
           /*default=*/"true",
           "Halve the range of dynamically quantized activations, as "
           "PyTorch's x86 and fbgemm engines do (qnnpack and onednn do not)">
  ];
  let dependentDialects = [
    "::mlir::quant::QuantDialect",
    "::mlir::tosa::TosaDialect",
    "::qfx::QFXDialect"
  ];
}

#endif // QFX_CONVERSION_PASSES_TD
