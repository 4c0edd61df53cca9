// qfx-tosa-to-contract writes a TOSA matmul, conv2d or depthwise_conv2d of
// int8 (to int32 sums) or float32 with constant zero points as qfx.contract;
// expanding it again gives the TOSA op back.
// RUN: quant-opt %s --qfx-tosa-to-contract --split-input-file | FileCheck %s
// RUN: quant-opt %s --qfx-tosa-to-contract --qfx-contract-to-tosa --split-input-file | FileCheck %s --check-prefix=BACK

// CHECK-LABEL: func.func @int8
// CHECK: qfx.contract matmul %arg0, %arg1 {input_zp = -7 : i64} : (tensor<1x8x16xi8>, tensor<1x16x4xi8>) -> tensor<1x8x4xi32>
// A bias of one value for all channels becomes one per channel.
// CHECK: %[[B:.*]] = "tosa.const"() <{values = dense<3> : tensor<4xi32>}>
// CHECK: qfx.contract conv2d %arg2, %arg3 bias(%[[B]]) {dilation = array<i64: 1, 1>, input_zp = 2 : i64, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>}
// BACK-LABEL: func.func @int8
// BACK: tosa.matmul
// BACK: tosa.conv2d
func.func @int8(%a: tensor<1x8x16xi8>, %w: tensor<1x16x4xi8>, %x: tensor<1x4x4x3xi8>, %k: tensor<4x1x1x3xi8>) -> (tensor<1x8x4xi32>, tensor<1x4x4x4xi32>) {
  %azp = "tosa.const"() <{values = dense<-7> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %xzp = "tosa.const"() <{values = dense<2> : tensor<1xi8>}> : () -> tensor<1xi8>
  %b = "tosa.const"() <{values = dense<3> : tensor<1xi32>}> : () -> tensor<1xi32>
  %0 = tosa.matmul %a, %w, %azp, %wzp : (tensor<1x8x16xi8>, tensor<1x16x4xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x4xi32>
  %1 = tosa.conv2d %x, %k, %b, %xzp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x3xi8>, tensor<4x1x1x3xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x4xi32>
  return %0, %1 : tensor<1x8x4xi32>, tensor<1x4x4x4xi32>
}

// -----

// CHECK-LABEL: func.func @float
// CHECK: qfx.contract depthwise_conv2d %arg0, %arg1 bias(%arg2) {dilation = array<i64: 1, 1>, pad = array<i64: 1, 0, 1, 0>, stride = array<i64: 2, 2>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x1xf32>, tensor<3xf32>) -> tensor<1x4x4x3xf32>
func.func @float(%x: tensor<1x8x8x3xf32>, %k: tensor<3x3x3x1xf32>, %b: tensor<3xf32>) -> tensor<1x4x4x3xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.depthwise_conv2d %x, %k, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 0, 1, 0>, stride = array<i64: 2, 2>} : (tensor<1x8x8x3xf32>, tensor<3x3x3x1xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x3xf32>
  return %0 : tensor<1x4x4x3xf32>
}

// -----

// Zero points that are not constants, and int8 sums kept in int8 (not a
// contraction qfx.contract has), stay.
// CHECK-LABEL: func.func @left
// CHECK-NOT: qfx.contract
func.func @left(%a: tensor<1x8x16xi8>, %w: tensor<1x16x4xi8>, %zp: tensor<1xi8>) -> tensor<1x8x4xi32> {
  %0 = tosa.matmul %a, %w, %zp, %zp : (tensor<1x8x16xi8>, tensor<1x16x4xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x4xi32>
  return %0 : tensor<1x8x4xi32>
}
