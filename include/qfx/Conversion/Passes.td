//===- Passes.td - qfx conversion passes -------------------*- tablegen -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_CONVERSION_PASSES_TD
#define QFX_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def QFXContractToTosa : Pass<"qfx-contract-to-tosa"> {
  let summary = "Expands qfx.contract into plain TOSA";
  let description = [{
    Each `qfx.contract` becomes the TOSA op of its kind (`tosa.matmul`,
    `tosa.conv2d`, `tosa.depthwise_conv2d`, `tosa.transpose_conv2d`, with its
    zero points; an accumulator bias is the convolution's bias operand, or a
    `tosa.add` after a matmul) and its epilogue's arithmetic:

    - `#qfx.rescale`: `tosa.mul` by `2^fraction_bits` (when not 0),
      `tosa.add` of the int32 bias (when given), `tosa.rescale` (single
      rounding, 32-bit multipliers), `tosa.clamp` (when narrower than int8);
    - `#qfx.requantize`: `tosa.cast` to f32, `tosa.add` of the float bias
      (when given), `tosa.mul` by the multipliers, `tosa.add` of the float
      zero point (when not 0), `tosa.clamp` to the float bounds, `tosa.cast`
      (rounding half to even) to int8, or to int32, `tosa.add` of the
      integer zero point and `tosa.cast` to int8.

    These compute exactly the op's integers. `qfx-lower` writes contractions
    as `qfx.contract` and runs this expansion itself with `emit-tosa=true`;
    `qfx-lower-to-native` runs it after `qfx-codegen`, on the contractions
    the target's kernels did not take. The patterns are
    `populateQFXContractToTosaPatterns`
    (`qfx/Conversion/ContractToTosa/ContractToTosa.h`).

    ```mlir
    %y = qfx.contract matmul %x, %w {epilogue = #qfx.rescale<fraction_bits = 0,
           bias = [], multipliers = [1518500250], shifts = [38], output_zp = -3,
           min = -128, max = 127>} : (tensor<1x2x16xi8>, tensor<1x16x8xi8>) -> tensor<1x2x8xi8>
    // becomes
    %acc = tosa.matmul %x, %w, %xzp, %wzp : ... -> tensor<1x2x8xi32>
    %y = tosa.rescale %acc, %multiplier, %shift, %zp0, %zpm3 {...} : ... -> tensor<1x2x8xi8>
    ```
  }];
  let dependentDialects = ["::mlir::tosa::TosaDialect"];
}

def QFXTosaToContract : Pass<"qfx-tosa-to-contract"> {
  let summary = "Writes TOSA contractions as qfx.contract";
  let description = [{
    A `tosa.matmul`, `tosa.conv2d` or `tosa.depthwise_conv2d` with int8
    operands and int32 sums, or float32 throughout, and constant zero points
    (float ones 0) becomes the `qfx.contract` without epilogue that computes
    the same (a convolution's bias of one value for all channels becomes one
    per channel). `qfx-lower` writes its contractions as `qfx.contract`
    already; this pass gives `qfx-codegen` the others (a float model's
    convolutions and Linears, int8 TOSA from another producer), one op for
    one op. `qfx-lower-to-native` runs it before `qfx-codegen`; the patterns
    are `populateQFXTosaToContractPatterns`
    (`qfx/Conversion/TosaToContract/TosaToContract.h`).

    ```mlir
    %y = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, ...}
        : (...) -> tensor<1x8x8x4xf32>
    // becomes
    %y = qfx.contract conv2d %x, %w bias(%b) {dilation = ..., pad = ..., stride = ...}
        : (...) -> tensor<1x8x8x4xf32>
    ```
  }];
  let dependentDialects = ["::qfx::QFXDialect"];
}

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

def QFXLowerGelu : Pass<"qfx-lower-gelu"> {
  let summary = "Computes each GELU composite as PyTorch's float kernel does, "
                "in a linalg.generic";
  let description = [{
    PyTorch 1.13 on x86-64 runs a float GELU (`approximate='none'`) through
    oneDNN's `eltwise_gelu_erf` kernel, whose erf (Abramowitz and Stegun's
    formula, oneDNN's exp, fused multiply-adds) rounds otherwise than the
    composite's TOSA body (`tosa.erf`, which becomes the C library's `erff`):
    on [-8, 8] half the outputs differ, by up to 3e-7, and an output that
    lies on a rounding boundary of the quantize after it a step apart. This
    pass replaces each `qfx.composite "torch.nn.GELU"` on float32 by a
    `linalg.generic` computing that kernel's arithmetic (`math.fma` for its
    fused multiply-adds), bit for bit `qfx::geluAsPyTorch`, which qfx-lower's
    tables use. The native pipeline runs it after `qfx-float-island-tables`
    (which takes a GELU between int8 casts onto the 256 int8 values, still a
    composite) and before `qfx-inline-composites`; a consumer that wants
    plain TOSA inlines the composite's body instead.

    ```mlir
    %r = qfx.composite "torch.nn.GELU" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
      ...
    }
    // becomes
    %e = tensor.empty() : tensor<4xf32>
    %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
        ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%s: f32, %out: f32):
      %x1 = arith.mulf %s, %one_over_sqrt2 : f32
      ...
      %g = math.fma %erf, %half_s, %half_s : f32
      linalg.yield %g : f32
    } -> tensor<4xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def QFXLowerSoftmax : Pass<"qfx-lower-softmax"> {
  let summary = "Computes each last-dimension softmax composite as PyTorch's "
                "float kernel does, in linalg.generic ops";
  let description = [{
    PyTorch 1.13 on x86-64 (its AVX2 kernels) computes a float softmax over
    the last dimension of a tensor (and `quantized::softmax`, which
    dequantizes, runs it and quantizes) with `_vec_softmax_lastdim`: the
    row's maximum; `exp(x - max)` by SLEEF 3.5's `expf8_u10` (range
    reduction by ln 2 in two parts, a degree-6 polynomial, fused
    multiply-adds); the sum of those in eight lanes (element `i` added to
    lane `i mod 8`, in order), the lanes combined as
    `((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7))` (a row shorter than
    eight: added in order); then each exponential times `1 / sum`. The
    composite's TOSA body (`tosa.exp`, which becomes glibc's `expf`, and a
    sequential sum) rounds otherwise on many outputs, and an
    output on a rounding boundary of the quantize after it lands a step
    apart.

    This pass replaces each `qfx.composite "torch.nn.Softmax"` on float32
    whose `composite_attributes` say `last_dim = true` (PyTorch's `dim` is
    the tensor's last: the exporter sets it) and whose `axis` is the
    innermost with that arithmetic, bit for bit
    (`test_float_softmax_equals_pytorchs_bit_for_bit` compares outputs with
    PyTorch's). Leading dimensions may be dynamic, the
    reduced one is static. Other softmaxes (PyTorch's `_vec_softmax` over an
    inner dimension, whose vector and scalar paths depend on its thread
    split) keep their bodies. The native pipeline runs it before
    `qfx-inline-composites`.

    ```mlir
    %r = qfx.composite "torch.nn.Softmax" (%x)
        attributes {composite_attributes = {axis = 1 : i64, last_dim = true}}
        : (tensor<2x12xf32>) -> tensor<2x12xf32> { ... }
    // becomes
    %max = linalg.generic ... arith.maximumf ...          // tensor<2xf32>
    %e = linalg.generic ... (SLEEF's expf of x - max)     // tensor<2x12xf32>
    %p = tensor.pad %e low[0, 0] high[0, 4] { +0.0 }      // tensor<2x16xf32>
    %l = tensor.expand_shape %p [[0], [1, 2]]             // tensor<2x2x8xf32>
    %lanes = linalg.generic ... arith.addf ...            // tensor<2x8xf32>
    %inv = linalg.generic ... (the lane tree, 1 / sum)    // tensor<2xf32>
    %r = linalg.generic ... arith.mulf %e, %inv ...       // tensor<2x12xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def QFXLowerDivision : Pass<"qfx-lower-division"> {
  let summary = "Computes each division composite as PyTorch does, x / y "
                "rounded once, in a linalg.generic";
  let description = [{
    PyTorch divides float tensors with a division instruction; TOSA has no
    float division, so the exporter's `qfx.composite "torch.div"` has a body
    that multiplies by the reciprocal, which rounds twice: for a divisor
    whose reciprocal is not a power of two (an attention's `sqrt(head
    size)` of 32 or 128) many results differ from PyTorch's in the last
    bit. This pass replaces each float32 `torch.div` composite by
    a `linalg.generic` of `arith.divf`: of its one input by its `divisor`
    attribute (a number), or of its two inputs, broadcast where an input's
    dimension is 1 (static shapes). Others keep their bodies. The native
    pipeline runs it before `qfx-inline-composites`.

    ```mlir
    %r = qfx.composite "torch.div" (%x)
        attributes {composite_attributes = {divisor = 5.65685415 : f32}}
        : (tensor<2x4xf32>) -> tensor<2x4xf32> { ... }
    // becomes
    %r = linalg.generic ... ins(%x : tensor<2x4xf32>) ... {
    ^bb0(%in: f32, %out: f32):
      %q = arith.divf %in, %divisor : f32
      linalg.yield %q : f32
    } -> tensor<2x4xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def QFXLowerMean : Pass<"qfx-lower-mean"> {
  let summary = "Computes each float mean composite with the additions of "
                "PyTorch's at::mean, in linalg.generic ops";
  let description = [{
    PyTorch 1.13 averages a quantized tensor that is not contiguous (a
    quantized convolution's channels-last output), or over other dimensions
    than its innermost, by dequantizing it, `at::mean` in float32 and
    quantizing; a value whose exact average lies on a rounding boundary of
    that quantize (a tie, frequent for an even count) lands on either side
    by the float sum's rounding. `at::mean` is `at::sum` divided by the
    count, and `at::sum` adds in an order of its own: TensorIterator puts
    the reduced dimensions innermost, then orders by stride and coalesces
    neighbours; `cascade_sum` sums the two innermost dimensions with eight
    lanes (a contiguous reduced run), four interleaved partial sums
    (`row_sum`) and chunks of 16 folded into levels (`multi_row_sum`),
    and the output accumulates the rest in iteration order.

    This pass replaces each float32 `qfx.composite "torch.mean"` of static
    shapes whose `composite_attributes` carry `torch_dims` (per axis of the
    operand, PyTorch's dimension) and `torch_strides` (per axis, the stride
    in elements of the float tensor PyTorch sums: its dequantized operand,
    dense in the operand's suggested memory format; the exporter sets both)
    by those additions, in `linalg.generic` reductions that add in index
    order, then `arith.divf` by the count: bit for bit PyTorch's on one
    thread (`test_mean_in_float_equals_pytorchs_bit_for_bit`). PyTorch on several threads sums
    a mean to one value of 32768 or more inputs per thread, in an order
    that depends on the thread count, which this pass does not model; nor
    runs of more than 2^19 values (longer chunks), which keep the body.
    Composites without the two attributes keep their bodies; attributes
    that contradict the operand (lengths, not a permutation, strides not
    positive, a result of another element count) are errors. The native
    pipeline runs it before `qfx-inline-composites`.

    ```mlir
    // The mean over C of a [1, 20, 2, 2] tensor PyTorch holds
    // channels-last (C innermost), held NHWC.
    %r = qfx.composite "torch.mean" (%x) attributes {composite_attributes = {
          axes = array<i64: 3>, keepdim = true, averages_integers = false,
          torch_dims = array<i64: 0, 2, 3, 1>,
          torch_strides = array<i64: 80, 40, 20, 1>}}
        : (tensor<1x2x2x20xf32>) -> tensor<1x2x2x1xf32> { ... }
    // becomes: per pixel, lanes of the two whole vectors of eight (each
    // lane's values added in order), then +0 + x16 + ... + x19 + lane 0 +
    // ... + lane 7, divided by 20.
    %l = linalg.generic ... arith.addf ...   // tensor<4x8xf32>
    %s = linalg.generic ... arith.addf ...   // tensor<4xf32>
    %m = linalg.generic ... arith.divf ...   // tensor<4xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def QFXLowerLayerNorm : Pass<"qfx-lower-layer-norm"> {
  let summary = "Computes each float layer norm composite as PyTorch's "
                "float kernel does, in linalg.generic ops";
  let description = [{
    PyTorch 1.13 on x86-64 (its AVX2 kernels) computes a float layer norm
    (left float by a dynamic or qnnpack mapping, or configured None) with
    `LayerNormKernelImplInternal`, per row of the N normalized values:
    `RowwiseMoments`' Welford mean and squared deviations in eight lanes
    (element `i` into lane `i mod 8`) over chunks of 16 vectors
    (`m1 += delta * (1 / (j + 1))`, `m2 += delta * (x - m1)`), the chunks
    merged by a binary cascade (`AddMomentsVec`: `m1 += c * delta`,
    `m2 += m2' + delta * delta * c * m0` with `c` the ratio of the counts;
    a row of more than 16 vectors is padded to whole chunks, the padding
    skipped),
    the last `N mod 8` values by a scalar Welford (`m1 += delta / count`),
    the eight lanes merged into it in order (`AddMoments`); the variance
    `m2 / N`, `rstd = 1 / sqrt(var + eps)`, `eps` rounded to float32; each
    output `fma(fma(x, rstd, -rstd * mean), gamma, beta)` (gamma 1 and beta
    0 without weights). Every other multiply and add rounds on its own. The
    composite's TOSA body (the mean, then the mean of the squared
    deviations, `rsqrt`) rounds otherwise, and after cancellation (a row of
    nearly equal values) by many ulps; a dynamic Linear or a quantize after
    it can then land a step apart.

    This pass replaces each `qfx.composite "torch.nn.LayerNorm"` on float32
    whose `composite_attributes` say `torch_order = true` (the exporter
    sets it where the normalized dimensions are the held operand's
    innermost, in PyTorch's order) with that arithmetic, bit for bit
    (`test_float_layer_norm_equals_pytorchs_bit_for_bit`). Leading
    dimensions may be dynamic, the normalized ones are static; `weight` and
    `bias` are read from the attributes. Others keep their bodies;
    `torch_order` with `axes` that are not the innermost dimensions in
    order, or a `weight` or `bias` of another length than a row, is an
    error. The native pipeline runs it before `qfx-inline-composites`.

    ```mlir
    %r = qfx.composite "torch.nn.LayerNorm" (%x) attributes {
          composite_attributes = {axes = array<i64: 1>, eps = 1.0e-05 : f64,
                                  torch_order = true}}
        : (tensor<4x20xf32>) -> tensor<4x20xf32> { ... }
    // becomes: the two whole vectors by Welford per lane, then the last
    // four values, the lanes merged in, rstd and -rstd * mean per row, and
    // the outputs.
    %s = tensor.extract_slice %x[0, 0] [4, 16] [1, 1]
    %c = tensor.expand_shape %s ... into tensor<4x1x2x8xf32>  // one chunk
    %m:2 = linalg.generic ... (Welford over the chunk's vectors)
    %l:2 = linalg.generic ... (the cascade)          // tensor<4x8xf32>
    %r:2 = linalg.generic ... (tail, lanes, rstd)    // tensor<4xf32>
    %y = linalg.generic ... math.fma ...             // tensor<4x20xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
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
      PyTorch 1.13's quantized dynamic Linear reduces the range to 7 bits on
      its x86, fbgemm and onednn engines and not on qnnpack (its reference
      model on the x86 and fbgemm engines only): `dynamic-reduce-range`
      says which; unset, the
      module's `qfx.backend` (the backend qfx-prepare used) decides, as
      PyTorch's engine for it does (off for qnnpack), and a module without
      one reduces.
    - A weight with float zero points (`per_channel_affine_float_qparams`,
      e.g. `float_qparams_weight_only_qconfig_4bit`), which `!quant.uniform`
      cannot express, is stored as integers of its dtype's width and
      dequantized by TOSA ops as aten does: `(float(q) - zero_point) *
      scale` in float, per channel.
    - Errors: an activation observer without statistics (the model was not
      calibrated), observers of one id whose statistics differ, and float
      zero points on anything but a constant.
  }];
  let options = [
    Option<"dynamicReduceRange", "dynamic-reduce-range", "std::string",
           /*default=*/"\"\"",
           "Halve the range of dynamically quantized activations, as "
           "PyTorch's x86, fbgemm and onednn engines do (qnnpack does not); "
           "true or false; unset: as the module's qfx.engine does (else "
           "the engine of its qfx.backend)">
  ];
  let dependentDialects = [
    "::mlir::quant::QuantDialect",
    "::mlir::tosa::TosaDialect",
    "::qfx::QFXDialect"
  ];
}

def QFXReferenceToTosa : Pass<"qfx-lower", "::mlir::func::FuncOp"> {
  let summary = "Lowers reference quantized patterns to int8 TOSA";
  let description = [{
    PyTorch's lowering of the reference model to quantized ops, as int8
    TOSA: each pattern `quant.dcast → op (or qfx.fused) →
    quant.qcast` whose op the backend table supports becomes integer TOSA
    that computes on the stored integers, and the qcast's result becomes a
    `quant.scast` of its output.

    - conv2d / depthwise_conv2d / matmul (a Linear's `qfx.fused "linear"`):
      int8 operands with their zero points, int32 accumulation, then the
      requantization of PyTorch's engine for the backend (option
      `requantization`), bit for bit:
      - `onednn` (default for x86, fbgemm, onednn): in float32, with
        ideep's reciprocal scales `si = 1/s_in`, `sw = 1/s_w`, `so = 1/s_out`:
        `round_half_even((float(acc) + bias * (si * sw)) * (so / (si * sw))
        + zp)`, `zp` the stored type's zero point;
      - `qnnpack` (default for qnnpack): the bias quantized to int32 with
        `s_in * s_w`, then `round_half_even(float(acc) * ((s_w * s_in) *
        (1 / s_out))) + zp` in float32;
      - `integer` (default for tosa and tables of other names): a
        `tosa.rescale` by `s_in * s_w / s_out` (32-bit multipliers,
        rounding half away from zero, one step off PyTorch near ties), the
        bias with up to 8 fractional bits; no float op, for TOSA's integer
        profile.
      `tosa.cast` rounds half to even and saturates; the scales are per
      channel when the weights are, and a fused ReLU / ReLU6 / Hardtanh
      narrows the clamp before the rounding (`integer`: an integer
      `tosa.clamp`). A matmul of two activations always
      takes `tosa.rescale`.
    - add / mul (with a fused ReLU): with `requantization=onednn`, PyTorch's
      x86 kernels in float32, bit for bit: add dequantizes each input as
      `fma(s, q, s * -z)` (computed exactly without a fused multiply-add),
      adds and quantizes with `1 / s_out`; mul requantizes the product of
      the centered integers with `s_a * s_b * (1 / s_out)`; the zero point
      is added after rounding half to even. With `requantization=qnnpack`,
      an add of two quint8 tensors of the output's shape is QNNPACK's
      kernel, bit for bit: multipliers `lrint(s_x / s_out * 2^(21 - e))`
      (`e` the larger ratio's exponent), `m_a * (a - z_a) + m_b * (b - z_b)`
      in int32 shifted right by `21 - e` rounding half away from zero, plus
      the zero point; other adds and every mul are the x86 kernels above
      (PyTorch's qnnpack engine runs them). With `integer`: inputs rescaled
      to int32 (add: onto a common scale with 20 fractional bits), the
      integer op, a rescale to the output.
    - max_pool2d / concat / reshape / transpose / slice: on the integers,
      with a rescale where input and output qparams differ (a concat's
      inputs); a data-movement op into other qparams is PyTorch's float op
      between a dequantize and a quantize, computed so in float32
      (`(q - z) * s`, times `1 / s_out`, rounded half to even, plus the zero
      point) unless `requantization=integer`.
    - An op whose PyTorch kernel keeps its input's qparams (pools, clamp,
      concat, data movement, sigmoid, tanh) that reads another float op of
      PyTorch's instead of a dequantize (two such ops configured None in a
      row): PyTorch computes it in float and quantizes the result, and so
      does qfx (as `float_kernel`), unless `requantization=integer`.
    - avg_pool2d: PyTorch's kernel for the layout its quantized model holds
      the operand in: window sums of `q - zp` times float32 `1 / count`,
      rounded half to even, plus the zero point (channels-last), or, with
      `qfx.torch_kernel` (a contiguous operand), its float32 `avg_pool2d` /
      `adaptive_avg_pool2d` arithmetic; on the qnnpack engine, a quint8
      pool with `qfx.qnnpack_pool` as qnnpack's kernel (window sums of
      `q - zp`, padding counted, times float32 `scale / (scale * kh * kw)`,
      rounded half to even, plus the zero point).
    - sigmoid / tanh / clamp, and a `qfx.composite` with an elementwise
      body: a 256-entry `tosa.table` evaluated from the input and output
      qparams; with per-channel constants in the body (PReLU), one table per
      channel looked up with `tosa.gather`.
    - batch norm on its own (a `torch.nn.BatchNorm2d` / `3d` composite, with
      a fused ReLU): per channel, 256 outputs computed as PyTorch's
      `quantized::batch_norm` (`rint(fma(alpha, q - zp_in, beta)) + zp_out`),
      looked up with `tosa.gather`.
    - A dynamically quantized matmul (its input a `qfx.dequantize` of a
      `qfx.quantize` with run-time qparams): an int8 `tosa.matmul`, the
      input zero point's term subtracted with the weight's column sums, and
      PyTorch's float epilogue `float(acc) * (scale * weight_scale) + bias`;
      the output stays float.

    TOSA's integer ops take signed int8: a `u8` value is carried as int8
    shifted by -128 (`tosa.rescale` with `input_unsigned` where it enters,
    `output_unsigned` where a `u8` result leaves), which changes no value.
    Shape ops between a dequantize and a pattern (the reshapes around a
    Linear) are replayed on the integers.

    ```mlir
    %x = quant.dcast %q : tensor<1x2x16x!quant.uniform<u8:f32, 0.04:63>> to tensor<1x2x16xf32>
    %y = qfx.fused "linear"(%x, %w, %b) ...
    %r = quant.qcast %y : tensor<1x2x8xf32> to tensor<1x2x8x!quant.uniform<u8:f32, 0.01:59>>
    // becomes
    %xi = tosa.rescale %qi ... {input_unsigned = true}     // u8 → int8 domain
    %acc = tosa.matmul %xi, %wi, %xzp, %wzp : ... -> tensor<1x2x8xi32>
    %f = tosa.cast %acc : ... -> tensor<1x2x8xf32>         // requantization=onednn
    %b = tosa.add %f, %bias_f32 : ...                      // bias * si * sw
    %m = tosa.mul %b, %multiplier_f32, %shift : ...        // so / (si * sw)
    %z = tosa.add %m, %zp_f32 : ...                        // u8 zero point
    %i = tosa.cast %z : ... -> tensor<1x2x8xi32>           // round half to even
    %d = tosa.add %i, %minus_128 : ...                     // int8 domain
    %c = tosa.clamp %d {max_val = 127 : i32, min_val = -128 : i32} : ...
    %o = tosa.cast %c : ... -> tensor<1x2x8xi8>
    %u = tosa.rescale %o ... {output_unsigned = true}      // -> u8
    %r = quant.scast %u : tensor<1x2x8xi8> to tensor<1x2x8x!quant.uniform<u8:f32, 0.01:59>>
    ```

    Other requantizations (pooling, concat) round as `tosa.rescale` does
    (single rounding, half away from zero after the 32-bit multiply), where
    PyTorch rounds a float product half to even: results can differ by one
    step on ties.

    A pattern that cannot be lowered stays in reference form, and a remark
    on its op says why ("runs in float: ..."): no pattern in the backend
    table, an operand that is not a dequantized value or a constant weight,
    per-channel weight zero points, a requantization scale outside
    `tosa.rescale`'s range, an output that is not quantized to 8 bits.

    The pass applies qfx's rewrite patterns in one walk over every block of
    the function (outside `qfx.fused` and `qfx.composite` bodies): one per
    lowering kind, which another compiler adds to its own rewrite with
    `qfx::populateQFXLowerPatterns`
    (`qfx/Conversion/ReferenceToTosa/ReferenceToTosa.h`); each reason
    above is a pattern's `notifyMatchFailure`.
  }];
  let options = [
    Option<"backend", "backend", "std::string", /*default=*/"\"x86\"",
           "A BackendConfig JSON file or a built-in table (x86, fbgemm, "
           "qnnpack, onednn, tosa): only its patterns are lowered">,
    Option<"emitTosa", "emit-tosa", "bool", /*default=*/"false",
           "Expand each qfx.contract into plain TOSA (qfx-contract-to-tosa), "
           "for consumers that take only TOSA">,
    Option<"requantizationOption", "requantization", "std::string",
           /*default=*/"\"\"",
           "How convolutions, Linears, adds and muls requantize: onednn, "
           "qnnpack (PyTorch's engines, in float32) or integer (tosa.rescale); "
           "default: the module's qfx.engine's (onednn for x86, fbgemm, "
           "onednn; qnnpack for qnnpack), else the backend's (the same; "
           "integer for other tables)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::quant::QuantDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::tosa::TosaDialect",
    "::qfx::QFXDialect"
  ];
}

#endif // QFX_CONVERSION_PASSES_TD
