// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(qfx-interchange-reductions))" | FileCheck %s

// Max pooling iterates (n, oh, ow, c, kh, kw); the channels, contiguous in
// the input and the output, become the innermost loop.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d3, d2 * 2 + d4, d5)>
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d4)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>
// CHECK-LABEL: func.func @max_pool
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[WIN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
// CHECK: arith.maxsi
func.func @max_pool(%x: tensor<1x9x9x8xi8>, %init: tensor<1x4x4x8xi8>) -> tensor<1x4x4x8xi8> {
  %window = tensor.empty() : tensor<3x3xi8>
  %0 = linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %window : tensor<1x9x9x8xi8>, tensor<3x3xi8>) outs(%init : tensor<1x4x4x8xi8>) -> tensor<1x4x4x8xi8>
  return %0 : tensor<1x4x4x8xi8>
}

// -----

// Depthwise convolution: the filter holds the channel innermost too.
// CHECK-LABEL: func.func @depthwise
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]
func.func @depthwise(%x: tensor<1x6x6x8xf32>, %w: tensor<3x3x8xf32>, %init: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x6x6x8xf32>, tensor<3x3x8xf32>) outs(%init : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  return %0 : tensor<1x4x4x8xf32>
}

// -----

// A convolution's output channel is the filter's outermost dimension
// (strided): left alone, as are ops whose innermost loop is parallel.
// CHECK-LABEL: func.func @left_alone
// CHECK: linalg.conv_2d_nhwc_fhwc
// CHECK: linalg.add
func.func @left_alone(%x: tensor<1x6x6x8xf32>, %w: tensor<4x3x3x8xf32>, %init: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x6x6x8xf32>, tensor<4x3x3x8xf32>) outs(%init : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %1 = linalg.add ins(%0, %0 : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) outs(%init : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %1 : tensor<1x4x4x4xf32>
}
