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

#endif // QFX_TRANSFORMS_PASSES_TD
