// RUN: quant-opt %s --qfx-lower=emit-tosa=true 2>/dev/null | FileCheck %s --check-prefix=ENGINE
// RUN: quant-opt %s --qfx-lower="requantization=onednn emit-tosa=true" 2>/dev/null | FileCheck %s --check-prefix=OPTION

// A module prepared for the x86 table under PyTorch's qnnpack engine
// (qfx-prepare{engine=qnnpack}: torch.backends.quantized.engine) requantizes
// as qnnpack does: the bias quantized to int32 in the convolution ({1.0,
// -2.0} / (0.5 * {0.25, 0.5}) = {8, -8}), not added in float as onednn's
// engine, the backend's, would. An explicit requantization wins.
// ENGINE-LABEL: func.func @conv
// ENGINE: %[[QBIAS:.*]] = "tosa.const"() <{values = dense<[8, -8]> : tensor<2xi32>}>
// ENGINE: tosa.conv2d %{{.*}}, %{{.*}}, %[[QBIAS]]
// OPTION-LABEL: func.func @conv
// OPTION: %[[NOBIAS:.*]] = "tosa.const"() <{values = dense<0> : tensor<2xi32>}>
// OPTION: tosa.conv2d %{{.*}}, %{{.*}}, %[[NOBIAS]]

!in = !quant.uniform<u8:f32, 0.5:130>
!out = !quant.uniform<u8:f32, 1.0:10>
!w = !quant.uniform<i8:f32:0, {0.25, 0.5}>
module attributes {qfx.backend = "x86", qfx.engine = "qnnpack"} {
  func.func @conv(%arg0: tensor<1x4x4x3x!in>) -> tensor<1x4x4x2x!out> {
    %x = quant.dcast %arg0 : tensor<1x4x4x3x!in> to tensor<1x4x4x3xf32>
    %wi = "tosa.const"() <{values = dense<[[[[1, 2, 3]]], [[[-4, 5, -6]]]]> : tensor<2x1x1x3xi8>}> : () -> tensor<2x1x1x3xi8>
    %ws = quant.scast %wi : tensor<2x1x1x3xi8> to tensor<2x1x1x3x!w>
    %w = quant.dcast %ws : tensor<2x1x1x3x!w> to tensor<2x1x1x3xf32>
    %b = "tosa.const"() <{values = dense<[1.0, -2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
    %y = qfx.fused "conv2d_relu"(%x, %w, %b) : (tensor<1x4x4x3xf32>, tensor<2x1x1x3xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32> {
    ^bb0(%a: tensor<1x4x4x3xf32>, %aw: tensor<2x1x1x3xf32>, %ab: tensor<2xf32>):
      %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
      %c = tosa.conv2d %a, %aw, %ab, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x3xf32>, tensor<2x1x1x3xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
      %r = tosa.clamp %c {max_val = 3.40282347E+38 : f32, min_val = 0.0 : f32} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
      qfx.yield %r : tensor<1x4x4x2xf32>
    }
    %q = quant.qcast %y : tensor<1x4x4x2xf32> to tensor<1x4x4x2x!out>
    return %q : tensor<1x4x4x2x!out>
  }
}

