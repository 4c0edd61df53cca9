// RUN: quant-opt %s --qfx-lower-observers | FileCheck %s --check-prefix=STRIP
// RUN: quant-opt %s --qfx-lower-observers=calibrate=true | FileCheck %s --check-prefix=CALIB

// Without calibration observers disappear and their users read the input.
// STRIP-NOT: qfx.observe
// STRIP-NOT: qfxObserve
// STRIP-LABEL: func.func @observed
// STRIP-SAME: (%[[X:.*]]: tensor<2x4xf32>, %[[H:.*]]: tensor<3xf16>)
// STRIP: %[[S:.*]] = tosa.add %[[X]], %[[X]]
// STRIP: return %[[S]], %[[H]]

// With calibration each observer calls the runtime with its walk-order slot.
// CALIB: func.func private @qfxObserve(i64, tensor<*xf32> {bufferization.access = "read"}) attributes {llvm.emit_c_interface}
// CALIB-LABEL: func.func @observed
// CALIB-SAME: (%[[X:.*]]: tensor<2x4xf32>, %[[H:.*]]: tensor<3xf16>)
// CALIB-DAG: %[[SLOT0:.*]] = arith.constant 0 : i64
// CALIB-DAG: %[[U0:.*]] = tensor.cast %[[X]] : tensor<2x4xf32> to tensor<*xf32>
// CALIB: call @qfxObserve(%[[SLOT0]], %[[U0]])
// CALIB: %[[S:.*]] = tosa.add %[[X]], %[[X]]
// CALIB-DAG: %[[SLOT1:.*]] = arith.constant 1 : i64
// CALIB-DAG: %[[U1:.*]] = tensor.cast %[[S]]
// CALIB: call @qfxObserve(%[[SLOT1]], %[[U1]])
// CALIB: %[[EXT:.*]] = arith.extf %[[H]] : tensor<3xf16> to tensor<3xf32>
// CALIB: %[[U2:.*]] = tensor.cast %[[EXT]]
// CALIB: call @qfxObserve(%{{.*}}, %[[U2]])
// CALIB-NOT: qfx.observe
// CALIB: return %[[S]], %[[H]]
func.func @observed(%x: tensor<2x4xf32>, %h: tensor<3xf16>) -> (tensor<2x4xf32>, tensor<3xf16>) {
  %0 = qfx.observe %x id 0 spec(#qfx.observer<minmax>) : tensor<2x4xf32>
  %1 = tosa.add %0, %0 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = qfx.observe %1 id 1 spec(#qfx.observer<histogram>) : tensor<2x4xf32>
  %3 = qfx.observe %h id 2 spec(#qfx.observer<minmax>) : tensor<3xf16>
  return %2, %3 : tensor<2x4xf32>, tensor<3xf16>
}
