// RUN: quant-opt %s --qfx-pack-weights=target=x86-64-avx512vnni --split-input-file | FileCheck %s
// RUN: quant-opt %s "--qfx-pack-weights=target=x86-64-avx512vnni fold=true" --split-input-file | FileCheck %s --check-prefix=FOLD
// RUN: quant-opt %s --qfx-pack-weights=target=x86-64-avx2 --split-input-file | FileCheck %s --check-prefix=AVX2
// RUN: quant-opt %s --qfx-pack-weights=target=aarch64-i8mm --split-input-file | FileCheck %s --check-prefix=I8MM
// RUN: quant-opt %s --qfx-pack-weights=target=x86-64-amx --split-input-file | FileCheck %s --check-prefix=AMX
// RUN: quant-opt %s --qfx-pack-weights=target=x86-64-avx512vnni --qfx-pack-weights=target=x86-64-avx512vnni --split-input-file | FileCheck %s --check-prefix=TWICE
// RUN: quant-opt %s --qfx-pack-weights=target=none --split-input-file | FileCheck %s --check-prefix=NONE

// A Linear's weight [1, K = 3, N = 2] as [N, K], K padded to a group of 4,
// packed into one 16-column block of one k group: [1, 1, 16 * 4]. The
// contraction keeps its weight and reads the packed operand.
// CHECK-LABEL: func.func @linear
// CHECK: %[[W:.*]] = "tosa.const"
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i8
// CHECK: %[[KN:.*]] = tensor.collapse_shape %[[W]] {{\[\[}}0, 1], [2]] : tensor<1x3x2xi8> into tensor<3x2xi8>
// CHECK: %[[NK:.*]] = linalg.transpose ins(%[[KN]] : tensor<3x2xi8>) outs(%{{.*}} : tensor<2x3xi8>) permutation = [1, 0]
// CHECK: %[[PADDED:.*]] = tensor.pad %[[NK]] low[0, 0] high[0, 1]
// CHECK: tensor.yield %[[ZERO]] : i8
// CHECK: } : tensor<2x3xi8> to tensor<2x4xi8>
// CHECK: %[[PACK:.*]] = linalg.pack %[[PADDED]] padding_value(%[[ZERO]] : i8) inner_dims_pos = [0, 1] inner_tiles = [16, 4] into %{{.*}} : tensor<2x4xi8> -> tensor<1x1x16x4xi8>
// CHECK: %[[PACKED:.*]] = tensor.collapse_shape %[[PACK]] {{\[\[}}0], [1], [2, 3]] : tensor<1x1x16x4xi8> into tensor<1x1x64xi8>
// CHECK: qfx.contract matmul %arg0, %[[W]] packed(%[[PACKED]]) {{.*}}weight_packing = #qfx.weight_packing<lanes = 16, group = 4, taps = 1, tap_groups = 1>} : (tensor<1x2x3xi8>, tensor<1x3x2xi8>, tensor<1x1x64xi8>) -> tensor<1x2x2xi8>
// Folded: column n's k values in lane n, 4 bytes each, zero beyond.
// FOLD-LABEL: func.func @linear
// FOLD-NOT: linalg.pack
// FOLD: %[[PACKED:.*]] = arith.constant dense<{{\[\[\[}}1, 3, 5, 0, 2, 4, 6, 0, 0, 0,
// FOLD-SAME: tensor<1x1x64xi8>
// FOLD-NOT: linalg
// FOLD: qfx.contract matmul %arg0, %{{.*}} packed(%[[PACKED]])
// AVX2 multiplies int16 pairs: the weight widened, 8 lanes of groups of 2.
// AVX2-LABEL: func.func @linear
// AVX2: arith.extsi %{{.*}} : tensor<2x3xi8> to tensor<2x3xi16>
// AVX2: linalg.pack {{.*}} inner_tiles = [8, 2] {{.*}} : tensor<2x4xi16> -> tensor<1x2x8x2xi16>
// AVX2: weight_packing = #qfx.weight_packing<lanes = 8, group = 2, taps = 1, tap_groups = 2>
// AMX reads 64 k values a tile row: K padded to 16 groups.
// AMX-LABEL: func.func @linear
// AMX: tensor.pad %{{.*}} low[0, 0] high[0, 61]
// AMX: weight_packing = #qfx.weight_packing<lanes = 16, group = 4, taps = 1, tap_groups = 16>} : (tensor<1x2x3xi8>, tensor<1x3x2xi8>, tensor<1x16x64xi8>)
// A second run leaves packed contractions alone.
// TWICE-LABEL: func.func @linear
// TWICE-COUNT-1: linalg.pack
// TWICE-NOT: linalg.pack
// NONE-LABEL: func.func @linear
// NONE-NOT: packed
func.func @linear(%a: tensor<1x2x3xi8>) -> tensor<1x2x2xi8> {
  %w = "tosa.const"() <{values = dense<[[[1, 2], [3, 4], [5, 6]]]> : tensor<1x3x2xi8>}> : () -> tensor<1x3x2xi8>
  %r = qfx.contract matmul %a, %w {input_zp = 2 : i64, epilogue = #qfx.rescale<fraction_bits = 0, bias = [100, -100], multipliers = [1073741824], shifts = [33], output_zp = -5, min = -128, max = 127>} : (tensor<1x2x3xi8>, tensor<1x3x2xi8>) -> tensor<1x2x2xi8>
  return %r : tensor<1x2x2xi8>
}

// -----

// A 3x3 convolution on 8 channels (whole groups): a run of C per tap, the
// dot-product kernels' direct convolution. 20 output channels: the second
// block padded.
// CHECK-LABEL: func.func @conv_taps
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3]] : tensor<20x3x3x8xi8> into tensor<20x9x8xi8>
// CHECK-NOT: tensor.pad
// CHECK: linalg.pack %{{.*}} padding_value(%{{.*}} : i8) inner_dims_pos = [0, 2] inner_tiles = [16, 4] into %{{.*}} : tensor<20x9x8xi8> -> tensor<2x9x2x16x4xi8>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3, 4]] : tensor<2x9x2x16x4xi8> into tensor<2x18x64xi8>
// CHECK: weight_packing = #qfx.weight_packing<lanes = 16, group = 4, taps = 9, tap_groups = 2>
// SMMLA and AMX read im2col rows: K = 72 as one run.
// I8MM-LABEL: func.func @conv_taps
// I8MM: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2, 3]] : tensor<20x3x3x8xi8> into tensor<20x72xi8>
// I8MM: linalg.pack {{.*}} inner_tiles = [8, 8] {{.*}} : tensor<20x72xi8> -> tensor<3x9x8x8xi8>
// I8MM: weight_packing = #qfx.weight_packing<lanes = 8, group = 8, taps = 1, tap_groups = 9>
// AMX-LABEL: func.func @conv_taps
// TWICE-LABEL: func.func @conv_taps
// AMX: tensor.pad %{{.*}} high[0, 56]
// AMX: weight_packing = #qfx.weight_packing<lanes = 16, group = 4, taps = 1, tap_groups = 32>
// Folded: block 1 holds channels 16-19, zeros after lane 3.
// FOLD-LABEL: func.func @conv_taps
// FOLD: arith.constant dense<{{.*}}> : tensor<2x18x64xi8>
// FOLD-NOT: linalg
// FOLD: qfx.contract conv2d
func.func @conv_taps(%x: tensor<1x6x6x8xi8>) -> tensor<1x4x4x20xi8> {
  %w = "tosa.const"() <{values = dense<1> : tensor<20x3x3x8xi8>}> : () -> tensor<20x3x3x8xi8>
  %y = qfx.contract conv2d %x, %w {input_zp = -1 : i64, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, epilogue = #qfx.rescale<fraction_bits = 0, bias = [], multipliers = [1073741824], shifts = [36], output_zp = 0, min = -128, max = 127>} : (tensor<1x6x6x8xi8>, tensor<20x3x3x8xi8>) -> tensor<1x4x4x20xi8>
  return %y : tensor<1x4x4x20xi8>
}

// -----

// A 7x7 stem on 3 channels: a tap is a kernel row of 21 values in 6 groups
// (7 taps of 3 channels would take 7).
// CHECK-LABEL: func.func @conv_rows
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : tensor<4x7x7x3xi8> into tensor<4x7x21xi8>
// CHECK: tensor.pad %{{.*}} low[0, 0, 0] high[0, 0, 3]
// CHECK: linalg.pack {{.*}} : tensor<4x7x24xi8> -> tensor<1x7x6x16x4xi8>
// CHECK: weight_packing = #qfx.weight_packing<lanes = 16, group = 4, taps = 7, tap_groups = 6>
func.func @conv_rows(%x: tensor<1x8x8x3xi8>) -> tensor<1x2x2x4xi8> {
  %w = "tosa.const"() <{values = dense<2> : tensor<4x7x7x3xi8>}> : () -> tensor<4x7x7x3xi8>
  %y = qfx.contract conv2d %x, %w {input_zp = 0 : i64, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, epilogue = #qfx.rescale<fraction_bits = 0, bias = [], multipliers = [1073741824], shifts = [36], output_zp = 0, min = -128, max = 127>} : (tensor<1x8x8x3xi8>, tensor<4x7x7x3xi8>) -> tensor<1x2x2x4xi8>
  return %y : tensor<1x2x2x4xi8>
}

// -----

// Float contractions: the float kernels' layout, one k value at a time in
// each of 16 lanes (8 on AVX2); a convolution tap by tap (C per tap).
// The matmul's [K, N] weight needs no transpose: its outer dimensions are
// permuted instead.
// CHECK-LABEL: func.func @float
// CHECK-NOT: linalg.transpose
// CHECK: linalg.pack %{{.*}} padding_value(%{{.*}} : f32) outer_dims_perm = [1, 0] inner_dims_pos = [1] inner_tiles = [16] into %{{.*}} : tensor<3x2xf32> -> tensor<1x3x16xf32>
// CHECK: qfx.contract matmul {{.*}}weight_packing = #qfx.weight_packing<lanes = 16, group = 1, taps = 1, tap_groups = 3>} : (tensor<1x2x3xf32>, tensor<1x3x2xf32>, tensor<1x3x16xf32>)
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2, 3]] : tensor<20x3x3x3xf32> into tensor<20x27xf32>
// CHECK: linalg.pack {{.*}} inner_dims_pos = [0] inner_tiles = [16] {{.*}} : tensor<20x27xf32> -> tensor<2x27x16xf32>
// CHECK: qfx.contract conv2d {{.*}}weight_packing = #qfx.weight_packing<lanes = 16, group = 1, taps = 9, tap_groups = 3>} : (tensor<1x6x6x3xf32>, tensor<20x3x3x3xf32>, tensor<20xf32>, tensor<2x27x16xf32>)
// AVX2-LABEL: func.func @float
// AVX2-NOT: arith.extsi
// AVX2: weight_packing = #qfx.weight_packing<lanes = 8, group = 1, taps = 1, tap_groups = 3>
// FOLD-LABEL: func.func @float
// FOLD: arith.constant dense<{{\[\[\[}}5.000000e-01, 1.500000e+00, 0.000000e+00, {{.*}}], [1.000000e+00, 2.000000e+00, 0.000000e+00, {{.*}}> : tensor<1x3x16xf32>
func.func @float(%a: tensor<1x2x3xf32>, %x: tensor<1x6x6x3xf32>) -> (tensor<1x2x2xf32>, tensor<1x4x4x20xf32>) {
  %fw = "tosa.const"() <{values = dense<[[[0.5, 1.5], [1.0, 2.0], [3.0, 4.0]]]> : tensor<1x3x2xf32>}> : () -> tensor<1x3x2xf32>
  %0 = qfx.contract matmul %a, %fw : (tensor<1x2x3xf32>, tensor<1x3x2xf32>) -> tensor<1x2x2xf32>
  %cw = "tosa.const"() <{values = dense<0.25> : tensor<20x3x3x3xf32>}> : () -> tensor<20x3x3x3xf32>
  %cb = "tosa.const"() <{values = dense<1.0> : tensor<20xf32>}> : () -> tensor<20xf32>
  %1 = qfx.contract conv2d %x, %cw bias(%cb) {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x6x6x3xf32>, tensor<20x3x3x3xf32>, tensor<20xf32>) -> tensor<1x4x4x20xf32>
  return %0, %1 : tensor<1x2x2xf32>, tensor<1x4x4x20xf32>
}

// -----

// What the GEMM kernels do not take is not packed: a depthwise convolution
// (its own kernel), a weight zero point, a weight computed at run time (int8,
// or a float matmul's, which its kernel packs on every call).
// CHECK-LABEL: func.func @untouched
// CHECK-NOT: packed
// CHECK-NOT: linalg.pack
// CHECK: return
func.func @untouched(%x: tensor<1x4x4x8xi8>, %a: tensor<1x2x3xf32>, %b: tensor<1x2x3xi8>, %rw: tensor<1x3x2xi8>, %frw: tensor<1x3x2xf32>) -> (tensor<1x2x2x8xi32>, tensor<1x2x2xf32>, tensor<1x2x2xi32>, tensor<1x2x2xi32>) {
  %dw = "tosa.const"() <{values = dense<1> : tensor<3x3x8x1xi8>}> : () -> tensor<3x3x8x1xi8>
  %0 = qfx.contract depthwise_conv2d %x, %dw {pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x4x8xi8>, tensor<3x3x8x1xi8>) -> tensor<1x2x2x8xi32>
  %1 = qfx.contract matmul %a, %frw : (tensor<1x2x3xf32>, tensor<1x3x2xf32>) -> tensor<1x2x2xf32>
  %w = "tosa.const"() <{values = dense<1> : tensor<1x3x2xi8>}> : () -> tensor<1x3x2xi8>
  %2 = qfx.contract matmul %b, %w {weight_zp = 3 : i64} : (tensor<1x2x3xi8>, tensor<1x3x2xi8>) -> tensor<1x2x2xi32>
  %3 = qfx.contract matmul %b, %rw : (tensor<1x2x3xi8>, tensor<1x3x2xi8>) -> tensor<1x2x2xi32>
  return %0, %1, %2, %3 : tensor<1x2x2x8xi32>, tensor<1x2x2xf32>, tensor<1x2x2xi32>, tensor<1x2x2xi32>
}
