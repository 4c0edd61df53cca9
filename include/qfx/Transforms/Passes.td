//===- Passes.td - qfx transformation passes ---------------*- tablegen -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_TRANSFORMS_PASSES_TD
#define QFX_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def QFXInlineFused : Pass<"qfx-inline-fused"> {
  let summary = "Replaces every qfx.fused op by the ops of its body";
  let description = [{
    Once a fused pattern has been quantized as a unit, its region is only a
    grouping: this pass moves the body's ops into the parent block, maps the
    block arguments to the fused op's operands and its results to the yielded
    values. Nested fused ops are inlined too.

    ```mlir
    %r = qfx.fused "add_relu" (%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
      %s = tosa.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      qfx.yield %s : tensor<4xf32>
    }
    // becomes
    %r = tosa.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
}

def QFXMaterializeResources : Pass<"qfx-materialize-resources"> {
  let summary = "Replaces dense_resource weights by elements attributes";
  let description = [{
    Weights may come as MLIR resources: `dense_resource<key>` attributes
    whose bytes are a blob beside the IR (a file's `dialect_resources`
    section, or the buffers qfx's exporter hands to the library through the
    C API, as torch-mlir's FX importer does). qfx's passes read weights as
    elements attributes: this pass replaces each resource, wherever it is
    nested, by the dense elements attribute of its bytes. `qfx-fuse`,
    `qfx-prepare`, `quant-run`, `quant-compile` and the C API do this as
    they begin; before other passes, run it first on a file that holds
    resources. A resource without bytes, of an element type that is not a
    whole number of bytes (`i1`) or whose byte count is not its type's is an
    error at the op that holds it, and nothing is replaced.

    ```mlir
    %w = "tosa.const"() <{values = dense_resource<conv1_weight> : tensor<2xf32>}> : () -> tensor<2xf32>
    {-# dialect_resources: { builtin: { conv1_weight: "0x040000000000803F00000040" } } #-}
    // becomes
    %w = "tosa.const"() <{values = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}> : () -> tensor<2xf32>
    ```
  }];
}

def QFXModuleNamesFromLocations : Pass<"qfx-module-names-from-locations"> {
  let summary = "Sets qfx.module_name / qfx.node_name from op locations";
  let description = [{
    QConfigMapping's `module_name` keys and order indices read an op's
    `qfx.module_name` and `qfx.node_name` attributes, which qfx's exporter
    writes. IR that names modules only in locations — written by hand or by
    another importer — gets them from this pass: `loc("layer1.0.conv1")`
    names the module an op implements, `loc("layer1.0"("add_1"))` the module
    a functional call runs in and its FX node (the first such name inside a
    fused or call-site location). Ops that have the attributes keep them;
    functions, modules, constants, terminators and `qfx.fused` ops get none.

    ```mlir
    %0 = tosa.add %a, %b : (...) -> tensor<4xf32> loc("layer1"("add"))
    // becomes
    %0 = tosa.add %a, %b {qfx.module_name = "layer1", qfx.node_name = "add"}
        : (...) -> tensor<4xf32> loc("layer1"("add"))
    ```
  }];
  let dependentDialects = ["::qfx::QFXDialect"];
}

def QFXInlineComposites : Pass<"qfx-inline-composites"> {
  let summary = "Replaces every qfx.composite op by the TOSA ops of its body";
  let description = [{
    The exporter keeps a PyTorch op that has no single TOSA op (Hardswish,
    LeakyReLU, ...) as a `qfx.composite` holding its decomposition. This
    pass moves each body into the parent block, so any TOSA consumer can
    take the model: the float model (before `qfx-prepare`) and the int8
    model alike. A composite inside a `qfx.fused` body, or inside another
    composite, is inlined too.

    ```mlir
    %r = qfx.composite "torch.nn.LeakyReLU" (%x) {composite_attributes = {negative_slope = 0.1 : f32}}
        : (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%a: tensor<4xf32>):
      %s = tosa.mul %a, %slope, %shift : (...) -> tensor<4xf32>
      %m = tosa.maximum %a, %s : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      qfx.yield %m : tensor<4xf32>
    }
    // becomes
    %s = tosa.mul %x, %slope, %shift : (...) -> tensor<4xf32>
    %r = tosa.maximum %x, %s : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    ```

    Run it after `qfx-lower` when the int8 model should be plain TOSA (a
    quantized composite has been replaced by int8 ops already; one left in
    float is inlined in float).
  }];
}

def QFXLowerObservers : Pass<"qfx-lower-observers", "::mlir::ModuleOp"> {
  let summary = "Removes qfx.observe, or turns it into calls to the "
                "calibration runtime";
  let description = [{
    By default every `qfx.observe` is replaced by its input: the observed
    model computes exactly what the float model does.

    With `calibrate=true`, every `qfx.observe` becomes a call that hands the
    observed tensor to qfx's calibration runtime, which feeds the observer:

    ```mlir
    %1 = qfx.observe %0 id 4 spec(#qfx.observer<minmax>) : tensor<1x8xf32>
    // becomes
    %slot = arith.constant 0 : i64
    %u = tensor.cast %0 : tensor<1x8xf32> to tensor<*xf32>
    func.call @qfxObserve(%slot, %u) : (i64, tensor<*xf32>) -> ()
    ```

    The slot is the op's position among the module's `qfx.observe` ops in
    walk order (pre-order); the runtime maps slots back to the ops and their
    observer ids. f16 and bf16 inputs are extended to f32 first.
    `@qfxObserve` is declared with `llvm.emit_c_interface`, so the runtime
    implements `_mlir_ciface_qfxObserve(int64_t, UnrankedMemRefType<float> *)`,
    and its tensor argument with `bufferization.access = "read"`: the runtime
    only reads it.
  }];
  let options = [
    Option<"calibrate", "calibrate", "bool", /*default=*/"false",
           "Call the calibration runtime instead of removing the observers">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def QFXLowerHostCalls : Pass<"qfx-lower-host-calls", "::mlir::ModuleOp"> {
  let summary = "Turns qfx.host_call's buffer form into calls of the runtime";
  let description = [{
    Run after bufferization and buffer deallocation (so that every buffer a
    host call reads or writes lives until the call), each `qfx.host_call`
    with `outs` buffers becomes a call that hands the runtime the call's
    `id` and the address of each buffer, inputs then outputs, in an array:

    ```mlir
    qfx.host_call "torch.topk" id 0 (%x) outs(%v, %i)
        : (memref<1x10xf32>, memref<1x3xf32>, memref<1x3xi64>) -> ()
    // becomes
    %a = memref.alloca() : memref<3xi64>
    %p = memref.extract_aligned_pointer_as_index %x : memref<1x10xf32> -> index
    %p64 = arith.index_cast %p : index to i64
    memref.store %p64, %a[%c0] : memref<3xi64>
    ...
    %d = memref.cast %a : memref<3xi64> to memref<?xi64>
    func.call @qfxHostCall(%id, %d) : (i64, memref<?xi64>) -> ()
    ```

    A buffer whose layout is not the identity (a strided view) is copied to
    a C-order one first (and an output back after the call): the host sees
    every tensor in C order. `@qfxHostCall` is declared with
    `llvm.emit_c_interface`: the runtime implements
    `_mlir_ciface_qfxHostCall(int64_t, StridedMemRefType<int64_t, 1> *)`.
    An op in the tensor form is left alone (bufferization makes the buffer
    form).
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def QFXAnnotateQConfig : Pass<"qfx-annotate-qconfig", "::mlir::ModuleOp"> {
  let summary = "Attaches to each op its resolved QConfig and matched backend "
                "pattern, or says why it will not be quantized";
  let description = [{
    Resolves the QConfigMapping for every op of every function the way
    PyTorch 1.13's `generate_qconfig_map` does, matches the BackendConfig's
    patterns the way its `find_matches` does, and checks the QConfig against
    the matched pattern's dtype configs. Nothing else changes: this is the
    pass to run first when a layer is not quantized.

    - `qfx.qconfig` gets the op's QConfig, or `"none"` when the mapping says
      not to quantize it;
    - `qfx.pattern` gets the op names of the backend pattern the op was
      matched in;
    - a remark says why an op will not be quantized: its QConfig is null, no
      pattern of the backend matches it, or the QConfig fails the pattern's
      dtype configs (with the failed field).

    Constants, terminators, observers are left alone. A `qfx.fused` op is
    annotated as one op with the QConfig of its pattern's root op; the ops in
    its body get their own `qfx.qconfig`.

    The module name of an op is its outermost NameLoc (`loc("layer1.0.conv1")`,
    inside a FusedLoc the first NameLoc found); an op implementing a
    functional call is located at `loc("layer1.0"("add"))`, its module and
    FX node. Its object types are its op name, then its `qfx.origin`
    (tensor methods by their bare name). Order indices count module call
    sites in the parent module, functional nodes in their module.

    ```mlir
    %0 = tosa.sigmoid %x {qfx.origin = "torch.nn.Sigmoid"} : ... loc("head")
    // with qconfig-mapping=default:x86 backend=x86 becomes
    %0 = tosa.sigmoid %x {qfx.origin = "torch.nn.Sigmoid",
        qfx.pattern = ["tosa.sigmoid"],
        qfx.qconfig = #qfx.qconfig<
            activation = #qfx.observer<fixed_qparams, dtype = quint8,
                quant_min = 0, quant_max = 255, scale = 3.906250e-03,
                zero_point = 0>,
            weight = #qfx.observer<minmax, dtype = qint8,
                qscheme = per_tensor_symmetric>>} : ...
    %1 = tosa.exp %0 : ... loc("head"("exp"))
    // remark: not quantized: no pattern of backend 'x86' matches tosa.exp
    ```
  }];
  let options = [
    Option<"qconfigMapping", "qconfig-mapping", "std::string",
           /*default=*/"\"default:x86\"",
           "A QConfigMapping JSON file or a preset (default:x86, "
           "default:fbgemm, default:qnnpack, default:onednn)">,
    Option<"backend", "backend", "std::string", /*default=*/"\"x86\"",
           "A BackendConfig JSON file or a built-in table (x86, fbgemm, "
           "qnnpack, onednn, tosa)">
  ];
  let dependentDialects = ["::qfx::QFXDialect"];
}

def QFXFuse : Pass<"qfx-fuse", "::mlir::ModuleOp"> {
  let summary = "Folds batch norm into convolutions and wraps the backend's "
                "fusion patterns in qfx.fused regions";
  let description = [{
    First folds per-channel affine ops that follow an op with a weight
    whose output channels QuantizableOpInterface knows (`tosa.conv2d`,
    `tosa.depthwise_conv2d`, `tosa.conv3d`, `tosa.transpose_conv2d`,
    `tosa.matmul`, with or without its bias
    `tosa.add`) into the weights and bias, as PyTorch's fusion folds
    BatchNorm: a chain of `tosa.mul`, `tosa.add` and `tosa.sub` by values
    that vary only along the output channel and are computed from constants
    (also through `tosa.rsqrt` and `tosa.reciprocal`: the `(x - mean) *
    rsqrt(var + eps) * gamma + beta` form), and one batch norm composite
    (`qfx.composite "torch.nn.BatchNorm1d"`, `2d`, `3d`) whose body is such
    a chain, each intermediate result used once, and at least one
    multiplication by a per-channel tensor. As PyTorch's fuser, one batch
    norm folds: a second one after it stays, and with the conv forms the
    backend's conv + batch norm pattern (`conv2d_bn`, `depthwise_conv2d_bn`,
    `conv3d_bn`, `transpose_conv2d_bn`: PyTorch's prepare matches it, its
    convert leaves it float). The chain may start after a
    reshape that keeps the channels last (a Linear on a rank-2 input, a
    Conv1d). A batch norm that folds nowhere stays a composite, and so does
    a 2-d batch norm between a `tosa.transpose_conv2d` and a ReLU: PyTorch
    fuses it with the ReLU instead (its patterns have no transposed conv +
    batch norm + ReLU).

    A ReLU (`tosa.clamp` to [0, +inf)) that follows the exporter's own
    reshape (without `qfx.origin`) of a `tosa.matmul`, `tosa.add`,
    `tosa.conv2d` or `tosa.depthwise_conv2d` result is moved above the
    reshape: the exporter reshapes a Linear's and a Conv1d's result back
    before the ReLU that PyTorch fuses with it. A reshape of the model (a
    `flatten`, `view`) stays between them, as in PyTorch's graph.

    Then, for every BackendPatternConfig with a `fused_op`, matches its
    pattern (1 to 3 ops in forward order, each result operand 0 of the next
    and used by nothing else, longest patterns first, from the end of the
    function; a `tosa.clamp` after another op must be a ReLU) and wraps the
    ops in a `qfx.fused` region named after the fused op. The region's operands are the values the pattern uses, weights and
    bias included; constants that are neither (zero points, shifts) are
    cloned into the body. The fused op takes the location of the pattern's
    ops (a FusedLoc); the ops in its body keep their `qfx.origin`.

    ```mlir
    %c = tosa.conv2d %x, %w, %b, %zp, %zp {...} : ... loc("conv1")
    %r = tosa.clamp %c {...} : ... loc("relu1")
    // becomes
    %r = qfx.fused "conv2d_relu" (%x, %w, %b) : ... {
    ^bb0(%a: ..., %k: ..., %c: ...):
      ...
      qfx.yield %0 : ...
    } loc(fused["conv1", "relu1"])
    ```
  }];
  let options = [
    Option<"backend", "backend", "std::string", /*default=*/"\"x86\"",
           "A BackendConfig JSON file or a built-in table (x86, fbgemm, "
           "qnnpack, onednn, tosa)">,
    Option<"foldBatchNorm", "fold-batch-norm", "bool", /*default=*/"true",
           "Fold per-channel affine constants after conv2d, "
           "depthwise_conv2d and matmul into their weights and bias (off "
           "for a model PyTorch's prepare_fx fused already)">
  ];
  let dependentDialects = ["::mlir::tosa::TosaDialect", "::qfx::QFXDialect"];
}

def QFXImportStatistics
    : Pass<"qfx-import-statistics", "::mlir::ModuleOp"> {
  let summary = "Gives each qfx.observe the statistics of PyTorch's observer "
                "of the same value";
  let description = [{
    For a model PyTorch has prepared and calibrated (`qfx.convert_fx` of a
    PyTorch `prepare_fx` / `prepare_qat_fx` model): the exporter records each
    PyTorch observer on the op producing the value it observes
    (`qfx.torch_observer`, see the dialect). Run after `qfx-prepare`, this
    pass sets the `stats` of every calibrating `qfx.observe`:

    - to the statistics of PyTorch's observer of its value, found on the op
      defining the value or the function argument it is, looking back
      through `tosa.transpose`, `tosa.reshape` and `qfx.observe` (they do not
      change the set of values) and into `qfx.fused` and `qfx.composite`
      regions, else on a transpose or reshape of the value (the exporter
      records a value on the op that gives it PyTorch's layout); they must
      fit the observer (`#qfx.histogram` with its bins for a histogram
      observer, ...);
    - for an observed constant (a weight; also through `tosa.reshape`s of
      it) without one, to the statistics of
      the constant, as calibration would compute them (a weight of a QAT
      model has one: its weight fake quantizer's), unless it shares its id
      with a value PyTorch observed (a class token concatenated with
      computed values: PyTorch's shared observer saw the constant too), which
      gives the statistics of the whole id;
    - for any other observer without one, to the statistics of its id, if an
      observer sharing it has PyTorch's (the reshapes and tiles of a nearest
      `F.interpolate`: PyTorch observes its input and output only, with one
      shared observer).

    An observer with none of these is an error, and so are observers sharing
    an id (qparams) that would get different statistics: PyTorch's model
    does not observe the values qfx's does. Except PyTorch's observer after
    ops whose kernels keep their input's qparams (copy and shape ops, cat:
    `takesOutputQParams`) back to an observer of the same id: PyTorch's
    converted model runs them on the quantized input and never uses it (its
    prepare can leave it apart from the input's, when a later `cat` shares
    the input's observer with another value); it takes the id's statistics.
    A PyTorch observer with statistics that no `qfx.observe` took gets a
    remark. The pass then removes every
    `qfx.torch_observer`.

    ```mlir
    %r = tosa.clamp %c {max_val = 3.4e38 : f32, min_val = 0.0 : f32,
        qfx.torch_observer = {name = "activation_post_process_1",
            type = "MinMaxObserver", stats = #qfx.minmax<min = 0.0, max = 2.5>}} : ...
    %o = qfx.observe %r id 2 spec(#qfx.observer<minmax>) : ...
    // becomes
    %r = tosa.clamp %c {max_val = 3.4e38 : f32, min_val = 0.0 : f32} : ...
    %o = qfx.observe %r id 2 spec(#qfx.observer<minmax>)
        stats(#qfx.minmax<min = 0.0, max = 2.5>) : ...
    ```
  }];
  let dependentDialects = ["::mlir::tosa::TosaDialect", "::qfx::QFXDialect"];
}

def QFXCopyStatistics : Pass<"qfx-copy-statistics", "::mlir::ModuleOp"> {
  let summary = "Gives each qfx.observe the statistics of the observer with "
                "its id in another calibrated module of the same model";
  let description = [{
    Compiling a converted model for other input shapes (another batch size,
    another sequence length): the model is exported again at those shapes
    and prepared with the same QConfigMapping and backend, which places the
    same observers with the same ids, and this pass gives them the
    statistics of the module calibrated at the first shapes (`from`, a
    calibrated stage file, text or bytecode), in place of a calibration.
    Statistics do not depend on the shapes (an observer sees all of a
    value's elements; per-channel ones keep the channel axis).

    Every calibrating `qfx.observe` must find the observer of its id in
    `from`, with the same `spec`, and every calibrating observer of `from`
    must be in the module; anything else is an error naming the observer:
    the two modules are not the same model at two shapes. An observer
    without statistics in `from` (a weight's, which qfx-convert computes
    from the constant, in a model converted without calibration) is left
    without.

    ```mlir
    // from: %o = qfx.observe %r id 2 spec(#qfx.observer<minmax>)
    //           stats(#qfx.minmax<min = 0.0, max = 2.5>) : tensor<1x8xf32>
    %o = qfx.observe %r id 2 spec(#qfx.observer<minmax>) : tensor<4x8xf32>
    // becomes
    %o = qfx.observe %r id 2 spec(#qfx.observer<minmax>)
        stats(#qfx.minmax<min = 0.0, max = 2.5>) : tensor<4x8xf32>
    ```
  }];
  let options = [
    Option<"from", "from", "std::string", /*default=*/"\"\"",
           "The calibrated module (an MLIR file) whose statistics to copy">
  ];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::tosa::TosaDialect", "::qfx::QFXDialect"];
}

def QFXPrepare : Pass<"qfx-prepare", "::mlir::ModuleOp"> {
  let summary = "Inserts qfx.observe where PyTorch's prepare_fx inserts "
                "observers";
  let description = [{
    Resolves each op's QConfig and matches the BackendConfig's patterns (a
    `qfx.fused` op counts as one op), checks the QConfig against the
    pattern's dtype configs, and inserts `qfx.observe` ops as PyTorch 1.13's
    `prepare_fx` inserts observers:

    - on the activation inputs of a quantized pattern whose producer does not
      already produce that dtype, and on its output; one observer per value
      and dtype, none inside fused regions;
    - on weights, with the QConfig's weight observer; a per-channel axis is
      translated from PyTorch's layout to TOSA's (conv2d OHWI: 0; matmul
      `[1, IN, OUT]`: 2; depthwise HWCM: the output channel is C*M, so the
      weight is observed as `[KH, KW, C*M]` along axis 2 between two
      reshapes when M > 1);
    - ops that share their input's observer (output_share_observer_with_input,
      and a reuse-input QConfig) get the id and spec of their first input's
      observer; concat makes all its inputs share it;
    - fixed-qparams ops (sigmoid, tanh) get the backend's fixed observer;
    - biases stay float;
    - in a function whose ops carry `qfx.origin`, transposes, reshapes and
      slices without one are the importer's layout glue: they are not
      observed and pass their input's dtype on; an input observer goes
      before such glue, on the tensor the PyTorch op takes (the rows a
      strided window never reads, the NCHW value before an NHWC transpose),
      so it sees the whole tensor and every user of the value shares it, as
      PyTorch's does;
    - a constant marked `qfx.tensor_operand` (a module attribute PyTorch
      passes as a tensor: ConvNeXt's `layer_scale * x`) is an activation
      operand: observed with the activation observer and counted among the
      op's tensor arguments (num_tensor_args_to_observation_type);
    - a recurrent composite (LSTM, GRU, LSTMCell, GRUCell, RNNCell) under a
      dynamic QConfig is observed inside its body: each matmul's constant
      weight, and its input dynamically.

    Every op that is not quantized gets a remark saying why (null QConfig,
    no backend pattern, the failed dtype constraint); `summary=true`
    replaces them by one remark with a table.

    ```mlir
    %0 = qfx.observe %x id 0 spec(#qfx.observer<histogram, reduce_range = true>) : ...
    %1 = qfx.observe %w id 1 spec(#qfx.observer<per_channel_minmax, dtype = qint8,
                                  qscheme = per_channel_symmetric>) : ...
    %2 = tosa.conv2d %0, %1, %b, ...
    %3 = qfx.observe %2 id 2 spec(#qfx.observer<histogram, reduce_range = true>) : ...
    ```
  }];
  let options = [
    Option<"qconfigMapping", "qconfig-mapping", "std::string",
           /*default=*/"\"default:x86\"",
           "A QConfigMapping JSON file or a preset (default:x86, "
           "default:fbgemm, default:qnnpack, default:onednn)">,
    Option<"backend", "backend", "std::string", /*default=*/"\"x86\"",
           "A BackendConfig JSON file or a built-in table (x86, fbgemm, "
           "qnnpack, onednn, tosa)">,
    Option<"engine", "engine", "std::string", /*default=*/"\"\"",
           "The PyTorch quantized engine whose numerics the model follows "
           "(x86, fbgemm, qnnpack, onednn), recorded as the module's "
           "qfx.engine for qfx-convert and qfx-lower; unset: the backend's">,
    Option<"summary", "summary", "bool", /*default=*/"false",
           "Replace the per-op remarks by one remark with a table of the ops "
           "that are not quantized">
  ];
  let dependentDialects = ["::mlir::tosa::TosaDialect", "::qfx::QFXDialect"];
}

def QFXApplyConvertMapping : Pass<"qfx-apply-convert-mapping",
                                  "::mlir::ModuleOp"> {
  let summary = "Leaves float the ops a convert-time QConfigMapping sets to "
                "None (PyTorch's convert_fx(qconfig_mapping=...))";
  let description = [{
    PyTorch's `convert_fx` takes a second QConfigMapping that may only turn
    QConfigs of `prepare_fx`'s mapping to None: the ops it gives None stay
    float. This pass does that to a prepared (or calibrated) module before
    `qfx-convert`, as PyTorch 1.13's convert does:

    - The mappings are compared first (compare_prepare_convert_qconfig_mappings):
      the global QConfigs must be equal, and every `object_type`,
      `module_name` and `module_name_regex` key of `prepare-qconfig-mapping`
      must be in `qconfig-mapping` with None or the same QConfig. Then each
      op (a `qfx.fused` op as one, fused modules as `qfx-prepare` resolves
      them) must resolve to None or to its prepare-time QConfig. Anything
      else is an error naming the key or the op.
    - An observer is removed when the op producing its value and every op
      using it resolve to None (an argument of the function, a constant and
      the function's return count as None, an observer does not; layout
      glue the exporter inserted is looked through): a weight's observer
      goes with its op, an activation's stays where a quantized op produces
      or uses it. `qfx-convert` then makes quantize / dequantize casts of
      what remains, so a float op between quantized ones runs dequantize →
      float op → quantize, as PyTorch's converted model runs it.

    ```mlir
    // qconfig-mapping: {"": "default_qconfig", "module_name": [["fc2", null]]}
    %w = qfx.observe %cst id 3 spec(...) : tensor<1x8x4xf32>   // removed
    %y = qfx.fused "linear"(%x, %w, %b) ...  // loc("fc2"): stays float
    ```
  }];
  let options = [
    Option<"qconfigMapping", "qconfig-mapping", "std::string",
           /*default=*/"\"\"",
           "The convert-time QConfigMapping (a JSON file or a preset)">,
    Option<"prepareQConfigMapping", "prepare-qconfig-mapping", "std::string",
           /*default=*/"\"\"",
           "The QConfigMapping the module was prepared with">,
    Option<"backend", "backend", "std::string", /*default=*/"\"x86\"",
           "The BackendConfig the module was prepared with">
  ];
  let dependentDialects = ["::mlir::tosa::TosaDialect", "::qfx::QFXDialect"];
}

#endif // QFX_TRANSFORMS_PASSES_TD
