//===- QFXOps.td - qfx operations --------------------------*- tablegen -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_DIALECT_QFX_IR_QFXOPS_TD
#define QFX_DIALECT_QFX_IR_QFXOPS_TD

include "qfx/Dialect/QFX/IR/QFXBase.td"
include "qfx/Dialect/QFX/IR/QFXAttrs.td"
include "qfx/Dialect/QFX/IR/QuantizableOpInterface.td"
include "mlir/Dialect/Quant/IR/QuantBase.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/OpBase.td"

def QFX_FloatTensor : TensorOf<[AnyFloat]>;
def QFX_ScaleTensor : 0DTensorOf<[F32, F64]>;
def QFX_ZeroPointTensor : 0DTensorOf<[I32]>;
def QFX_IntTensor : TensorOf<[I8, UI8, I32]>;

//===----------------------------------------------------------------------===//
// ObserveOp
//===----------------------------------------------------------------------===//

def QFX_ObserveOp : QFX_Op<"observe", [SameOperandsAndResultType]> {
  let summary = "Identity that records statistics for quantization";
  let description = [{
    Returns its input unchanged. During calibration the observer described by
    `spec` sees every value that flows through and accumulates statistics;
    once calibrated, `stats` holds them. Observers whose quantization
    parameters must be identical (an op that shares its input's observer)
    carry the same `id`.

    ```mlir
    %0 = qfx.observe %x id 0 spec(#qfx.observer<minmax>) : tensor<1x8xf32>
    %1 = qfx.observe %w id 1
        spec(#qfx.observer<per_channel_minmax, dtype = qint8,
                           qscheme = per_channel_symmetric>)
        stats(#qfx.per_channel_minmax<min = [-1.0, -2.0], max = [1.0, 0.5]>)
        : tensor<2x3x3x4xf32>
    ```

    The statistics must be of the observer's kind: `#qfx.minmax` for
    (moving-average) min/max observers, `#qfx.per_channel_minmax` with one
    entry per channel along `ch_axis` for per-channel observers,
    `#qfx.histogram` with `bins` counts for histogram observers; other
    observers collect none. `ch_axis` must index a dimension of the input.

    The op is not `Pure`: an observer is state that calibration updates, so
    it must not be folded away or merged with another.
  }];
  let arguments = (ins QFX_FloatTensor:$input,
      ConfinedAttr<I64Attr, [IntNonNegative]>:$id, QFX_ObserverSpecAttr:$spec,
      OptionalAttr<QFX_ObserverStatsAttr>:$stats);
  let results = (outs QFX_FloatTensor:$output);
  let assemblyFormat = [{
    $input `id` $id `spec` `(` qualified($spec) `)`
    (`stats` `(` $stats^ `)`)? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// FakeQuantOp
//===----------------------------------------------------------------------===//

def QFX_FakeQuantOp : QFX_Op<"fake_quant", [Pure, SameOperandsAndResultType]> {
  let summary = "Quantize then dequantize, staying in float";
  let description = [{
    Simulates quantization: each element is quantized with the scale, zero
    point and storage range of `qtype` (per tensor, or per channel along its
    quantized dimension) and dequantized back to float, as PyTorch's
    `fake_quantize_per_tensor_affine` / `fake_quantize_per_channel_affine`.
    Models exported from quantization-aware training carry these.

    ```mlir
    %0 = qfx.fake_quant %x as !quant.uniform<u8:f32, 0.05:128> : tensor<1x8xf32>
    %1 = qfx.fake_quant %w as !quant.uniform<i8:f32:0, {0.1, 0.2}>
        : tensor<2x4xf32>
    ```

    `qtype`'s expressed type must be the tensor's element type; a per-channel
    `qtype` must name a dimension of the tensor and have one scale per
    channel.
  }];
  let arguments = (ins QFX_FloatTensor:$input,
      TypeAttrOf<quant_QuantizedType>:$qtype);
  let results = (outs QFX_FloatTensor:$output);
  let assemblyFormat = "$input `as` $qtype attr-dict `:` type($input)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// FusedOp
//===----------------------------------------------------------------------===//

def QFX_FusedOp : QFX_Op<"fused", [IsolatedFromAbove, SingleBlock,
                                   RecursiveMemoryEffects]> {
  let summary = "A matched pattern, quantized as one unit";
  let description = [{
    Holds the ops of a fused pattern of the backend configuration (for
    example conv2d followed by a clamp), under the pattern's fused name. Its
    operands become the body's block arguments; its body ends in `qfx.yield`
    with the results. Quantization treats the region as one op: its inputs
    and outputs are observed, its interior stays float.

    ```mlir
    %0 = qfx.fused "conv2d_relu" (%x, %w, %b)
        : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>)
        -> tensor<1x6x6x4xf32> {
    ^bb0(%a: tensor<1x8x8x3xf32>, %k: tensor<4x3x3x3xf32>, %c: tensor<4xf32>):
      ...
      qfx.yield %r : tensor<1x6x6x4xf32>
    }
    ```

    The region is isolated from above, so everything it uses is an operand
    (weights included) and can be observed. The block arguments must match
    the operands and the yielded values the results, in number and type.
  }];
  let arguments = (ins StrAttr:$name, Variadic<AnyType>:$inputs);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $name `(` $inputs `)` attr-dict-with-keyword `:`
    functional-type($inputs, $results) $body
  }];
  let hasRegionVerifier = 1;
}

//===----------------------------------------------------------------------===//
// CompositeOp
//===----------------------------------------------------------------------===//

def QFX_CompositeOp
    : QFX_Op<"composite", [IsolatedFromAbove, SingleBlock,
                           RecursiveMemoryEffects,
                           DeclareOpInterfaceMethods<
                               QFX_QuantizableOpInterface,
                               ["getWeightOperandIndex", "getBiasOperandIndex",
                                "getWeightChannelAxes", "getTorchWeightAxes",
                                "getInt8Lowering", "takesOutputQParams",
                                "foldsBatchNormBeforeReLU"]>]> {
  let summary =
      "A PyTorch op that has no single TOSA op, with its decomposition";
  let description = [{
    One PyTorch module or function (`torch.nn.Hardswish`, LayerNorm, GELU,
    ...) that TOSA spells with several ops, kept as one unit under the
    PyTorch name, as StableHLO's `stablehlo.composite`. The body holds the
    TOSA decomposition; `composite_attributes` holds the op's arguments (a
    LeakyReLU's `negative_slope`, for example).

    ```mlir
    %0 = qfx.composite "torch.nn.Hardswish" (%x) {qfx.origin = "torch.nn.Hardswish"}
        : (tensor<1x8xf32>) -> tensor<1x8xf32> {
    ^bb0(%a: tensor<1x8xf32>):
      ...
      qfx.yield %r : tensor<1x8xf32>
    }
    ```

    Backend patterns, QConfigMapping object types and remarks see the
    PyTorch name: a pattern `["torch.nn.Hardswish"]` matches this op, and
    its int8 lowering comes from the body (an elementwise body with one
    input lowers to a 256-entry `tosa.table`). The ops of the body are not
    quantized on their own. `qfx-inline-composites` replaces composites by
    their bodies, for consumers that want plain TOSA.

    What qfx knows of each name (its operand roles and weight axes, the
    attributes it needs, its int8 lowering and its backend table row) is
    one entry of the composite registry (`qfx/Config/Composites.h`); the
    verifier checks a registered composite's operand ranks and the kinds of
    its `composite_attributes`. A name the registry lacks is allowed: its
    body alone says what it computes (an elementwise body lowers to a
    table).

    The region is isolated from above; its block arguments must match the
    operands and the yielded values the results, in number and type.
  }];
  let arguments = (ins StrAttr:$name, Variadic<AnyType>:$inputs,
      OptionalAttr<DictionaryAttr>:$composite_attributes);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $name `(` $inputs `)` attr-dict-with-keyword `:`
    functional-type($inputs, $results) $body
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The registry's entry of this composite's name (qfx/Config/
    /// Composites.h), or null for a name qfx does not know (then only its
    /// body says what it computes).
    const ::qfx::CompositeInfo *getInfo() {
      return ::qfx::lookupComposite(getName());
    }
    /// Whether the registry puts this composite in `family`.
    bool isFamily(::qfx::CompositeFamily family) {
      const ::qfx::CompositeInfo *info = getInfo();
      return info && info->family == family;
    }
    /// An eval-mode batch norm: a body that scales and shifts each channel,
    /// and attributes `axis`, `eps`, `running_mean`, `running_var`, optional
    /// `weight` and `bias`.
    bool isBatchNorm() { return isFamily(::qfx::CompositeFamily::BatchNorm); }
    /// torch.mean / Tensor.mean: attributes `axes` (of the operand as held)
    /// and `keepdim`.
    bool isMean() { return isFamily(::qfx::CompositeFamily::Mean); }
    /// torch.nn.Embedding and torch.nn.EmbeddingBag: operands (indices,
    /// weight [V, D]); the weight is quantized per row.
    bool isEmbedding() {
      return isFamily(::qfx::CompositeFamily::Embedding) || isEmbeddingBag();
    }
    /// torch.nn.EmbeddingBag: indices [bags, bag size], attribute `mode`
    /// ("sum", "mean" or "max").
    bool isEmbeddingBag() {
      return isFamily(::qfx::CompositeFamily::EmbeddingBag);
    }
    /// torch.nn.LayerNorm: attributes `axes` (of the operand as held), `eps`
    /// and, if the module has them, `weight` and `bias` (the operand's shape
    /// with 1 off the axes).
    bool isLayerNorm() { return isFamily(::qfx::CompositeFamily::LayerNorm); }
    /// Layer, group and instance norm (PyTorch's quantized_normalize_kernel
    /// computes the quantized layer and instance norm): group and instance
    /// norm have attributes `axis` (the channels, as held), `groups`, `eps`
    /// and, if the module has them, `weight` and `bias` (one value per
    /// channel).
    bool isNormalization() {
      return isLayerNorm() || isFamily(::qfx::CompositeFamily::GroupNorm) ||
             isFamily(::qfx::CompositeFamily::InstanceNorm);
    }
    /// A recurrent module (torch.nn.LSTM, GRU, LSTMCell, GRUCell, RNNCell):
    /// its body's matmuls with constant weights are what a dynamic qconfig
    /// quantizes, as PyTorch's quantized recurrent modules quantize each
    /// projection.
    bool isRecurrent() { return isFamily(::qfx::CompositeFamily::Recurrent); }
  }];
}

def QFX_YieldOp : QFX_Op<"yield", [Pure, ReturnLike, Terminator,
                                   ParentOneOf<["FusedOp", "CompositeOp"]>]> {
  let summary = "Returns the results of a fused pattern or a composite";
  let description = [{
    Terminates the body of `qfx.fused` or `qfx.composite`; its operands are
    the enclosing op's results.

    ```mlir
    qfx.yield %r : tensor<1x6x6x4xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

//===----------------------------------------------------------------------===//
// Dynamic quantization
//===----------------------------------------------------------------------===//

def QFX_ChooseQParamsOp : QFX_Op<"choose_qparams", [Pure]> {
  let summary = "Computes a scale and zero point from a tensor at run time";
  let description = [{
    Dynamic quantization: derives per-tensor quantization parameters for the
    integer range `[quant_min, quant_max]` from the minimum and maximum of
    `input` (extended to include zero), as PyTorch's
    `quantize_per_tensor_dynamic` does for activations.

    ```mlir
    %scale, %zp = qfx.choose_qparams %x range [0, 127]
        : tensor<4x16xf32> -> tensor<f32>, tensor<i32>
    ```

    The range must include zero and `quant_min < quant_max`. PyTorch
    computes the scale in double; an `f64` scale is that double (what
    oneDNN's dynamic kernels take, as the reciprocal `float(1 / scale)`),
    an `f32` scale that double rounded to float (what qnnpack's take).
  }];
  let arguments = (ins QFX_FloatTensor:$input, I64Attr:$quant_min,
      I64Attr:$quant_max);
  let results = (outs QFX_ScaleTensor:$scale, QFX_ZeroPointTensor:$zero_point);
  let assemblyFormat = [{
    $input `range` ` ` `[` $quant_min `,` $quant_max `]` attr-dict
    `:` type($input) `->` type($scale) `,` type($zero_point)
  }];
  let hasVerifier = 1;
}

def QFX_QuantizeOp : QFX_Op<"quantize", [Pure]> {
  let summary = "Quantizes with a run-time scale and zero point";
  let description = [{
    `clamp(round_half_even(x * (1 / scale)) + zero_point, qmin, qmax)` per
    element, the reciprocal rounded once to float (with an `f64` scale, as
    oneDNN's reorder: `clamp(round_half_even(fma(x, float(1 / scale),
    zero_point)), qmin, qmax)`, the reciprocal computed in double), where
    `[qmin, qmax]` is the full range of the result's element type:
    `ui8` (quint8), `i8` (qint8, signless integers are signed as in TOSA) or
    `i32` (qint32). Scale and zero point are 0-d tensors, typically produced
    by `qfx.choose_qparams`.

    ```mlir
    %q = qfx.quantize %x, %scale, %zp
        : (tensor<4x16xf32>, tensor<f32>, tensor<i32>) -> tensor<4x16xui8>
    ```

    The result has the input's shape.
  }];
  let arguments = (ins QFX_FloatTensor:$input, QFX_ScaleTensor:$scale,
      QFX_ZeroPointTensor:$zero_point);
  let results = (outs QFX_IntTensor:$output);
  let assemblyFormat = [{
    $input `,` $scale `,` $zero_point attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def QFX_DequantizeOp : QFX_Op<"dequantize", [Pure]> {
  let summary = "Dequantizes with a run-time scale and zero point";
  let description = [{
    `(q - zero_point) * scale` per element (an `f64` scale rounded to float
    first), the inverse of `qfx.quantize`.

    ```mlir
    %y = qfx.dequantize %q, %scale, %zp
        : (tensor<4x16xui8>, tensor<f32>, tensor<i32>) -> tensor<4x16xf32>
    ```

    The result has the input's shape.
  }];
  let arguments = (ins QFX_IntTensor:$input, QFX_ScaleTensor:$scale,
      QFX_ZeroPointTensor:$zero_point);
  let results = (outs QFX_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $scale `,` $zero_point attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// ContractOp
//===----------------------------------------------------------------------===//

def QFX_ContractOp : QFX_Op<"contract", [Pure, AttrSizedOperandSegments]> {
  let summary = "A quantized contraction with its requantization epilogue";
  let description = [{
    The one op between `qfx-lower` and `qfx-codegen`: a matmul or convolution
    on int8 operands (with their zero points) accumulated in int32, and what
    becomes of the sums, as one typed op. `qfx-lower` writes every quantized
    contraction as one; `qfx-codegen` turns it into its target's kernels;
    `qfx-contract-to-tosa` expands it into plain int8 TOSA (the ops
    `tosa.matmul` / `tosa.conv2d` / ... and the epilogue's arithmetic) for
    any other consumer. The same op with float32 operands and result (no
    zero points, no epilogue) is a float contraction.

    `kind` says what is contracted, with TOSA's layouts:
    - `matmul`: input `[B, M, K]`, weight `[B, K, N]`, result `[B, M, N]`
      (a Linear's weight has B = 1);
    - `conv2d`: input NHWC, weight `[O, KH, KW, C]`, result NHWC, with
      `pad` (top, bottom, left, right), `stride` and `dilation`;
    - `depthwise_conv2d`: weight `[KH, KW, C, M]`, output channel `c * M +
      m`, the same attributes;
    - `transpose_conv2d`: weight `[O, KH, KW, C]`, `pad` the output padding
      (TOSA's `out_pad`) and `stride`.

    Per output channel `n`, `acc = sum (input - input_zp) * (weight -
    weight_zp) + bias[n]` in int32 (wrapping), `bias` an optional `[N]`
    int32 operand (float32 for a float contraction). Without `epilogue` the
    result is `acc` (i32). With one, it is int8:
    - `#qfx.rescale<...>`: TOSA's integer requantization (`tosa.rescale`);
    - `#qfx.requantize<...>`: PyTorch's float32 requantization (its onednn
      and qnnpack engines).

    ```mlir
    %y = qfx.contract conv2d %x, %w bias(%b) {
           input_zp = -3 : i64, pad = array<i64: 1, 1, 1, 1>,
           stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>,
           epilogue = #qfx.requantize<bias = [], multipliers = [0.0123],
                                      zero_point = 128.0, min = 0.0,
                                      max = 255.0, output_zp = -128>}
         : (tensor<1x8x8x3xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>)
        -> tensor<1x8x8x4xi8>
    ```

    A `matmul` of one batch or a `conv2d` may also carry its weights packed
    for a GEMM microkernel (qfx-pack-weights): the `packed` operand, laid out
    as `weight_packing` says (`#qfx.weight_packing`; i8, or i16 for a target
    that multiplies int16; f32 for a float contraction). qfx-codegen's kernels read the
    packed operand; everything else reads `weight`, which stays.

    ```mlir
    %y = qfx.contract matmul %a, %w packed(%p) {
           weight_packing = #qfx.weight_packing<lanes = 16, group = 4,
                                                taps = 1, tap_groups = 5>}
         : (tensor<1x8x20xi8>, tensor<1x20x32xi8>, tensor<2x5x64xi8>)
        -> tensor<1x8x32xi32>
    ```

    The verifier checks the ranks and sizes `kind` implies, the attributes
    it needs, the element types (i8 operands and an i32 bias, an i8 result
    with an epilogue and i32 without; or f32 throughout with zero points 0
    and no epilogue), zero points in int8, that each per-channel array
    of the epilogue has one value or one per output channel, and that a
    packed operand has the shape its `weight_packing` gives the weight
    (`[ceil(N / lanes), taps * tap_groups, lanes * group]`, runs of `K / taps`
    values that fit `tap_groups` groups, `taps` 1 for a matmul and 1, `KH`
    or `KH * KW` for a convolution).
  }];
  let arguments = (ins QFX_ContractionKind:$kind,
      AnyRankedTensor:$input, AnyRankedTensor:$weight,
      Optional<AnyRankedTensor>:$bias,
      Optional<AnyRankedTensor>:$packed_weight,
      DefaultValuedAttr<I64Attr, "0">:$input_zp,
      DefaultValuedAttr<I64Attr, "0">:$weight_zp,
      OptionalAttr<DenseI64ArrayAttr>:$pad,
      OptionalAttr<DenseI64ArrayAttr>:$stride,
      OptionalAttr<DenseI64ArrayAttr>:$dilation,
      OptionalAttr<QFX_EpilogueAttr>:$epilogue,
      OptionalAttr<QFX_WeightPackingAttr>:$weight_packing);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = [{
    $kind $input `,` $weight (`bias` `(` $bias^ `)`)?
    (`packed` `(` $packed_weight^ `)`)? attr-dict `:`
    functional-type(operands, results)
  }];
  let builders = [
    // A contraction without packed weights.
    OpBuilder<(ins "Type":$output, "ContractionKind":$kind, "Value":$input,
                   "Value":$weight, "Value":$bias, "int64_t":$input_zp,
                   "int64_t":$weight_zp, "::mlir::DenseI64ArrayAttr":$pad,
                   "::mlir::DenseI64ArrayAttr":$stride,
                   "::mlir::DenseI64ArrayAttr":$dilation,
                   "::mlir::Attribute":$epilogue), [{
      build($_builder, $_state, output, kind, input, weight, bias,
            /*packed_weight=*/nullptr, input_zp, weight_zp, pad, stride,
            dilation, epilogue, /*weight_packing=*/nullptr);
    }]>
  ];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// Whether the operands and result are float32.
    bool isFloat() {
      return getInput().getType().getElementType().isF32();
    }
    /// The number of output channels (the result's last dimension).
    int64_t getNumChannels() {
      return getOutput().getType().getShape().back();
    }
  }];
}

//===----------------------------------------------------------------------===//
// HostCallOp
//===----------------------------------------------------------------------===//

def QFX_HostCallOp : QFX_Op<"host_call", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Computes its results in the program's host (a graph break)";
  let description = [{
    An op the compiler does not express: the program hands its inputs to the
    host that runs it, which computes the results (the Python front end runs
    a PyTorch node there: a graph break). `callee` names what runs, for
    diagnostics and remarks (`"torch.topk"`); `id` is the host's number for
    it. The op is a float op to every quantization pass: PyTorch's reference
    model runs such a node on dequantized inputs, and a quantized consumer
    observes its results.

    With tensors, the results are new tensors; the host is assumed to
    compute them from the inputs alone (it may be folded or erased as any
    pure op):

    ```mlir
    %v, %i = qfx.host_call "torch.topk" id 0 (%x)
        : (tensor<1x10xf32>) -> (tensor<1x3xf32>, tensor<1x3xi64>)
    ```

    One-shot bufferization turns it into its buffer form, which reads the
    inputs and writes each result into an `outs` buffer (fresh, C-order):

    ```mlir
    qfx.host_call "torch.topk" id 0 (%x) outs(%v, %i)
        : (memref<1x10xf32>, memref<1x3xf32>, memref<1x3xi64>) -> ()
    ```

    `qfx-lower-host-calls` turns the buffer form into a call of the runtime
    (`@qfxHostCall`). The verifier checks that a call has tensors in and out
    and no `outs`, or buffers in, `outs` and no results; ranked, statically
    shaped, of f32, i64, i32 or i1.
  }];
  let arguments = (ins StrAttr:$callee,
      ConfinedAttr<I64Attr, [IntNonNegative]>:$id,
      Variadic<AnyShaped>:$inputs, Variadic<AnyMemRef>:$outputs);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $callee `id` $id `(` $inputs `)` (`outs` `(` $outputs^ `)`)? attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether this is the buffer form (memrefs in, `outs`, no results).
    bool hasBufferSemantics() { return getResults().empty(); }
  }];
}

#endif // QFX_DIALECT_QFX_IR_QFXOPS_TD
