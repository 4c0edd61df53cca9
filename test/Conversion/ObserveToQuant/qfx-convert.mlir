// RUN: quant-opt %s --qfx-convert --split-input-file | FileCheck %s

// An activation observer becomes qcast + dcast with its qparams
// (min -1, max 3, quint8 affine: scale 4/255, zero point 64).
// CHECK-LABEL: func.func @activation
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[Q:.*]] = quant.qcast %[[X]] : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 0.015686275437474251:64>>
// CHECK: %[[D:.*]] = quant.dcast %[[Q]] : tensor<4x!quant.uniform<u8:f32, 0.015686275437474251:64>> to tensor<4xf32>
// CHECK: return %[[D]]
func.func @activation(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = qfx.observe %x id 0 spec(#qfx.observer<minmax>) stats(#qfx.minmax<min = -1.0, max = 3.0>) : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A weight is quantized now, per channel, as torch.quantize_per_channel does
// (values from torch): scales 1/127.5 and 4/127.5; -4 * float(1 / scale) is
// -127.49999, so it rounds to -127, not -128. A weight observer without
// statistics observes its constant here, as PyTorch's convert does.
// The float constant is gone once nothing reads it.
// CHECK-LABEL: func.func @weight
// CHECK-NOT: xf32>}> : () -> tensor<2x3xf32>
// CHECK: %[[W:.*]] = "tosa.const"() <{values = dense<{{\[\[}}127, -64, 32], [64, 32, -127]]> : tensor<2x3xi8>}> : () -> tensor<2x3xi8>
// CHECK: %[[S:.*]] = quant.scast %[[W]] : tensor<2x3xi8> to tensor<2x3x!quant.uniform<i8:f32:0, {0.0078431377187371254,0.031372550874948502}>>
// CHECK: %[[D:.*]] = quant.dcast %[[S]]
// CHECK: return %[[D]]
func.func @weight() -> tensor<2x3xf32> {
  %w = "tosa.const"() <{values = dense<[[1.0, -0.5, 0.25], [2.0, 1.0, -4.0]]> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %0 = qfx.observe %w id 0 spec(#qfx.observer<per_channel_minmax, dtype = qint8, qscheme = per_channel_symmetric>) : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Observers that share an id share their type; fixed qparams come from the
// spec; reuse_input and float32 placeholders disappear; float16 observers
// round-trip through f16.
// CHECK-LABEL: func.func @kinds
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[Q0:.*]] = quant.qcast %[[X]] : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.031372550874948502>>
// CHECK: %[[D0:.*]] = quant.dcast %[[Q0]]
// CHECK: %[[M:.*]] = tosa.maximum %[[D0]], %[[D0]]
// CHECK: %[[Q1:.*]] = quant.qcast %[[M]] : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.031372550874948502>>
// CHECK: %[[D1:.*]] = quant.dcast %[[Q1]]
// CHECK: %[[SIG:.*]] = tosa.sigmoid %[[D1]]
// CHECK: %[[Q2:.*]] = quant.qcast %[[SIG]] : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 3.906250e-03>>
// CHECK: %[[D2:.*]] = quant.dcast %[[Q2]]
// CHECK: %[[H:.*]] = tosa.cast %[[D2]] : (tensor<4xf32>) -> tensor<4xf16>
// CHECK: %[[F:.*]] = tosa.cast %[[H]] : (tensor<4xf16>) -> tensor<4xf32>
// CHECK: return %[[F]]
func.func @kinds(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = qfx.observe %x id 5 spec(#qfx.observer<minmax, dtype = qint8, qscheme = per_tensor_symmetric>) stats(#qfx.minmax<min = -2.0, max = 4.0>) : tensor<4xf32>
  %m = tosa.maximum %0, %0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = qfx.observe %m id 5 spec(#qfx.observer<minmax, dtype = qint8, qscheme = per_tensor_symmetric>) stats(#qfx.minmax<min = -2.0, max = 4.0>) : tensor<4xf32>
  %s = tosa.sigmoid %1 : (tensor<4xf32>) -> tensor<4xf32>
  %2 = qfx.observe %s id 6 spec(#qfx.observer<fixed_qparams, scale = 0.00390625, zero_point = 0>) : tensor<4xf32>
  %3 = qfx.observe %2 id 7 spec(#qfx.observer<reuse_input>) : tensor<4xf32>
  %4 = qfx.observe %3 id 8 spec(#qfx.observer<placeholder>) : tensor<4xf32>
  %5 = qfx.observe %4 id 9 spec(#qfx.observer<placeholder, dtype = float16>) : tensor<4xf32>
  return %5 : tensor<4xf32>
}

// -----

// A placeholder with compute_dtype is a dynamically quantized activation:
// quantize_per_tensor_dynamic with x86's reduced range (quint8: [0, 127])
// and PyTorch's double scale (oneDNN's kernels take its reciprocal).
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>)
// CHECK: %[[S:.*]], %[[Z:.*]] = qfx.choose_qparams %[[X]] range [0, 127] : tensor<2x4xf32> -> tensor<f64>, tensor<i32>
// CHECK: %[[Q:.*]] = qfx.quantize %[[X]], %[[S]], %[[Z]] : (tensor<2x4xf32>, tensor<f64>, tensor<i32>) -> tensor<2x4xui8>
// CHECK: %[[D:.*]] = qfx.dequantize %[[Q]], %[[S]], %[[Z]] : (tensor<2x4xui8>, tensor<f64>, tensor<i32>) -> tensor<2x4xf32>
// CHECK: return %[[D]]
func.func @dynamic(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = qfx.observe %x id 0 spec(#qfx.observer<placeholder, dtype = quint8, compute_dtype = quint8>) : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// A weight that something else also reads keeps its float constant.
// CHECK-LABEL: func.func @shared_weight
// CHECK: %[[F:.*]] = "tosa.const"() <{values = dense<{{.*}}> : tensor<2xf32>}>
// CHECK: "tosa.const"() <{values = dense<{{.*}}> : tensor<2xi8>}>
// CHECK: return %{{.*}}, %[[F]]
func.func @shared_weight() -> (tensor<2xf32>, tensor<2xf32>) {
  %w = "tosa.const"() <{values = dense<[1.0, -2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %0 = qfx.observe %w id 0 spec(#qfx.observer<minmax, dtype = qint8, qscheme = per_tensor_symmetric>) : tensor<2xf32>
  return %0, %w : tensor<2xf32>, tensor<2xf32>
}

// -----

// A weight with float zero points (per_channel_affine_float_qparams, here
// PyTorch's 4-bit weight-only default): stored as 4-bit integers (the i4
// constant prints 8 and 15 as -8 and -1), dequantized by TOSA ops as aten
// does, (float(q) - zero_point) * scale per channel. PyTorch's qparams: scales
// 0.2, 0.2, zero points 0.0 (printed -0.0, as -min / scale), 5.0; values
// 0, 8, 15 and 0, 6, 15 (1.5 / 0.2 = 7.5 rounds to even).
// CHECK-LABEL: func.func @weight_float_qparams
// CHECK: %[[Q:.*]] = "tosa.const"() <{values = dense<{{\[\[}}0, -8, -1], [0, 6, -1]]> : tensor<2x3xi4>}>
// CHECK: %[[I:.*]] = tosa.cast %[[Q]] : (tensor<2x3xi4>) -> tensor<2x3xi32>
// CHECK: %[[M:.*]] = "tosa.const"() <{values = dense<15> : tensor<1x1xi32>}>
// CHECK: %[[U:.*]] = tosa.bitwise_and %[[I]], %[[M]]
// CHECK: %[[F:.*]] = tosa.cast %[[U]] : (tensor<2x3xi32>) -> tensor<2x3xf32>
// CHECK: %[[Z:.*]] = "tosa.const"() <{values = dense<{{\[\[}}-0.000000e+00], [5.000000e+00]]> : tensor<2x1xf32>}>
// CHECK: %[[D:.*]] = tosa.sub %[[F]], %[[Z]]
// CHECK: %[[S:.*]] = "tosa.const"() <{values = dense<2.000000e-01> : tensor<2x1xf32>}>
// CHECK: %[[R:.*]] = tosa.mul %[[D]], %[[S]]
// CHECK: return %[[R]]
func.func @weight_float_qparams() -> tensor<2x3xf32> {
  %w = "tosa.const"() <{values = dense<[[0.0, 1.5, 3.0], [-1.0, 0.1, 2.0]]> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %0 = qfx.observe %w id 0 spec(#qfx.observer<per_channel_minmax, dtype = quint4x2, qscheme = per_channel_affine_float_qparams>) : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
