// qfx-contract-to-tosa expands each qfx.contract into the TOSA op of its
// kind and its epilogue's arithmetic; the result is valid TOSA.
// RUN: quant-opt %s --qfx-contract-to-tosa --split-input-file | FileCheck %s
// RUN: quant-opt %s --qfx-contract-to-tosa --split-input-file | quant-opt --split-input-file --tosa-attach-target=profiles=pro_int,pro_fp --tosa-validate -o /dev/null

// TOSA's integer requantization: the fraction bits, the bias, tosa.rescale,
// the clamp.
// CHECK-LABEL: func.func @rescale
// CHECK-DAG: %[[AZP:.*]] = "tosa.const"() <{values = dense<5> : tensor<1xi8>}>
// CHECK: %[[ACC:.*]] = tosa.matmul %arg0, %arg1, %[[AZP]], %{{.*}} : {{.*}} -> tensor<1x8x4xi32>
// CHECK: %[[FOUR:.*]] = "tosa.const"() <{values = dense<4> : tensor<1x1x1xi32>}>
// CHECK: %[[SCALED:.*]] = tosa.mul %[[ACC]], %[[FOUR]]
// CHECK: %[[BIAS:.*]] = "tosa.const"() <{values = dense<{{\[\[\[}}1, 2, 3, 4]]]> : tensor<1x1x4xi32>}>
// CHECK: %[[BIASED:.*]] = tosa.add %[[SCALED]], %[[BIAS]]
// CHECK: %[[R:.*]] = tosa.rescale %[[BIASED]], {{.*}} {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true}
// CHECK: %[[C:.*]] = tosa.clamp %[[R]] {max_val = 100 : i8, min_val = -128 : i8}
// CHECK: return %[[C]]
func.func @rescale(%x: tensor<1x8x16xi8>, %w: tensor<1x16x4xi8>) -> tensor<1x8x4xi8> {
  %y = qfx.contract matmul %x, %w {input_zp = 5 : i64, epilogue = #qfx.rescale<fraction_bits = 2, bias = [1, 2, 3, 4], multipliers = [1518500250], shifts = [38], output_zp = -3, min = -128, max = 100>} : (tensor<1x8x16xi8>, tensor<1x16x4xi8>) -> tensor<1x8x4xi8>
  return %y : tensor<1x8x4xi8>
}

// -----

// PyTorch's float requantization, its integer zero point after rounding; the
// convolution takes the accumulator bias.
// CHECK-LABEL: func.func @requantize
// CHECK: %[[ACC:.*]] = tosa.conv2d %arg0, %arg1, %arg2, {{.*}} {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>}
// CHECK: %[[F:.*]] = tosa.cast %[[ACC]] : (tensor<1x8x8x4xi32>) -> tensor<1x8x8x4xf32>
// CHECK: "tosa.const"() <{values = dense<[{{\[\[\[}}5.000000e-01, -1.250000e+00, 0.000000e+00, 2.000000e+00]]]]> : tensor<1x1x1x4xf32>}>
// CHECK: %[[B:.*]] = tosa.add %[[F]]
// CHECK: %[[M:.*]] = tosa.mul %[[B]]
// CHECK: %[[Z:.*]] = tosa.add %[[M]]
// CHECK: %[[C:.*]] = tosa.clamp %[[Z]] {max_val = 2.550000e+02 : f32, min_val = 0.000000e+00 : f32}
// CHECK: %[[I:.*]] = tosa.cast %[[C]] : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xi32>
// CHECK: "tosa.const"() <{values = dense<-128> : tensor<1x1x1x1xi32>}>
// CHECK: %[[D:.*]] = tosa.add %[[I]]
// CHECK: tosa.cast %[[D]] : (tensor<1x8x8x4xi32>) -> tensor<1x8x8x4xi8>
func.func @requantize(%x: tensor<1x8x8x3xi8>, %w: tensor<4x3x3x3xi8>, %b: tensor<4xi32>) -> tensor<1x8x8x4xi8> {
  %y = qfx.contract conv2d %x, %w bias(%b) {input_zp = -3 : i64, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, epilogue = #qfx.requantize<bias = [0.5, -1.25, 0.0, 2.0], multipliers = [0.0123], zero_point = 128.0, min = 0.0, max = 255.0, output_zp = -128>} : (tensor<1x8x8x3xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>) -> tensor<1x8x8x4xi8>
  return %y : tensor<1x8x8x4xi8>
}

// -----

// No epilogue: the int32 sums; a matmul's bias an add (a constant one as a
// constant of the sums' rank); float contractions with float zero points.
// CHECK-LABEL: func.func @sums
// CHECK: %[[ACC:.*]] = tosa.matmul {{.*}} -> tensor<1x8x4xi32>
// CHECK: %[[B:.*]] = "tosa.const"() <{values = dense<{{\[\[\[}}1, 2, 3, 4]]]> : tensor<1x1x4xi32>}>
// CHECK: tosa.add %[[ACC]], %[[B]]
// CHECK: tosa.depthwise_conv2d {{.*}} {acc_type = i32, {{.*}}} {{.*}} -> tensor<1x8x8x6xi32>
// CHECK: "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}>
// CHECK: tosa.transpose_conv2d {{.*}} {acc_type = f32, out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>}
func.func @sums(%x: tensor<1x8x16xi8>, %w: tensor<1x16x4xi8>, %i: tensor<1x8x8x3xi8>, %d: tensor<3x3x3x2xi8>,
                %f: tensor<1x4x4x3xf32>, %t: tensor<2x3x3x3xf32>) -> (tensor<1x8x4xi32>, tensor<1x8x8x6xi32>, tensor<1x9x9x2xf32>) {
  %b = "tosa.const"() <{values = dense<[1, 2, 3, 4]> : tensor<4xi32>}> : () -> tensor<4xi32>
  %0 = qfx.contract matmul %x, %w bias(%b) : (tensor<1x8x16xi8>, tensor<1x16x4xi8>, tensor<4xi32>) -> tensor<1x8x4xi32>
  %1 = qfx.contract depthwise_conv2d %i, %d {pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x3xi8>, tensor<3x3x3x2xi8>) -> tensor<1x8x8x6xi32>
  %2 = qfx.contract transpose_conv2d %f, %t {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x4x4x3xf32>, tensor<2x3x3x3xf32>) -> tensor<1x9x9x2xf32>
  return %0, %1, %2 : tensor<1x8x4xi32>, tensor<1x8x8x6xi32>, tensor<1x9x9x2xf32>
}
