// RUN: quant-opt %s --qfx-lower --split-input-file --verify-diagnostics | FileCheck %s

// A pattern that cannot be lowered stays in reference form, with a remark
// that says why.

!t = !quant.uniform<i8:f32, 0.5:0>

// The result is also used as a float: the op cannot drop its float result.
// CHECK-LABEL: func.func @float_use
// CHECK: tosa.max_pool2d %{{.*}} : (tensor<1x2x2x1xf32>)
func.func @float_use(%arg0: tensor<1x2x2x1x!t>) -> (tensor<1x1x1x1x!t>, tensor<1x1x1x1xf32>) {
  %x = quant.dcast %arg0 : tensor<1x2x2x1x!t> to tensor<1x2x2x1xf32>
  // expected-remark @+1 {{runs in float: its result is used as a float}}
  %m = tosa.max_pool2d %x {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x2x2x1xf32>) -> tensor<1x1x1x1xf32>
  %q = quant.qcast %m : tensor<1x1x1x1xf32> to tensor<1x1x1x1x!t>
  return %q, %m : tensor<1x1x1x1x!t>, tensor<1x1x1x1xf32>
}

// -----

!t = !quant.uniform<i8:f32, 0.5:0>

// No backend pattern for tosa.sin.
// CHECK-LABEL: func.func @no_pattern
// CHECK: tosa.sin
func.func @no_pattern(%arg0: tensor<4x!t>) -> tensor<4x!t> {
  %x = quant.dcast %arg0 : tensor<4x!t> to tensor<4xf32>
  // expected-remark @+1 {{runs in float: backend 'x86' has no pattern for it}}
  %s = tosa.sin %x : (tensor<4xf32>) -> tensor<4xf32>
  %q = quant.qcast %s : tensor<4xf32> to tensor<4x!t>
  return %q : tensor<4x!t>
}

// -----

!t = !quant.uniform<i8:f32, 0.5:0>
!w = !quant.uniform<i8:f32:0, {0.5:0, 0.25:3}>

// TOSA takes one weight zero point.
// CHECK-LABEL: func.func @weight_zero_points
// CHECK: tosa.conv2d {{.*}} -> tensor<1x1x1x2xf32>
func.func @weight_zero_points(%arg0: tensor<1x1x1x1x!t>) -> tensor<1x1x1x2x!t> {
  %x = quant.dcast %arg0 : tensor<1x1x1x1x!t> to tensor<1x1x1x1xf32>
  %wi = "tosa.const"() <{values = dense<1> : tensor<2x1x1x1xi8>}> : () -> tensor<2x1x1x1xi8>
  %ws = quant.scast %wi : tensor<2x1x1x1xi8> to tensor<2x1x1x1x!w>
  %w = quant.dcast %ws : tensor<2x1x1x1x!w> to tensor<2x1x1x1xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // expected-remark @+1 {{runs in float: the weight's zero points differ between channels; TOSA takes one weight zero point}}
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x1x1x1xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x2xf32>
  %q = quant.qcast %c : tensor<1x1x1x2xf32> to tensor<1x1x1x2x!t>
  return %q : tensor<1x1x1x2x!t>
}

// -----

!t = !quant.uniform<i8:f32, 0.5:0>

// A weight that is not a constant (a conv's second input is an activation).
// CHECK-LABEL: func.func @activation_weight
func.func @activation_weight(%arg0: tensor<1x1x1x1x!t>, %w: tensor<1x1x1x1xf32>) -> tensor<1x1x1x1x!t> {
  %x = quant.dcast %arg0 : tensor<1x1x1x1x!t> to tensor<1x1x1x1xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // expected-remark @+1 {{runs in float: the weight is not a quantized constant}}
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x1xf32>
  %q = quant.qcast %c : tensor<1x1x1x1xf32> to tensor<1x1x1x1x!t>
  return %q : tensor<1x1x1x1x!t>
}

// -----

!t = !quant.uniform<i8:f32, 0.5:0>
!wide = !quant.uniform<i16:f32, 0.5:0>

// The output is not quantized to 8 bits.
func.func @wide_output(%arg0: tensor<4x!t>) -> tensor<4x!wide> {
  %x = quant.dcast %arg0 : tensor<4x!t> to tensor<4xf32>
  // expected-remark @+1 {{runs in float: its output is not quantized per tensor to 8 bits}}
  %s = tosa.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
  %q = quant.qcast %s : tensor<4xf32> to tensor<4x!wide>
  return %q : tensor<4x!wide>
}

// -----

!t = !quant.uniform<i8:f32, 0.5:0>

// A composite whose body is not elementwise on scalars (a constant that
// varies along two axes, not one value per channel) has no table: it stays
// float, and the remark names it.
// CHECK-LABEL: func.func @composite_not_elementwise
// CHECK: qfx.composite "torch.nn.Hardswish"
func.func @composite_not_elementwise(%arg0: tensor<2x2x!t>) -> tensor<2x2x!t> {
  %x = quant.dcast %arg0 : tensor<2x2x!t> to tensor<2x2xf32>
  // expected-remark @+1 {{runs in float: 'qfx.composite "torch.nn.Hardswish"' is not elementwise: it has no table lowering}}
  %h = qfx.composite "torch.nn.Hardswish" (%x) : (tensor<2x2xf32>) -> tensor<2x2xf32> {
  ^bb0(%a: tensor<2x2xf32>):
    %c = "tosa.const"() <{values = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
    %r = tosa.add %a, %c : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    qfx.yield %r : tensor<2x2xf32>
  }
  %q = quant.qcast %h : tensor<2x2xf32> to tensor<2x2x!t>
  return %q : tensor<2x2x!t>
}

// -----

!t = !quant.uniform<i8:f32, 0.5:0>

// A torch.mean composite whose axes attribute names no axis of its operand.
// CHECK-LABEL: func.func @mean_bad_axes
// CHECK: qfx.composite "torch.mean"
func.func @mean_bad_axes(%arg0: tensor<2x4x!t>) -> tensor<2x1x!t> {
  %x = quant.dcast %arg0 : tensor<2x4x!t> to tensor<2x4xf32>
  // expected-remark @+1 {{runs in float: torch.mean's axes must be distinct axes of its operand}}
  %m = qfx.composite "torch.mean" (%x) attributes {composite_attributes = {axes = array<i64: 2>, keepdim = true}} : (tensor<2x4xf32>) -> tensor<2x1xf32> {
  ^bb0(%a: tensor<2x4xf32>):
    %s = tosa.reduce_sum %a {axis = 1 : i32} : (tensor<2x4xf32>) -> tensor<2x1xf32>
    qfx.yield %s : tensor<2x1xf32>
  }
  %q = quant.qcast %m : tensor<2x1xf32> to tensor<2x1x!t>
  return %q : tensor<2x1x!t>
}

// -----

!t = !quant.uniform<i8:f32, 0.5:0>

// Axes that do not leave the result's elements.
// CHECK-LABEL: func.func @mean_wrong_result
func.func @mean_wrong_result(%arg0: tensor<2x4x!t>) -> tensor<2x2x!t> {
  %x = quant.dcast %arg0 : tensor<2x4x!t> to tensor<2x4xf32>
  // expected-remark @+1 {{runs in float: torch.mean's result does not have the elements its axes leave}}
  %m = qfx.composite "torch.mean" (%x) attributes {composite_attributes = {axes = array<i64: 1>, keepdim = true}} : (tensor<2x4xf32>) -> tensor<2x2xf32> {
  ^bb0(%a: tensor<2x4xf32>):
    %s = "tosa.const"() <{values = dense<0.0> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
    qfx.yield %s : tensor<2x2xf32>
  }
  %q = quant.qcast %m : tensor<2x2xf32> to tensor<2x2x!t>
  return %q : tensor<2x2x!t>
}

// -----

!t = !quant.uniform<i8:f32, 0.5:0>

// A running_var with one value for two channels.
// CHECK-LABEL: func.func @batch_norm_short_parameter
func.func @batch_norm_short_parameter(%arg0: tensor<1x2x2x2x!t>) -> tensor<1x2x2x2x!t> {
  %x = quant.dcast %arg0 : tensor<1x2x2x2x!t> to tensor<1x2x2x2xf32>
  // expected-remark @+1 {{runs in float: torch.nn.BatchNorm2d's 'running_var' must hold 2 float32 values}}
  %b = qfx.composite "torch.nn.BatchNorm2d" (%x) attributes {composite_attributes = {axis = 3 : i64, eps = 1.0e-05 : f32, running_mean = dense<0.0> : tensor<2xf32>, running_var = dense<1.0> : tensor<1xf32>}} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  ^bb0(%a: tensor<1x2x2x2xf32>):
    qfx.yield %a : tensor<1x2x2x2xf32>
  }
  %q = quant.qcast %b : tensor<1x2x2x2xf32> to tensor<1x2x2x2x!t>
  return %q : tensor<1x2x2x2x!t>
}

// -----

!t = !quant.uniform<i8:f32, 0.5>

// The kernel's own output qparams cannot reach a function result that
// declares the observer's.
// CHECK-LABEL: func.func @scalar_result_returned
// CHECK: tosa.add
func.func @scalar_result_returned(%arg0: tensor<4x!t>) -> tensor<4x!t> {
  %x = quant.dcast %arg0 : tensor<4x!t> to tensor<4xf32>
  %c = "tosa.const"() <{values = dense<2.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // expected-remark @+1 {{runs in float: its output qparams are the kernel's own, and 'func.return' uses the quantized result}}
  %y = tosa.add %x, %c : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  %q = quant.qcast %y : tensor<4xf32> to tensor<4x!t>
  return %q : tensor<4x!t>
}
