// The "float_kernel" lowering (PyTorch's quantized::matmul, softmax and
// layer_norm, and mean where PyTorch averages in float): every int8 input
// dequantized as PyTorch's Tensor.dequantize() ((q - z) * s), the pattern's
// float ops, then x * (1 / s) rounded half to even (tosa.cast), plus the
// zero point, saturated.
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo '{"name": "float", "configs": [{"pattern": "tosa.matmul", "reference_lowering": "float_kernel"}, {"pattern": "torch.nn.Softmax", "reference_lowering": "float_kernel"}, {"pattern": "torch.mean", "reference_lowering": "mean"}, {"pattern": "torch.nn.functional.interpolate", "reference_lowering": "centered_float"}]}' > %t/float.json
// RUN: quant-opt %s --qfx-lower="backend=%t/float.json" --split-input-file --verify-diagnostics | FileCheck %s

!a = !quant.uniform<i8:f32, 0.5:3>
!b = !quant.uniform<i8:f32, 0.25>
!o = !quant.uniform<i8:f32, 0.125:-2>

// CHECK-LABEL: func.func @matmul_of_two_activations
// CHECK-DAG: %[[A:.*]] = quant.scast %arg0
// CHECK-DAG: %[[B:.*]] = quant.scast %arg1
// CHECK-DAG: %[[AF:.*]] = tosa.cast %[[A]] : (tensor<1x2x4xi8>) -> tensor<1x2x4xf32>
// CHECK-DAG: %[[BF:.*]] = tosa.cast %[[B]] : (tensor<1x4x3xi8>) -> tensor<1x4x3xf32>
// CHECK: %[[MM:.*]] = tosa.matmul {{.*}} : (tensor<1x2x4xf32>, tensor<1x4x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x3xf32>
// CHECK: %[[INV:.*]] = "tosa.const"() <{values = dense<8.000000e+00> : tensor<1x1x1xf32>}>
// CHECK: %[[SCALED:.*]] = tosa.mul %[[MM]], %[[INV]]
// CHECK: %[[CLAMPED:.*]] = tosa.clamp %[[SCALED]] {max_val = 1.290000e+02 : f32, min_val = -1.260000e+02 : f32}
// CHECK: %[[INT:.*]] = tosa.cast %[[CLAMPED]] : (tensor<1x2x3xf32>) -> tensor<1x2x3xi32>
// CHECK: tosa.add %[[INT]]
// CHECK-NOT: tosa.matmul
func.func @matmul_of_two_activations(%arg0: tensor<1x2x4x!a>, %arg1: tensor<1x4x3x!b>) -> tensor<1x2x3x!o> {
  %a = quant.dcast %arg0 : tensor<1x2x4x!a> to tensor<1x2x4xf32>
  %b = quant.dcast %arg1 : tensor<1x4x3x!b> to tensor<1x4x3xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.matmul %a, %b, %zp, %zp : (tensor<1x2x4xf32>, tensor<1x4x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x3xf32>
  %q = quant.qcast %y : tensor<1x2x3xf32> to tensor<1x2x3x!o>
  return %q : tensor<1x2x3x!o>
}

// -----

!t = !quant.uniform<i8:f32, 0.5>
!o = !quant.uniform<i8:f32, 0.00390625:-128>

// A composite's body is kept whole: the composite itself is cloned onto the
// dequantized input.
// CHECK-LABEL: func.func @softmax_composite
// CHECK: %[[X:.*]] = tosa.mul
// CHECK: qfx.composite "torch.nn.Softmax"(%[[X]])
// CHECK: tosa.exp
// CHECK: dense<2.560000e+02>
// CHECK: tosa.cast {{.*}} -> tensor<2x4xi8>
func.func @softmax_composite(%arg0: tensor<2x4x!t>) -> tensor<2x4x!o> {
  %x = quant.dcast %arg0 : tensor<2x4x!t> to tensor<2x4xf32>
  %y = qfx.composite "torch.nn.Softmax" (%x) attributes {composite_attributes = {axis = 1 : i64}} : (tensor<2x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%v: tensor<2x4xf32>):
    %m = tosa.reduce_max %v {axis = 1 : i32} : (tensor<2x4xf32>) -> tensor<2x1xf32>
    %d = tosa.sub %v, %m : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
    %e = tosa.exp %d : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %s = tosa.reduce_sum %e {axis = 1 : i32} : (tensor<2x4xf32>) -> tensor<2x1xf32>
    %r = tosa.reciprocal %s : (tensor<2x1xf32>) -> tensor<2x1xf32>
    %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %p = tosa.mul %e, %r, %shift : (tensor<2x4xf32>, tensor<2x1xf32>, tensor<1xi8>) -> tensor<2x4xf32>
    qfx.yield %p : tensor<2x4xf32>
  }
  %q = quant.qcast %y : tensor<2x4xf32> to tensor<2x4x!o>
  return %q : tensor<2x4x!o>
}

// -----

!t = !quant.uniform<i8:f32, 0.0397465788:-67>
!o = !quant.uniform<i8:f32, 0.00390625:-128>

// Inputs are dequantized as PyTorch's Tensor.dequantize(): (q - z) * s,
// one rounding, with a scale of many significand bits too (not the
// fma(s, q, s * -z) of its add kernel, whose emulation adds error terms).
// CHECK-LABEL: func.func @dequantized_as_tensor_dequantize
// CHECK: %[[Q:.*]] = tosa.cast %{{.*}} : (tensor<2x4xi8>) -> tensor<2x4xf32>
// CHECK: %[[K:.*]] = tosa.sub %[[Q]], %{{.*}} : (tensor<2x4xf32>, tensor<1x1xf32>) -> tensor<2x4xf32>
// CHECK: %[[S:.*]] = "tosa.const"() <{values = dense<0.0397465788> : tensor<1x1xf32>}>
// CHECK: %[[X:.*]] = tosa.mul %[[K]], %[[S]], %{{.*}} : (tensor<2x4xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<2x4xf32>
// CHECK-NEXT: qfx.composite "torch.nn.Softmax"(%[[X]])
func.func @dequantized_as_tensor_dequantize(%arg0: tensor<2x4x!t>) -> tensor<2x4x!o> {
  %x = quant.dcast %arg0 : tensor<2x4x!t> to tensor<2x4xf32>
  %y = qfx.composite "torch.nn.Softmax" (%x) attributes {composite_attributes = {axis = 1 : i64, last_dim = true}} : (tensor<2x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%v: tensor<2x4xf32>):
    qfx.yield %v : tensor<2x4xf32>
  }
  %q = quant.qcast %y : tensor<2x4xf32> to tensor<2x4x!o>
  return %q : tensor<2x4x!o>
}

// -----

!t = !quant.uniform<i8:f32, 0.5:3>

// A mean PyTorch computes in float (`averages_integers = false`): the
// composite on the dequantized input, quantized to the shared qparams; with
// `true` (or no attribute) the integers are averaged.
// CHECK-LABEL: func.func @mean_in_float
// CHECK: qfx.composite "torch.mean"
// CHECK: tosa.reduce_sum {{.*}} -> tensor<1x1x4xf32>
// CHECK: dense<2.000000e+00>
// CHECK-LABEL: func.func @mean_of_integers
// CHECK-NOT: qfx.composite
// CHECK: tosa.reduce_sum {{.*}} -> tensor<1x1x4xi32>
func.func @mean_in_float(%arg0: tensor<1x2x4x!t>) -> tensor<1x1x4x!t> {
  %x = quant.dcast %arg0 : tensor<1x2x4x!t> to tensor<1x2x4xf32>
  %y = qfx.composite "torch.mean" (%x) attributes {composite_attributes = {axes = array<i64: 1>, keepdim = true, averages_integers = false}} : (tensor<1x2x4xf32>) -> tensor<1x1x4xf32> {
  ^bb0(%v: tensor<1x2x4xf32>):
    %s = tosa.reduce_sum %v {axis = 1 : i32} : (tensor<1x2x4xf32>) -> tensor<1x1x4xf32>
    %half = "tosa.const"() <{values = dense<0.5> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
    %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %m = tosa.mul %s, %half, %shift : (tensor<1x1x4xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x1x4xf32>
    qfx.yield %m : tensor<1x1x4xf32>
  }
  %q = quant.qcast %y : tensor<1x1x4xf32> to tensor<1x1x4x!t>
  return %q : tensor<1x1x4x!t>
}

func.func @mean_of_integers(%arg0: tensor<1x2x4x!t>) -> tensor<1x1x4x!t> {
  %x = quant.dcast %arg0 : tensor<1x2x4x!t> to tensor<1x2x4xf32>
  %y = qfx.composite "torch.mean" (%x) attributes {composite_attributes = {axes = array<i64: 1>, keepdim = true, averages_integers = true}} : (tensor<1x2x4xf32>) -> tensor<1x1x4xf32> {
  ^bb0(%v: tensor<1x2x4xf32>):
    %s = tosa.reduce_sum %v {axis = 1 : i32} : (tensor<1x2x4xf32>) -> tensor<1x1x4xf32>
    %half = "tosa.const"() <{values = dense<0.5> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
    %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %m = tosa.mul %s, %half, %shift : (tensor<1x1x4xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x1x4xf32>
    qfx.yield %m : tensor<1x1x4xf32>
  }
  %q = quant.qcast %y : tensor<1x1x4xf32> to tensor<1x1x4x!t>
  return %q : tensor<1x1x4x!t>
}

// -----

!t = !quant.uniform<i8:f32, 0.5:3>
!u = !quant.uniform<i8:f32, 0.25:3>

// "centered_float" (PyTorch's bilinear upsampling, which keeps its input's
// qparams): the float ops on q - zp, no scaling, rounded half to even, plus
// zp. With other output qparams it does not apply.
// CHECK-LABEL: func.func @centered
// CHECK: %[[Q:.*]] = tosa.cast %{{.*}} : (tensor<1x4xi8>) -> tensor<1x4xf32>
// CHECK: %[[C:.*]] = tosa.sub %[[Q]]
// CHECK-NOT: tosa.mul %[[C]]
// CHECK: %[[Y:.*]] = qfx.composite "torch.nn.functional.interpolate"(%[[C]])
// CHECK: tosa.clamp %[[Y]] {max_val = 1.240000e+02 : f32, min_val = -1.310000e+02 : f32}
// CHECK-LABEL: func.func @centered_other_qparams
// CHECK-NOT: tosa.sub
// CHECK: qfx.composite "torch.nn.functional.interpolate"(%{{.*}}) attributes {{.*}} : (tensor<1x4xf32>)
func.func @centered(%arg0: tensor<1x4x!t>) -> tensor<1x4x!t> {
  %x = quant.dcast %arg0 : tensor<1x4x!t> to tensor<1x4xf32>
  %y = qfx.composite "torch.nn.functional.interpolate" (%x) attributes {composite_attributes = {align_corners = false, mode = "bilinear"}} : (tensor<1x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%v: tensor<1x4xf32>):
    %k = "tosa.const"() <{values = dense<0.75> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
    %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %m = tosa.mul %v, %k, %shift : (tensor<1x4xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<1x4xf32>
    qfx.yield %m : tensor<1x4xf32>
  }
  %q = quant.qcast %y : tensor<1x4xf32> to tensor<1x4x!t>
  return %q : tensor<1x4x!t>
}

func.func @centered_other_qparams(%arg0: tensor<1x4x!t>) -> tensor<1x4x!u> {
  %x = quant.dcast %arg0 : tensor<1x4x!t> to tensor<1x4xf32>
  // expected-remark @+1 {{runs in float: the lowering 'centered_float' needs inputs with the output's qparams}}
  %y = qfx.composite "torch.nn.functional.interpolate" (%x) attributes {composite_attributes = {align_corners = false, mode = "bilinear"}} : (tensor<1x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%v: tensor<1x4xf32>):
    qfx.yield %v : tensor<1x4xf32>
  }
  %q = quant.qcast %y : tensor<1x4xf32> to tensor<1x4x!u>
  return %q : tensor<1x4x!u>
}
