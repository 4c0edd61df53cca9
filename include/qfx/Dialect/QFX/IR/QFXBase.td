//===- QFXBase.td - The qfx dialect ------------------------*- tablegen -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_DIALECT_QFX_IR_QFXBASE_TD
#define QFX_DIALECT_QFX_IR_QFXBASE_TD

include "mlir/IR/OpBase.td"

def QFX_Dialect : Dialect {
  let name = "qfx";
  let cppNamespace = "::qfx";
  let summary = "Graph-mode post-training quantization, as PyTorch does it";
  let description = [{
    The `qfx` dialect holds what upstream MLIR lacks to express PyTorch's FX
    graph-mode quantization flow: observers that collect statistics during
    calibration (`qfx.observe`), fake quantization (`qfx.fake_quant`), fused
    patterns that are quantized as one unit (`qfx.fused`), and dynamic
    quantization with run-time scale and zero point (`qfx.choose_qparams`,
    `qfx.quantize`, `qfx.dequantize`).

    Static quantization parameters are not ours: they are upstream's
    `!quant.uniform` types, used with `quant.qcast` and `quant.dcast`.

    Between `qfx-lower` and `qfx-codegen` one typed op stands for every
    quantized contraction: `qfx.contract` (a matmul or convolution on int8
    with its zero points, and its requantization epilogue,
    `#qfx.rescale` or `#qfx.requantize`), which `qfx-contract-to-tosa`
    expands into plain TOSA for other consumers.

    The attributes carry PyTorch's configuration inside a module: an observer
    with its constructor arguments (`#qfx.observer`), a QConfig
    (`#qfx.qconfig`), a dtype with the constraints of a backend's
    DTypeConfig (`#qfx.dtype`) and the statistics an observer collected
    (`#qfx.minmax`, `#qfx.per_channel_minmax`, `#qfx.histogram`).

    Importers may set the discardable attribute `qfx.origin` (a string) on any
    op to name the PyTorch type it came from, e.g. `"torch.nn.Conv2d"`;
    QConfigMapping's `object_type` keys match it.

    Importers set `qfx.module_name` (a string) on every op to name the PyTorch
    module it belongs to: the module an op implements (`"layer1.0.conv1"`)
    or, for a functional call or tensor method, the module it is called in
    (`""` at the top level), with `qfx.node_name`, the FX node's name
    (`"add_1"`). QConfigMapping's `module_name` keys and order indices read
    them; locations are only for diagnostics, so `strip-debuginfo` changes no
    result. `qfx-module-names-from-locations` sets them from
    `loc("module")` / `loc("module"("node"))` locations, for IR written that
    way.

    The module records the configuration it was compiled with, as IREE
    records its executable target: `qfx-prepare` sets `qfx.backend`, the
    name of the BackendConfig the model is prepared for (`qfx-lower` warns
    when it lowers with another), and `qfx-codegen` sets `qfx.target`, the
    target its kernels were generated for (`"x86-64-avx512vnni"`, or
    `"none"`).

    `qfx-annotate-qconfig` sets two more discardable attributes, to show what
    the configuration resolved to: `qfx.qconfig`, the op's QConfig
    (`#qfx.qconfig<...>`) or the string `"none"` when the op is not to be
    quantized, and `qfx.pattern`, the op names of the backend pattern the op
    was matched in (an array of 1 to 3 strings, in forward order).

    `qfx-lower` sets `qfx.quantized` on the op whose integer result is a
    lowered pattern's output: the quantized type the integers stand for
    (`!quant.uniform<i8:f32, 0.02:-65>`; u8 outputs appear in the int8
    domain, zero point - 128). `quant-run --compare` reads it to dequantize
    the value.

    An importer of a model PyTorch has already calibrated sets
    `qfx.torch_observer` on the op producing a value PyTorch observed (a
    function argument carries it as an argument attribute): a dictionary with
    the observer's module name, its PyTorch class and, for observers that
    keep statistics, those statistics. `qfx-import-statistics` moves them
    into the `qfx.observe` ops of that value.

    ```mlir
    %r = tosa.clamp %c {..., qfx.torch_observer = {name = "activation_post_process_1",
        type = "HistogramObserver", stats = #qfx.histogram<min = 0.0, max = 2.5, counts = [...]>}}
    ```

    A constant that PyTorch's graph passes to an elementwise op as a tensor
    (a module attribute: ConvNeXt's `layer_scale * x`), not as a Python
    number, carries `qfx.tensor_operand`: PyTorch counts it among the op's
    tensor arguments (its output gets an observer of its own) and observes
    and quantizes it as an activation; qfx-prepare does the same.

    An op that is a part of one PyTorch op without being that op's TOSA form
    (the concats an exporter joins an adaptive pool's uneven windows with)
    carries `qfx.part_of`, that
    op's PyTorch type, instead of `qfx.origin`: its QConfig is the PyTorch
    op's (an object type entry that leaves the pool float leaves its parts
    float), while backend patterns match it as the TOSA op it is.

    An average pool (`tosa.avg_pool2d`) whose operand PyTorch's quantized
    model holds contiguous (NCHW) carries `qfx.torch_kernel`, the kernel
    PyTorch runs for it: `"avg_pool2d_contiguous"` (the sums of `q - zp`
    times `1 / count` and plus the zero point in float32, rounded half to
    even) or `"adaptive_avg_pool2d_contiguous"` (the stored integers' sums
    times PyTorch's float32 `1 / count`, rounded half to even). Without it
    `qfx-lower` averages as PyTorch's channels-last kernels (every pool after
    a quantized convolution) do; the two differ on some ties. An add
    (`tosa.add`) whose two operands PyTorch's quantized model holds in
    different memory formats (one contiguous, one channels-last) carries
    `qfx.torch_kernel = "add_scalar_loop"`: PyTorch's x86 add kernel then
    runs TensorIterator's scalar loop on every element, which dequantizes
    as `(q - z) * s`, not as its vector code's `fma(s, q, s * -z)`, and so
    does `qfx-lower`. An average
    pool PyTorch's qnnpack engine runs with qnnpack's own kernel when its
    operand is quint8 (an `avg_pool2d` without `ceil_mode`, an
    `adaptive_avg_pool2d` whose output size divides its input size without
    equalling it) carries the unit attribute `qfx.qnnpack_pool`: on that
    engine `qfx-lower` computes qnnpack's arithmetic for it (the window sums
    of `q - zp`, padding included as zeros, times float32
    `scale / (scale * kh * kw)`, rounded half to even, plus the zero point),
    whatever the layout.

    An integer function argument that indexes embeddings carries
    `qfx.index_bound = V : i64`, the rows of the smallest table it indexes:
    PyTorch raises IndexError for an index outside [0, V), and so do qfx's
    Python calls; the embedding body clamps indices into the table, so a
    direct caller never reads outside it.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();

    /// The name of the discardable attribute that names an op's PyTorch type.
    static constexpr ::llvm::StringLiteral getOriginAttrName() {
      return ::llvm::StringLiteral("qfx.origin");
    }
    /// The discardable attribute of an op the exporter writes as a part of
    /// one PyTorch op (the concats joining an adaptive pool's windows): that
    /// op's PyTorch type, which its QConfig is resolved by.
    static constexpr ::llvm::StringLiteral getPartOfAttrName() {
      return ::llvm::StringLiteral("qfx.part_of");
    }
    /// The discardable attribute naming the PyTorch module an op belongs to.
    static constexpr ::llvm::StringLiteral getModuleNameAttrName() {
      return ::llvm::StringLiteral("qfx.module_name");
    }
    /// The discardable attribute naming the FX node of a functional op.
    static constexpr ::llvm::StringLiteral getNodeNameAttrName() {
      return ::llvm::StringLiteral("qfx.node_name");
    }
    /// The module attribute naming the BackendConfig the model was prepared
    /// for (qfx-prepare sets it).
    static constexpr ::llvm::StringLiteral getBackendAttrName() {
      return ::llvm::StringLiteral("qfx.backend");
    }
    /// The module attribute naming the PyTorch quantized engine whose
    /// numerics the model follows (torch.backends.quantized.engine: x86,
    /// fbgemm, qnnpack or onednn; qfx-prepare's `engine`); without it, the
    /// engine of the same name as qfx.backend.
    static constexpr ::llvm::StringLiteral getEngineAttrName() {
      return ::llvm::StringLiteral("qfx.engine");
    }
    /// The engine `module`'s numerics follow: its qfx.engine, else its
    /// qfx.backend; none without either.
    static ::std::optional<::llvm::StringRef>
    getEngineName(::mlir::Operation *module);
    /// The module attribute naming the target qfx-codegen's kernels are for.
    static constexpr ::llvm::StringLiteral getTargetAttrName() {
      return ::llvm::StringLiteral("qfx.target");
    }
    /// The discardable attribute holding an op's resolved QConfig, or "none".
    static constexpr ::llvm::StringLiteral getQConfigAttrName() {
      return ::llvm::StringLiteral("qfx.qconfig");
    }
    /// The discardable attribute naming the backend pattern an op matched.
    static constexpr ::llvm::StringLiteral getPatternAttrName() {
      return ::llvm::StringLiteral("qfx.pattern");
    }
    /// The discardable attribute giving the quantized type of an op's integer
    /// result.
    static constexpr ::llvm::StringLiteral getQuantizedAttrName() {
      return ::llvm::StringLiteral("qfx.quantized");
    }
    /// The discardable attribute (or argument attribute) recording the
    /// PyTorch observer of the value an op produces.
    static constexpr ::llvm::StringLiteral getTorchObserverAttrName() {
      return ::llvm::StringLiteral("qfx.torch_observer");
    }
    /// The unit attribute of a constant that PyTorch's graph passes to an op
    /// as a tensor (a module attribute, get_attr): PyTorch counts it among
    /// the op's tensor arguments and observes it as an activation.
    static constexpr ::llvm::StringLiteral getTensorOperandAttrName() {
      return ::llvm::StringLiteral("qfx.tensor_operand");
    }
    /// The discardable attribute of a `tosa.avg_pool2d` naming the kernel
    /// PyTorch's quantized model runs for it when its operand is contiguous
    /// (NCHW), not channels-last: "avg_pool2d_contiguous" or
    /// "adaptive_avg_pool2d_contiguous". Without it, the channels-last
    /// kernels' arithmetic. On a `tosa.add` whose operands PyTorch holds
    /// in different memory formats: "add_scalar_loop".
    static constexpr ::llvm::StringLiteral getTorchKernelAttrName() {
      return ::llvm::StringLiteral("qfx.torch_kernel");
    }
    /// The unit attribute of a `tosa.avg_pool2d` PyTorch's qnnpack engine
    /// averages with qnnpack's kernel when its operand is quint8.
    static constexpr ::llvm::StringLiteral getQnnpackPoolAttrName() {
      return ::llvm::StringLiteral("qfx.qnnpack_pool");
    }
    /// The argument attribute bounding an index argument: [0, bound).
    static constexpr ::llvm::StringLiteral getIndexBoundAttrName() {
      return ::llvm::StringLiteral("qfx.index_bound");
    }
  }];
}

class QFX_Op<string mnemonic, list<Trait> traits = []>
    : Op<QFX_Dialect, mnemonic, traits>;

#endif // QFX_DIALECT_QFX_IR_QFXBASE_TD
