// RUN: quant-opt %s --qfx-lower-mean --split-input-file | FileCheck %s
// RUN: quant-opt %s --qfx-lower-mean --split-input-file | quant-opt --split-input-file -o /dev/null

// The mean over C of a tensor PyTorch holds channels-last (C innermost, 20
// values): cascade_sum's vectorized inner sum. Each lane's values (two whole
// vectors) added in order, then +0, the four values after the last whole
// vector and the eight lanes in order, divided by 20 (rounded once).
// CHECK-LABEL: func.func @channels_last_channels
// CHECK-NOT: qfx.composite
// CHECK: %[[ROWS:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [4, 20] : tensor<80xf32> into tensor<4x20xf32>
// CHECK: %[[VECTORS:.*]] = tensor.extract_slice %[[ROWS]][0, 0] [4, 16] [1, 1]
// CHECK: %[[LANES:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x8x2xf32>, tensor<4x8x2xf32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: %[[TAIL:.*]] = tensor.extract_slice %[[ROWS]][0, 16] [4, 4] [1, 1]
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[TAIL]], %[[TAIL]], %[[TAIL]], %[[TAIL]], %[[LANES]], %[[LANES]], %[[LANES]], %[[LANES]], %[[LANES]], %[[LANES]], %[[LANES]], %[[LANES]] :
// CHECK-COUNT-11: arith.addf
// CHECK: %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<4xf32>)
// CHECK: arith.constant 2.000000e+01 : f32
// CHECK: arith.divf
// CHECK: tensor.expand_shape %{{.*}} output_shape [1, 2, 2, 1] : tensor<4xf32> into tensor<1x2x2x1xf32>
func.func @channels_last_channels(%x: tensor<1x2x2x20xf32>) -> tensor<1x2x2x1xf32> {
  %r = qfx.composite "torch.mean" (%x) attributes {composite_attributes = {
      axes = array<i64: 3>, keepdim = true, averages_integers = false,
      torch_dims = array<i64: 0, 2, 3, 1>, torch_strides = array<i64: 80, 40, 20, 1>}}
      : (tensor<1x2x2x20xf32>) -> tensor<1x2x2x1xf32> {
  ^bb0(%a: tensor<1x2x2x20xf32>):
    %s = tosa.reduce_sum %a {axis = 3 : i32} : (tensor<1x2x2x20xf32>) -> tensor<1x2x2x1xf32>
    qfx.yield %s : tensor<1x2x2x1xf32>
  }
  return %r : tensor<1x2x2x1xf32>
}

// -----

// The mean over H and W (400 values) of a channels-last tensor of 40
// channels: cascade_sum's vectorized outer sum. The first 32 channels (a
// whole block of four vectors) by multi_row_sum: chunks of 16, 16 chunks to
// a value of the next level (the run padded with +0 to 512), the rest by
// row_sum: four interleaved partial sums of 100 values (each padded to 112,
// chunks of 16), added in order.
// CHECK-LABEL: func.func @channels_last_spatial
// CHECK: %[[COLUMNS:.*]] = tensor.expand_shape %{{.*}} output_shape [40, 400] : tensor<16000xf32> into tensor<40x400xf32>
// CHECK: %[[BLOCKED:.*]] = tensor.extract_slice %[[COLUMNS]][0, 0] [32, 400] [1, 1]
// CHECK: tensor.pad %[[BLOCKED]] low[0, 0] high[0, 112]
// CHECK: output_shape [32, 2, 16, 16]
// CHECK: iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: %[[FIRST:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]{{.*}} outs(%{{.*}} : tensor<32xf32>)
// CHECK: %[[REST:.*]] = tensor.extract_slice %[[COLUMNS]][32, 0] [8, 400] [1, 1]
// CHECK: output_shape [8, 100, 4]
// CHECK: tensor.pad %{{.*}} low[0, 0, 0] high[0, 0, 12]
// CHECK: output_shape [8, 4, 7, 16]
// CHECK: %[[PARTIALS:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<8x4xf32>)
// CHECK: %[[SECOND:.*]] = linalg.generic {{.*}} ins(%[[PARTIALS]], %[[PARTIALS]], %[[PARTIALS]], %[[PARTIALS]] :
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<40xf32>
// CHECK: %[[PART:.*]] = tensor.insert_slice %[[FIRST]] into %[[EMPTY]][0] [32] [1]
// CHECK: %[[ALL:.*]] = tensor.insert_slice %[[SECOND]] into %[[PART]][32] [8] [1]
// CHECK: linalg.generic {{.*}} ins(%[[ALL]] : tensor<40xf32>)
// CHECK: arith.constant 4.000000e+02 : f32
func.func @channels_last_spatial(%x: tensor<1x20x20x40xf32>) -> tensor<1x40xf32> {
  %r = qfx.composite "torch.mean" (%x) attributes {composite_attributes = {
      axes = array<i64: 1, 2>, keepdim = false, averages_integers = false,
      torch_dims = array<i64: 0, 2, 3, 1>, torch_strides = array<i64: 16000, 800, 40, 1>}}
      : (tensor<1x20x20x40xf32>) -> tensor<1x40xf32> {
  ^bb0(%a: tensor<1x20x20x40xf32>):
    %s = tosa.reduce_sum %a {axis = 1 : i32} : (tensor<1x20x20x40xf32>) -> tensor<1x1x20x40xf32>
    %t = tosa.reduce_sum %s {axis = 2 : i32} : (tensor<1x1x20x40xf32>) -> tensor<1x1x1x40xf32>
    %shape = tosa.const_shape {values = dense<[1, 40]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %u = tosa.reshape %t, %shape : (tensor<1x1x1x40xf32>, !tosa.shape<2>) -> tensor<1x40xf32>
    qfx.yield %u : tensor<1x40xf32>
  }
  return %r : tensor<1x40xf32>
}

// -----

// A contiguous run of five: row_sum. Four partial sums (one value each),
// the fifth value added to the first, then the other three in order.
// CHECK-LABEL: func.func @short_rows
// CHECK-SAME: (%[[ARG:.*]]: tensor<3x5xf32>)
// CHECK: %[[PARTIALS:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<3x4xf32>)
// CHECK: %[[TAIL:.*]] = tensor.extract_slice %[[ARG]][0, 4] [3, 1] [1, 1]
// CHECK: linalg.generic {{.*}} ins(%[[PARTIALS]], %[[TAIL]], %[[PARTIALS]], %[[PARTIALS]], %[[PARTIALS]] :
// CHECK: arith.constant 5.000000e+00 : f32
func.func @short_rows(%x: tensor<3x5xf32>) -> tensor<3xf32> {
  %r = qfx.composite "torch.mean" (%x) attributes {composite_attributes = {
      axes = array<i64: 1>, keepdim = false, averages_integers = false,
      torch_dims = array<i64: 0, 1>, torch_strides = array<i64: 5, 1>}}
      : (tensor<3x5xf32>) -> tensor<3xf32> {
  ^bb0(%a: tensor<3x5xf32>):
    %s = tosa.reduce_sum %a {axis = 1 : i32} : (tensor<3x5xf32>) -> tensor<3x1xf32>
    %shape = tosa.const_shape {values = dense<[3]> : tensor<1xindex>} : () -> !tosa.shape<1>
    %u = tosa.reshape %s, %shape : (tensor<3x1xf32>, !tosa.shape<1>) -> tensor<3xf32>
    qfx.yield %u : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// -----

// Without PyTorch's dimensions and strides, or with a dynamic shape, the
// mean keeps its body.
// CHECK-LABEL: func.func @unknown_order
// CHECK: qfx.composite "torch.mean"
// CHECK-LABEL: func.func @dynamic
// CHECK: qfx.composite "torch.mean"
func.func @unknown_order(%x: tensor<3x5xf32>) -> tensor<3x1xf32> {
  %r = qfx.composite "torch.mean" (%x) attributes {composite_attributes = {
      axes = array<i64: 1>, keepdim = true}} : (tensor<3x5xf32>) -> tensor<3x1xf32> {
  ^bb0(%a: tensor<3x5xf32>):
    %s = tosa.reduce_sum %a {axis = 1 : i32} : (tensor<3x5xf32>) -> tensor<3x1xf32>
    qfx.yield %s : tensor<3x1xf32>
  }
  return %r : tensor<3x1xf32>
}
func.func @dynamic(%x: tensor<?x5xf32>) -> tensor<?x1xf32> {
  %r = qfx.composite "torch.mean" (%x) attributes {composite_attributes = {
      axes = array<i64: 1>, keepdim = true,
      torch_dims = array<i64: 0, 1>, torch_strides = array<i64: 5, 1>}}
      : (tensor<?x5xf32>) -> tensor<?x1xf32> {
  ^bb0(%a: tensor<?x5xf32>):
    %s = tosa.reduce_sum %a {axis = 1 : i32} : (tensor<?x5xf32>) -> tensor<?x1xf32>
    qfx.yield %s : tensor<?x1xf32>
  }
  return %r : tensor<?x1xf32>
}
