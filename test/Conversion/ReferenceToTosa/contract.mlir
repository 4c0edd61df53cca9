// qfx-lower writes each quantized contraction as one qfx.contract (the
// typed op qfx-codegen takes), with its requantization as the epilogue;
// qfx-lower's emit-tosa option expands it (qfx-lower.mlir checks that form).
// RUN: quant-opt %s --qfx-lower --split-input-file | FileCheck %s
// RUN: quant-opt %s --qfx-lower=requantization=integer --split-input-file | FileCheck %s --check-prefix=INT
// RUN: quant-opt %s --qfx-lower=requantization=qnnpack --split-input-file | FileCheck %s --check-prefix=QNN

// qfx-lower writes a quantized conv2d as one qfx.contract: the int8-domain
// input and constant weight, the input zero point (130 - 128), and PyTorch's
// onednn requantization as the epilogue: the bias in accumulator units
// {1.0, -2.0} * (1 / 0.5) * (1 / {0.25, 0.5}) = {8, -8}, the multipliers
// {0.125, 0.25}, the u8 zero point 10 added in float, the ReLU's bounds
// (from the zero point) and the int8 domain's -128 after rounding.
// CHECK-LABEL: func.func @conv_relu
// CHECK: %[[W:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}1, 2, 3]]], {{\[\[\[}}-4, 5, -6]]]]> : tensor<2x1x1x3xi8>}>
// CHECK: qfx.contract conv2d %{{.*}}, %[[W]] {dilation = array<i64: 1, 1>, epilogue = #qfx.requantize<bias = [8.000000e+00, -8.000000e+00], multipliers = [1.250000e-01, 2.500000e-01], zero_point = 1.000000e+01, min = 1.000000e+01, max = 2.550000e+02, output_zp = -128>, input_zp = 2 : i64, pad = array<i64: 0, 0, 0, 0>, qfx.quantized = !quant.uniform<i8:f32, 1.000000e+00:-118>, stride = array<i64: 1, 1>} : (tensor<1x4x4x3xi8>, tensor<2x1x1x3xi8>) -> tensor<1x4x4x2xi8>
// requantization=integer: the bias with 8 fraction bits in the epilogue,
// tosa.rescale's per-channel multipliers and shifts, the ReLU's bounds.
// INT-LABEL: func.func @conv_relu
// INT: qfx.contract conv2d {{.*}}epilogue = #qfx.rescale<fraction_bits = 8, bias = [2048, -2048], multipliers = [1073741824, 1073741824], shifts = [41, 40], output_zp = -118, min = -118, max = 127>
// requantization=qnnpack: the bias quantized into the accumulator (a bias
// operand), the multipliers in float32, the zero point after rounding.
// QNN-LABEL: func.func @conv_relu
// QNN: %[[B:.*]] = "tosa.const"() <{values = dense<[8, -8]> : tensor<2xi32>}>
// QNN: qfx.contract conv2d %{{.*}}, %{{.*}} bias(%[[B]]) {{.*}}epilogue = #qfx.requantize<bias = [], multipliers = [1.250000e-01, 2.500000e-01], zero_point = 0.000000e+00, min = 0.000000e+00, max = 2.450000e+02, output_zp = -118>
!in = !quant.uniform<u8:f32, 0.5:130>
!out = !quant.uniform<u8:f32, 1.0:10>
!w = !quant.uniform<i8:f32:0, {0.25, 0.5}>

func.func @conv_relu(%arg0: tensor<1x4x4x3x!in>) -> tensor<1x4x4x2x!out> {
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

// -----

// A conv3d is a conv2d over its depth taps side by side, reshaped back.
// CHECK-LABEL: func.func @conv3d
// CHECK: %[[STACKED:.*]] = tosa.reshape %{{.*}} -> tensor<2x3x3x3xi8>
// CHECK: %[[C:.*]] = qfx.contract conv2d %[[STACKED]], %{{.*}} {{.*}} : (tensor<2x3x3x3xi8>, tensor<2x1x1x3xi8>) -> tensor<2x3x3x2xi8>
// CHECK: tosa.reshape %[[C]], %{{.*}} {qfx.quantized = {{.*}}} : (tensor<2x3x3x2xi8>, !tosa.shape<5>) -> tensor<1x2x3x3x2xi8>
!in = !quant.uniform<u8:f32, 0.5:130>
!out = !quant.uniform<u8:f32, 1.0:10>
!w = !quant.uniform<i8:f32, 0.25>

func.func @conv3d(%arg0: tensor<1x2x3x3x3x!in>) -> tensor<1x2x3x3x2x!out> {
  %x = quant.dcast %arg0 : tensor<1x2x3x3x3x!in> to tensor<1x2x3x3x3xf32>
  %wi = "tosa.const"() <{values = dense<[[[[[1, 2, 3]]]], [[[[-4, 5, -6]]]]]> : tensor<2x1x1x1x3xi8>}> : () -> tensor<2x1x1x1x3xi8>
  %ws = quant.scast %wi : tensor<2x1x1x1x3xi8> to tensor<2x1x1x1x3x!w>
  %w = quant.dcast %ws : tensor<2x1x1x1x3x!w> to tensor<2x1x1x1x3xf32>
  %b = "tosa.const"() <{values = dense<[1.0, -2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv3d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1, 1>, pad = array<i64: 0, 0, 0, 0, 0, 0>, stride = array<i64: 1, 1, 1>} : (tensor<1x2x3x3x3xf32>, tensor<2x1x1x1x3xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x3x3x2xf32>
  %q = quant.qcast %c : tensor<1x2x3x3x2xf32> to tensor<1x2x3x3x2x!out>
  return %q : tensor<1x2x3x3x2x!out>
}

// -----

// A Linear: a matmul contraction; its bias in the float epilogue.
// CHECK-LABEL: func.func @linear
// CHECK: qfx.contract matmul %{{.*}}, %{{.*}} {epilogue = #qfx.requantize<bias = [8.000000e+00, 0.000000e+00, -8.000000e+00], multipliers = [2.500000e-01], zero_point = 4.000000e+00, min = -1.280000e+02, max = 1.270000e+02, output_zp = 0>, input_zp = -3 : i64, {{.*}}} : (tensor<1x2x4xi8>, tensor<1x4x3xi8>) -> tensor<1x2x3xi8>
!in = !quant.uniform<i8:f32, 0.5:-3>
!out = !quant.uniform<i8:f32, 0.25:4>
!w = !quant.uniform<i8:f32, 0.125>

func.func @linear(%arg0: tensor<2x4x!in>) -> tensor<1x2x3x!out> {
  %x0 = quant.dcast %arg0 : tensor<2x4x!in> to tensor<2x4xf32>
  %shape = tosa.const_shape {values = dense<[1, 2, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %x = tosa.reshape %x0, %shape : (tensor<2x4xf32>, !tosa.shape<3>) -> tensor<1x2x4xf32>
  %wi = "tosa.const"() <{values = dense<1> : tensor<1x4x3xi8>}> : () -> tensor<1x4x3xi8>
  %ws = quant.scast %wi : tensor<1x4x3xi8> to tensor<1x4x3x!w>
  %w = quant.dcast %ws : tensor<1x4x3x!w> to tensor<1x4x3xf32>
  %b = "tosa.const"() <{values = dense<[[[0.5, 0.0, -0.5]]]> : tensor<1x1x3xf32>}> : () -> tensor<1x1x3xf32>
  %y = qfx.fused "linear"(%x, %w, %b) : (tensor<1x2x4xf32>, tensor<1x4x3xf32>, tensor<1x1x3xf32>) -> tensor<1x2x3xf32> {
  ^bb0(%a: tensor<1x2x4xf32>, %aw: tensor<1x4x3xf32>, %ab: tensor<1x1x3xf32>):
    %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %m = tosa.matmul %a, %aw, %zp, %zp : (tensor<1x2x4xf32>, tensor<1x4x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x3xf32>
    %s = tosa.add %m, %ab : (tensor<1x2x3xf32>, tensor<1x1x3xf32>) -> tensor<1x2x3xf32>
    qfx.yield %s : tensor<1x2x3xf32>
  }
  %q = quant.qcast %y : tensor<1x2x3xf32> to tensor<1x2x3x!out>
  return %q : tensor<1x2x3x!out>
}

// -----

// An average pool's window sums are a depthwise contraction of ones: the
// int32 sums (PyTorch's rounding division follows). (Into other qparams:
// own-observer.mlir.)
// CHECK-LABEL: func.func @pools
// CHECK: qfx.contract depthwise_conv2d %{{.*}}, %{{.*}} {dilation = array<i64: 1, 1>, input_zp = 3 : i64, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x4x4x2xi8>, tensor<2x2x2x1xi8>) -> tensor<1x2x2x2xi32>
!t = !quant.uniform<i8:f32, 0.5:3>

func.func @pools(%arg0: tensor<1x4x4x2x!t>) -> (tensor<1x2x2x2x!t>, tensor<1x2x2x2x!t>) {
  %x = quant.dcast %arg0 : tensor<1x4x4x2x!t> to tensor<1x4x4x2xf32>
  %m = tosa.max_pool2d %x {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32>
  %qm = quant.qcast %m : tensor<1x2x2x2xf32> to tensor<1x2x2x2x!t>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %a = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x4x4x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x2xf32>
  %qa = quant.qcast %a : tensor<1x2x2x2xf32> to tensor<1x2x2x2x!t>
  return %qm, %qa : tensor<1x2x2x2x!t>, tensor<1x2x2x2x!t>
}

// -----

// A dynamic Linear: the int32 sums of the run-time-quantized input; the
// zero point's term and PyTorch's float epilogue follow as TOSA.
// CHECK-LABEL: func.func @dynamic_linear
// CHECK: %[[SUMS:.*]] = qfx.contract matmul %{{.*}}, %{{.*}} : (tensor<1x2x2xi8>, tensor<1x2x2xi8>) -> tensor<1x2x2xi32>
// CHECK: tosa.sub %[[SUMS]]
!w = !quant.uniform<i8:f32:2, {0.5, 0.25}>

func.func @dynamic_linear(%x: tensor<1x2x2xf32>) -> tensor<1x2x2xf32> {
  %s, %z = qfx.choose_qparams %x range [0, 255] : tensor<1x2x2xf32> -> tensor<f32>, tensor<i32>
  %q = qfx.quantize %x, %s, %z : (tensor<1x2x2xf32>, tensor<f32>, tensor<i32>) -> tensor<1x2x2xui8>
  %d = qfx.dequantize %q, %s, %z : (tensor<1x2x2xui8>, tensor<f32>, tensor<i32>) -> tensor<1x2x2xf32>
  %wi = "tosa.const"() <{values = dense<[[[1, -1], [2, 4]]]> : tensor<1x2x2xi8>}> : () -> tensor<1x2x2xi8>
  %ws = quant.scast %wi : tensor<1x2x2xi8> to tensor<1x2x2x!w>
  %w = quant.dcast %ws : tensor<1x2x2x!w> to tensor<1x2x2xf32>
  %b = "tosa.const"() <{values = dense<[[[0.5, -0.5]]]> : tensor<1x1x2xf32>}> : () -> tensor<1x1x2xf32>
  %y = qfx.fused "linear_relu"(%d, %w, %b) : (tensor<1x2x2xf32>, tensor<1x2x2xf32>, tensor<1x1x2xf32>) -> tensor<1x2x2xf32> {
  ^bb0(%a: tensor<1x2x2xf32>, %aw: tensor<1x2x2xf32>, %ab: tensor<1x1x2xf32>):
    %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %m = tosa.matmul %a, %aw, %zp, %zp : (tensor<1x2x2xf32>, tensor<1x2x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2xf32>
    %r = tosa.add %m, %ab : (tensor<1x2x2xf32>, tensor<1x1x2xf32>) -> tensor<1x2x2xf32>
    %c = tosa.clamp %r {max_val = 3.40282347E+38 : f32, min_val = 0.0 : f32} : (tensor<1x2x2xf32>) -> tensor<1x2x2xf32>
    qfx.yield %c : tensor<1x2x2xf32>
  }
  return %y : tensor<1x2x2xf32>
}
