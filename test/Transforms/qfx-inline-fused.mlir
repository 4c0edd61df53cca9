// RUN: quant-opt %s --qfx-inline-fused --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @inline
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NOT: qfx.fused
// CHECK: %[[SUM:.*]] = tosa.add %[[A]], %[[B]]
// CHECK: %[[RELU:.*]] = tosa.clamp %[[SUM]]
// CHECK: %[[TWICE:.*]] = tosa.add %[[RELU]], %[[RELU]]
// CHECK: return %[[TWICE]]
func.func @inline(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = qfx.fused "add_relu" (%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    %s = tosa.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %c = tosa.clamp %s {max_val = 3.40282347E+38 : f32, min_val = 0.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
    qfx.yield %c : tensor<4xf32>
  }
  %t = tosa.add %r, %r : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %t : tensor<4xf32>
}

// -----

// Nested fused ops and several results.
// CHECK-LABEL: func.func @nested
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>)
// CHECK-NOT: qfx.
// CHECK: %[[N:.*]] = tosa.negate %[[A]]
// CHECK: %[[E:.*]] = tosa.exp %[[N]]
// CHECK: return %[[E]], %[[N]]
func.func @nested(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = qfx.fused "outer" (%a) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%x: tensor<4xf32>):
    %n = qfx.fused "inner" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%y: tensor<4xf32>):
      %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
      %m = tosa.negate %y, %zp, %zp : (tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4xf32>
      qfx.yield %m : tensor<4xf32>
    }
    %e = tosa.exp %n : (tensor<4xf32>) -> tensor<4xf32>
    qfx.yield %e, %n : tensor<4xf32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}
