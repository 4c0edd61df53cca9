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
        qfx.qconfig = #qfx.qconfig<activation = #qfx.observer<fixed_qparams,
            scale = 3.906250e-03, zero_point = 0>, weight = ...>} : ...
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

#endif // QFX_TRANSFORMS_PASSES_TD
