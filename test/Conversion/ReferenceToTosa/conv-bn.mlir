// A conv + batch norm pattern (qfx-fuse's conv2d_bn, after PyTorch's fuser
// folded another batch norm into the conv) is PyTorch's reference model:
// its input dequantized, the conv in float on the dequantized weight and
// the float bias, the batch norm in float, the result quantized as
// quantize_per_tensor.
// RUN: quant-opt %s --qfx-lower --verify-diagnostics | FileCheck %s

!in = !quant.uniform<u8:f32, 0.5:130>
!w = !quant.uniform<i8:f32:0, {0.25, 0.5}>
!out = !quant.uniform<u8:f32, 1.0:10>

// CHECK-LABEL: func.func @conv_bn
// CHECK-DAG: %[[W:.*]] = quant.dcast %{{.*}} : tensor<2x1x1x3x!quant.uniform<i8:f32:0, {2.500000e-01,5.000000e-01}>> to tensor<2x1x1x3xf32>
// CHECK-DAG: %[[B:.*]] = "tosa.const"() <{values = dense<[1.000000e+00, -2.000000e+00]> : tensor<2xf32>}>
// CHECK: %[[X:.*]] = tosa.mul
// CHECK: %[[C:.*]] = tosa.conv2d %[[X]], %[[W]], %[[B]]
// CHECK-SAME: -> tensor<1x4x4x2xf32>
// CHECK: %[[BN:.*]] = qfx.composite "torch.nn.BatchNorm2d"(%[[C]])
// CHECK: %[[INV:.*]] = "tosa.const"() <{values = dense<1.000000e+00> : tensor<1x1x1x1xf32>}>
// CHECK: tosa.mul %[[BN]], %[[INV]]
// CHECK-NOT: qfx.fused
// CHECK: quant.scast {{.*}} to tensor<1x4x4x2x!quant.uniform<u8:f32, 1.000000e+00:10>>
func.func @conv_bn(%arg0: tensor<1x4x4x3x!in>) -> tensor<1x4x4x2x!out> {
  %x = quant.dcast %arg0 : tensor<1x4x4x3x!in> to tensor<1x4x4x3xf32>
  %wi = "tosa.const"() <{values = dense<[[[[1, 2, 3]]], [[[-4, 5, -6]]]]> : tensor<2x1x1x3xi8>}> : () -> tensor<2x1x1x3xi8>
  %ws = quant.scast %wi : tensor<2x1x1x3xi8> to tensor<2x1x1x3x!w>
  %w = quant.dcast %ws : tensor<2x1x1x3x!w> to tensor<2x1x1x3xf32>
  %b = "tosa.const"() <{values = dense<[1.0, -2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %y = qfx.fused "conv2d_bn"(%x, %w, %b) : (tensor<1x4x4x3xf32>, tensor<2x1x1x3xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32> {
  ^bb0(%a: tensor<1x4x4x3xf32>, %aw: tensor<2x1x1x3xf32>, %ab: tensor<2xf32>):
    %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %c = tosa.conv2d %a, %aw, %ab, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x3xf32>, tensor<2x1x1x3xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
    %bn = qfx.composite "torch.nn.BatchNorm2d" (%c) attributes {composite_attributes = {axis = 3 : i64, eps = 0.0 : f32, running_mean = dense<0.0> : tensor<2xf32>, running_var = dense<1.0> : tensor<2xf32>}} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
    ^bb0(%v: tensor<1x4x4x2xf32>):
      %s = "tosa.const"() <{values = dense<[[[[2.0, 3.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
      %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
      %m = tosa.mul %v, %s, %sh : (tensor<1x4x4x2xf32>, tensor<1x1x1x2xf32>, tensor<1xi8>) -> tensor<1x4x4x2xf32>
      qfx.yield %m : tensor<1x4x4x2xf32>
    }
    qfx.yield %bn : tensor<1x4x4x2xf32>
  }
  %q = quant.qcast %y : tensor<1x4x4x2xf32> to tensor<1x4x4x2x!out>
  return %q : tensor<1x4x4x2x!out>
}
