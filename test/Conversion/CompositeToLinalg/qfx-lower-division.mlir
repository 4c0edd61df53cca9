// RUN: quant-opt %s --qfx-lower-division --split-input-file | FileCheck %s
// RUN: quant-opt %s --qfx-lower-division --split-input-file | quant-opt --split-input-file -o /dev/null

// By a number: one input divided by the `divisor` attribute, rounded once
// (arith.divf), not the body's multiply by the reciprocal. Leading
// dimensions may be dynamic.
// CHECK-LABEL: func.func @by_a_number
// CHECK-SAME: (%[[ARG:.*]]: tensor<?x4xf32>)
// CHECK-NOT: qfx.composite
// CHECK: %[[D0:.*]] = tensor.dim %[[ARG]]
// CHECK: %[[INIT:.*]] = tensor.empty(%[[D0]]) : tensor<?x4xf32>
// CHECK: %[[Q:.*]] = linalg.generic {{{.*}}iterator_types = ["parallel", "parallel"]} ins(%[[ARG]] : tensor<?x4xf32>) outs(%[[INIT]] : tensor<?x4xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[C:.*]] = arith.constant 5.65685415 : f32
// CHECK: %[[R:.*]] = arith.divf %[[X]], %[[C]] : f32
// CHECK: linalg.yield %[[R]] : f32
// CHECK-NOT: arith.mulf
// CHECK: return %[[Q]]
func.func @by_a_number(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = qfx.composite "torch.div" (%arg0) attributes {composite_attributes = {divisor = 5.65685415 : f32}} : (tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%x: tensor<?x4xf32>):
    %c = "tosa.const"() <{values = dense<0.176776692> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
    %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %y = tosa.mul %x, %c, %sh : (tensor<?x4xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<?x4xf32>
    qfx.yield %y : tensor<?x4xf32>
  }
  return %0 : tensor<?x4xf32>
}

// -----

// By a tensor: two inputs, a dimension of size 1 broadcast (read at 0).
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[COLUMN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
// CHECK-LABEL: func.func @by_a_tensor
// CHECK-SAME: (%[[A:.*]]: tensor<1x3x4xf32>, %[[B:.*]]: tensor<1x3x1xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[COLUMN]], #[[ID]]], {{.*}}} ins(%[[A]], %[[B]] : tensor<1x3x4xf32>, tensor<1x3x1xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK: arith.divf %[[X]], %[[Y]] : f32
// CHECK-NOT: qfx.composite
func.func @by_a_tensor(%arg0: tensor<1x3x4xf32>, %arg1: tensor<1x3x1xf32>) -> tensor<1x3x4xf32> {
  %0 = qfx.composite "torch.div" (%arg0, %arg1) : (tensor<1x3x4xf32>, tensor<1x3x1xf32>) -> tensor<1x3x4xf32> {
  ^bb0(%x: tensor<1x3x4xf32>, %y: tensor<1x3x1xf32>):
    %r = tosa.reciprocal %y : (tensor<1x3x1xf32>) -> tensor<1x3x1xf32>
    %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %q = tosa.mul %x, %r, %sh : (tensor<1x3x4xf32>, tensor<1x3x1xf32>, tensor<1xi8>) -> tensor<1x3x4xf32>
    qfx.yield %q : tensor<1x3x4xf32>
  }
  return %0 : tensor<1x3x4xf32>
}

// -----

// Kept: two inputs with a dynamic result (the broadcast is not known), one
// input without a divisor, float16.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: qfx.composite "torch.div"
// CHECK-NOT: linalg.generic
func.func @kept(%arg0: tensor<?x4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xf16>) -> (tensor<?x4xf32>, tensor<4xf32>, tensor<4xf16>) {
  %0 = qfx.composite "torch.div" (%arg0, %arg0) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>):
    qfx.yield %x : tensor<?x4xf32>
  }
  %1 = qfx.composite "torch.div" (%arg1) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    qfx.yield %x : tensor<4xf32>
  }
  %2 = qfx.composite "torch.div" (%arg2) attributes {composite_attributes = {divisor = 2.0 : f32}} : (tensor<4xf16>) -> tensor<4xf16> {
  ^bb0(%x: tensor<4xf16>):
    qfx.yield %x : tensor<4xf16>
  }
  return %0, %1, %2 : tensor<?x4xf32>, tensor<4xf32>, tensor<4xf16>
}
