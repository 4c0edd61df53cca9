// A layer norm composite lowers to PyTorch's quantized layer norm kernel
// (quantized_normalize_kernel): int32 sums of the stored integers and of
// their squares per group, mean and variance from them in float (quotients
// and fmas computed in double and rounded), s = x_scale * rsqrt(var *
// x_scale^2 + eps) in double, then fma((q - zp) - (m - zp)) * s, gamma,
// beta) per element, quantized with 1 / y_scale. Bit for bit against
// PyTorch: python/tests/test_quantize_fx.py.
// RUN: quant-opt %s --qfx-lower="backend=onednn" --split-input-file --verify-diagnostics | FileCheck %s

!in = !quant.uniform<u8:f32, 0.05:120>
!out = !quant.uniform<u8:f32, 0.02:130>

// CHECK-LABEL: func.func @layer_norm
// u8 storage: the int8 domain plus 128.
// CHECK: %[[Q:.*]] = tosa.add %{{.*}}, %{{.*}} : (tensor<2x4xi32>, tensor<1x1xi32>) -> tensor<2x4xi32>
// CHECK: %[[SQ:.*]] = tosa.mul %[[Q]], %[[Q]]
// CHECK: %[[SUM:.*]] = tosa.reduce_sum %[[Q]] {axis = 1 : i32} : (tensor<2x4xi32>) -> tensor<2x1xi32>
// CHECK: %[[SUMSQ:.*]] = tosa.reduce_sum %[[SQ]] {axis = 1 : i32}
// CHECK: "tosa.const"() <{values = dense<2.500000e-01> : tensor<1x1xf64>}>
// CHECK: tosa.sub {{.*}} : (tensor<2x1xf64>, tensor<2x1xf64>) -> tensor<2x1xf64>
// CHECK: tosa.maximum
// CHECK: "tosa.const"() <{values = dense<1.000000e-05> : tensor<1x1xf64>}>
// CHECK: %[[RSQRT:.*]] = tosa.rsqrt {{.*}} : (tensor<2x1xf64>) -> tensor<2x1xf64>
// CHECK: tosa.mul %[[RSQRT]]
// The affine fma in double, rounded once.
// CHECK: %[[PRODUCT:.*]] = tosa.mul {{.*}} : (tensor<2x4xf64>, tensor<1x4xf64>, tensor<1xi8>) -> tensor<2x4xf64>
// CHECK: %[[FMA:.*]] = tosa.add %[[PRODUCT]], {{.*}} : (tensor<2x4xf64>, tensor<1x4xf64>) -> tensor<2x4xf64>
// CHECK: tosa.cast %[[FMA]] : (tensor<2x4xf64>) -> tensor<2x4xf32>
// CHECK: "tosa.const"() <{values = dense<5.000000e+01> : tensor<1x1xf32>}>
// CHECK-NOT: qfx.composite
func.func @layer_norm(%arg0: tensor<2x4x!in>) -> tensor<2x4x!out> {
  %x = quant.dcast %arg0 : tensor<2x4x!in> to tensor<2x4xf32>
  %y = qfx.composite "torch.nn.LayerNorm" (%x) attributes {composite_attributes = {axes = array<i64: 1>, eps = 1.0e-05 : f64, weight = dense<[[1.0, 0.5, 2.0, 1.5]]> : tensor<1x4xf32>, bias = dense<[[0.0, 0.25, -0.5, 1.0]]> : tensor<1x4xf32>}} : (tensor<2x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%v: tensor<2x4xf32>):
    // (The body is the float model's business; a stand-in here.)
    qfx.yield %v : tensor<2x4xf32>
  }
  %q = quant.qcast %y : tensor<2x4xf32> to tensor<2x4x!out>
  return %q : tensor<2x4x!out>
}

// -----

!in = !quant.uniform<u8:f32, 0.05:120>
!out = !quant.uniform<u8:f32, 0.02:130>

// Groups of more than 33025 elements (sums of squares past int32) stay float.
// CHECK-LABEL: func.func @large_groups
// CHECK: qfx.composite "torch.nn.LayerNorm"
func.func @large_groups(%arg0: tensor<1x33026x!in>) -> tensor<1x33026x!out> {
  %x = quant.dcast %arg0 : tensor<1x33026x!in> to tensor<1x33026xf32>
  // expected-remark @+1 {{runs in float: the normalization's groups have more than 33025 elements (their sums of squares overflow int32)}}
  %y = qfx.composite "torch.nn.LayerNorm" (%x) attributes {composite_attributes = {axes = array<i64: 1>, eps = 1.0e-05 : f64}} : (tensor<1x33026xf32>) -> tensor<1x33026xf32> {
  ^bb0(%v: tensor<1x33026xf32>):
    qfx.yield %v : tensor<1x33026xf32>
  }
  %q = quant.qcast %y : tensor<1x33026xf32> to tensor<1x33026x!out>
  return %q : tensor<1x33026x!out>
}

// -----

!in = !quant.uniform<u8:f32, 0.05:120>
!out = !quant.uniform<u8:f32, 0.02:130>

// A weight that does not broadcast along the normalized axis stays float.
// CHECK-LABEL: func.func @bad_weight
// CHECK: qfx.composite "torch.nn.LayerNorm"
func.func @bad_weight(%arg0: tensor<2x4x!in>) -> tensor<2x4x!out> {
  %x = quant.dcast %arg0 : tensor<2x4x!in> to tensor<2x4xf32>
  // expected-remark @+1 {{runs in float: the normalization's `weight` is not f32 of one value per normalized element (layer norm, shaped as the operand with 1 off the axes) or per channel}}
  %y = qfx.composite "torch.nn.LayerNorm" (%x) attributes {composite_attributes = {axes = array<i64: 1>, eps = 1.0e-05 : f64, weight = dense<1.0> : tensor<2x1xf32>}} : (tensor<2x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%v: tensor<2x4xf32>):
    qfx.yield %v : tensor<2x4xf32>
  }
  %q = quant.qcast %y : tensor<2x4xf32> to tensor<2x4x!out>
  return %q : tensor<2x4x!out>
}
