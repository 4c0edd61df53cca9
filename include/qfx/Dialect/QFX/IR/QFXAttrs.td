//===- QFXAttrs.td - qfx attributes ------------------------*- tablegen -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_DIALECT_QFX_IR_QFXATTRS_TD
#define QFX_DIALECT_QFX_IR_QFXATTRS_TD

include "qfx/Dialect/QFX/IR/QFXBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

class QFX_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<QFX_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// Configuration
//===----------------------------------------------------------------------===//

def QFX_DTypeWithConstraintsAttr : QFX_Attr<"DTypeWithConstraints", "dtype"> {
  let summary = "A dtype, with the bounds a QConfig must meet to use it";
  let description = [{
    PyTorch's `DTypeWithConstraints`: one of `quint8`, `qint8`, `qint32`,
    `quint4x2`, `float16`, `float32`, optionally with bounds that an
    observer's quantization range and scale must respect for a backend
    pattern to accept it. Without bounds it is a plain dtype.

    ```mlir
    #qfx.dtype<qint8>
    #qfx.dtype<quint8, quant_min_lower_bound = 0, quant_max_upper_bound = 127>
    #qfx.dtype<qint8, scale_min_lower_bound = 1.52587890625e-05>
    ```

    Range bounds must lie inside the dtype and be ordered; scale bounds must
    be positive and ordered; float dtypes take no bounds.
  }];
  let parameters = (ins
    AttrParameter<"::qfx::DTypeWithConstraints", "the dtype and its bounds">
      :$value
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def QFX_ObserverSpecAttr : QFX_Attr<"ObserverSpec", "observer"> {
  let summary = "An observer and its constructor arguments";
  let description = [{
    PyTorch's `SomeObserver.with_args(...)`. The first field is the observer
    kind: `minmax`, `moving_average_minmax`, `per_channel_minmax`,
    `moving_average_per_channel_minmax`, `histogram`, `placeholder`, `noop`,
    `fixed_qparams` or `reuse_input`. Then the arguments given, by PyTorch's
    names: `dtype`, `qscheme`, `reduce_range`, `quant_min`, `quant_max`,
    `eps`, `ch_axis`, `averaging_constant`, `bins`, `upsample_rate`, `scale`,
    `zero_point`, `compute_dtype`. Arguments left out take PyTorch 1.13's
    defaults for that observer.

    ```mlir
    #qfx.observer<histogram, reduce_range = true>
    #qfx.observer<per_channel_minmax, dtype = qint8, qscheme = per_channel_symmetric>
    #qfx.observer<fixed_qparams, scale = 0.00390625, zero_point = 0>
    ```

    The verifier rejects what PyTorch's constructors reject (a qscheme the
    observer does not support, `reduce_range` with symmetric quint8, a custom
    range that does not include 0) and what makes no sense (an argument the
    observer does not take, `quant_min >= quant_max`, a range outside the
    dtype, a non-positive `eps`).
  }];
  let parameters = (ins
    AttrParameter<"::qfx::ObserverSpec", "the observer and its arguments">
      :$spec
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def QFX_QConfigAttr : QFX_Attr<"QConfig", "qconfig"> {
  let summary = "How to observe activations and weights";
  let description = [{
    PyTorch's `QConfig(activation=..., weight=...)`: the observer for
    activations and the observer for weights.

    ```mlir
    #qfx.qconfig<activation = #qfx.observer<histogram, reduce_range = true>,
                 weight = #qfx.observer<per_channel_minmax, dtype = qint8,
                                        qscheme = per_channel_symmetric>>
    ```
  }];
  let parameters = (ins
    QFX_ObserverSpecAttr:$activation,
    QFX_ObserverSpecAttr:$weight
  );
  let assemblyFormat = [{
    `<` `activation` `=` qualified($activation) `,`
        `weight` `=` qualified($weight) `>`
  }];
}

//===----------------------------------------------------------------------===//
// Observer statistics
//===----------------------------------------------------------------------===//

def QFX_MinMaxAttr : QFX_Attr<"MinMax", "minmax"> {
  let summary = "Per-tensor minimum and maximum seen by an observer";
  let description = [{
    The running `min_val` / `max_val` (float32) of a min/max or moving-average
    observer after calibration.

    ```mlir
    #qfx.minmax<min = -1.5, max = 2.25>
    ```

    Both are finite and `min <= max`.
  }];
  let parameters = (ins APFloatParameter<"minimum">:$min,
                        APFloatParameter<"maximum">:$max);
  let assemblyFormat = [{
    `<` `min` `=` custom<F32>($min) `,` `max` `=` custom<F32>($max) `>`
  }];
  let genVerifyDecl = 1;
}

def QFX_PerChannelMinMaxAttr
    : QFX_Attr<"PerChannelMinMax", "per_channel_minmax"> {
  let summary = "Per-channel minimum and maximum seen by an observer";
  let description = [{
    The running `min_val` / `max_val` (float32, one per channel along the
    observer's `ch_axis`) of a per-channel observer after calibration.

    ```mlir
    #qfx.per_channel_minmax<min = [-1.0, -0.5], max = [1.0, 0.75]>
    ```

    Both lists have the same non-zero length, the observed tensor's size
    along `ch_axis`; every entry is finite with `min <= max`.
  }];
  let parameters = (ins
    "::mlir::DenseF32ArrayAttr":$min,
    "::mlir::DenseF32ArrayAttr":$max
  );
  let assemblyFormat = [{
    `<` `min` `=` custom<F32List>($min) `,` `max` `=` custom<F32List>($max) `>`
  }];
  let genVerifyDecl = 1;
}

def QFX_HistogramAttr : QFX_Attr<"Histogram", "histogram"> {
  let summary = "The histogram a histogram observer collected";
  let description = [{
    HistogramObserver's state after calibration: the range `[min, max]` of
    the histogram and its bin counts (float32, as PyTorch keeps them; they can
    be fractional after the histogram is re-binned to a wider range).

    ```mlir
    #qfx.histogram<min = -1.0, max = 3.0, counts = [1.0, 0.0, 4.0, 2.0]>
    ```

    There is at least one bin; counts are finite (not necessarily
    non-negative: PyTorch's re-binning leaves float error such as -2.9e-06 in
    a bin, and the statistics stay exactly PyTorch's); the range is finite
    with `min <= max`. The number of bins must equal the observer's `bins`.
  }];
  let parameters = (ins
    APFloatParameter<"histogram minimum">:$min,
    APFloatParameter<"histogram maximum">:$max,
    "::mlir::DenseF32ArrayAttr":$counts
  );
  let assemblyFormat = [{
    `<` `min` `=` custom<F32>($min) `,` `max` `=` custom<F32>($max) `,`
        `counts` `=` custom<F32List>($counts) `>`
  }];
  let genVerifyDecl = 1;
}

def QFX_ObserverStatsAttr : AnyAttrOf<[QFX_MinMaxAttr, QFX_PerChannelMinMaxAttr,
                                       QFX_HistogramAttr]>;

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

def QFX_ContractionKind : I32EnumAttr<"ContractionKind",
    "what a qfx.contract contracts", [
  I32EnumAttrCase<"Matmul", 0, "matmul">,
  I32EnumAttrCase<"Conv2d", 1, "conv2d">,
  I32EnumAttrCase<"DepthwiseConv2d", 2, "depthwise_conv2d">,
  I32EnumAttrCase<"TransposeConv2d", 3, "transpose_conv2d">]> {
  let cppNamespace = "::qfx";
}

def QFX_RescaleAttr : QFX_Attr<"Rescale", "rescale"> {
  let summary = "TOSA's integer requantization of a contraction's sums";
  let description = [{
    The epilogue of a `qfx.contract` with TOSA's integer arithmetic (qfx-lower's
    `requantization=integer`, the `tosa` table): per output channel `n`,
    `v = (acc << fraction_bits) + bias[n]` in int32 (wrapping as TOSA's int32
    arithmetic does), then `tosa.rescale`'s single rounding with a 32-bit
    `multipliers[n]` and `shifts[n]`, plus `output_zp`, clamped to
    `[min, max]`. `bias`, `multipliers` and `shifts` hold one value per
    channel or one for all (`bias` may be empty: none).

    ```mlir
    #qfx.rescale<fraction_bits = 2, bias = [12, -7], multipliers = [1518500250],
                 shifts = [38], output_zp = -3, min = -128, max = 127>
    ```

    `fraction_bits` is in [0, 16], shifts are in [2, 62], and `min <= max`
    lie in int8.
  }];
  let parameters = (ins
    "int64_t":$fraction_bits,
    "::mlir::DenseI32ArrayAttr":$bias,
    "::mlir::DenseI32ArrayAttr":$multipliers,
    "::mlir::DenseI32ArrayAttr":$shifts,
    "int64_t":$output_zp,
    "int64_t":$min,
    "int64_t":$max
  );
  let assemblyFormat = [{
    `<` `fraction_bits` `=` $fraction_bits `,`
        `bias` `=` custom<I32List>($bias) `,`
        `multipliers` `=` custom<I32List>($multipliers) `,`
        `shifts` `=` custom<I32List>($shifts) `,`
        `output_zp` `=` $output_zp `,` `min` `=` $min `,` `max` `=` $max `>`
  }];
  let genVerifyDecl = 1;
}

def QFX_RequantizeAttr : QFX_Attr<"Requantize", "requantize"> {
  let summary = "PyTorch's float32 requantization of a contraction's sums";
  let description = [{
    The epilogue of a `qfx.contract` as PyTorch's onednn and qnnpack engines
    requantize, in float32 with each operation rounded on its own (no fused
    multiply-add): per output channel `n`, `x = float(acc) + bias[n]`, times
    `multipliers[n]`, plus `zero_point`, clamped to `[min, max]`, rounded
    half to even, plus the integer `output_zp`, as int8. `bias` and
    `multipliers` hold one value per channel or one for all (`bias` may be
    empty: none).

    ```mlir
    #qfx.requantize<bias = [0.5, -1.25], multipliers = [0.0123], zero_point = 128.0,
                    min = -128.0, max = 127.0, output_zp = -128>
    ```

    The bounds keep the result in int8: `-128 - output_zp <= min <= max <=
    127 - output_zp`, whole numbers.
  }];
  let parameters = (ins
    "::mlir::DenseF32ArrayAttr":$bias,
    "::mlir::DenseF32ArrayAttr":$multipliers,
    APFloatParameter<"the float zero point">:$zero_point,
    APFloatParameter<"the lower bound">:$min,
    APFloatParameter<"the upper bound">:$max,
    "int64_t":$output_zp
  );
  let assemblyFormat = [{
    `<` `bias` `=` custom<F32List>($bias) `,`
        `multipliers` `=` custom<F32List>($multipliers) `,`
        `zero_point` `=` custom<F32>($zero_point) `,`
        `min` `=` custom<F32>($min) `,` `max` `=` custom<F32>($max) `,`
        `output_zp` `=` $output_zp `>`
  }];
  let genVerifyDecl = 1;
}

def QFX_EpilogueAttr : AnyAttrOf<[QFX_RescaleAttr, QFX_RequantizeAttr]>;

def QFX_WeightPackingAttr : QFX_Attr<"WeightPacking", "weight_packing"> {
  let summary = "The layout of a contraction's packed weights";
  let description = [{
    How the `packed` operand of a `qfx.contract` holds its weights for a
    GEMM microkernel (qfx-pack-weights writes it, qfx-codegen's kernels read
    it): `[column blocks][k groups][lanes * group]`, column `block * lanes
    + lane`'s values of k group `tap * tap_groups + g` at `lane * group`. K (a matmul's
    K, a convolution's `KH * KW * C`) is read as `taps` runs of `K / taps`
    consecutive values, each run starting at a whole group and padded with
    zeros to `tap_groups` groups of `group` values: `taps = 1` is the GEMM
    layout (K in one run, as an im2col row), `taps = KH * KW` one run of C
    channels per tap, `taps = KH` one run of `KW * C` values per kernel row.
    Columns beyond N are zero.

    ```mlir
    #qfx.weight_packing<lanes = 16, group = 4, taps = 9, tap_groups = 16>
    ```

    All four are positive.
  }];
  let parameters = (ins
    "int64_t":$lanes,
    "int64_t":$group,
    "int64_t":$taps,
    "int64_t":$tap_groups
  );
  let assemblyFormat = [{
    `<` `lanes` `=` $lanes `,` `group` `=` $group `,` `taps` `=` $taps `,`
        `tap_groups` `=` $tap_groups `>`
  }];
  let genVerifyDecl = 1;
}

#endif // QFX_DIALECT_QFX_IR_QFXATTRS_TD
