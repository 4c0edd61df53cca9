// RUN: quant-opt %s --qfx-lower-softmax --split-input-file | FileCheck %s
// RUN: quant-opt %s --qfx-lower-softmax --split-input-file | quant-opt --split-input-file -o /dev/null

// A softmax over PyTorch's last dimension becomes PyTorch's
// _vec_softmax_lastdim: each row's maximum; SLEEF's expf of x - max (x / ln 2
// rounded to even, two fmas of ln 2's parts, a degree-6 polynomial in fmas,
// two powers of two, then the range and NaN selects); the exponentials
// padded with +0 to whole vectors of eight, summed per lane in order; the
// lanes combined as ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)) and
// inverted; each exponential times the inverse. No math.exp remains.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[ARG:.*]]: tensor<2x12xf32>)
// CHECK-NOT: qfx.composite
// CHECK: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MAX_INIT:.*]] = linalg.fill ins(%[[NEG_INF]] : f32) outs(%{{.*}} : tensor<2xf32>)
// CHECK: %[[MAX:.*]] = linalg.generic {{{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[ARG]] : tensor<2x12xf32>) outs(%[[MAX_INIT]] : tensor<2xf32>)
// CHECK: arith.maximumf
// CHECK: %[[EXP:.*]] = linalg.generic {{{.*}}iterator_types = ["parallel", "parallel"]} ins(%[[ARG]], %[[MAX]] : tensor<2x12xf32>, tensor<2xf32>)
// CHECK: %[[D:.*]] = arith.subf
// CHECK: %[[Q:.*]] = math.roundeven
// CHECK: %[[R:.*]] = math.fma %[[Q]], %{{.*}}, %[[D]] : f32
// CHECK: math.fma %[[Q]], %{{.*}}, %[[R]] : f32
// CHECK-COUNT-6: math.fma
// CHECK: arith.fptosi %[[Q]] : f32 to i32
// CHECK: arith.shrsi
// CHECK-COUNT-2: arith.bitcast {{.*}} : i32 to f32
// CHECK: arith.cmpf uno
// CHECK-NOT: math.exp
// CHECK: %[[PADDED:.*]] = tensor.pad %[[EXP]] low[0, 0] high[0, 4]
// CHECK: tensor.yield %{{.*}} : f32
// CHECK: } : tensor<2x12xf32> to tensor<2x16xf32>
// CHECK: %[[SPLIT:.*]] = tensor.expand_shape %[[PADDED]] {{\[\[}}0], [1, 2]] output_shape [2, 2, 8] : tensor<2x16xf32> into tensor<2x2x8xf32>
// CHECK: %[[LANES:.*]] = linalg.generic {{{.*}}iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[SPLIT]] : tensor<2x2x8xf32>) outs(%{{.*}} : tensor<2x8xf32>)
// CHECK: %[[INV:.*]] = linalg.generic {{{.*}}iterator_types = ["parallel"]} ins(%[[LANES]], %[[LANES]], %[[LANES]], %[[LANES]], %[[LANES]], %[[LANES]], %[[LANES]], %[[LANES]] : {{.*}}) outs(%{{.*}} : tensor<2xf32>)
// CHECK: ^bb0(%[[L0:.*]]: f32, %[[L1:.*]]: f32, %[[L2:.*]]: f32, %[[L3:.*]]: f32, %[[L4:.*]]: f32, %[[L5:.*]]: f32, %[[L6:.*]]: f32, %[[L7:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[A04:.*]] = arith.addf %[[L0]], %[[L4]]
// CHECK: %[[A26:.*]] = arith.addf %[[L2]], %[[L6]]
// CHECK: %[[EVEN:.*]] = arith.addf %[[A04]], %[[A26]]
// CHECK: %[[A15:.*]] = arith.addf %[[L1]], %[[L5]]
// CHECK: %[[A37:.*]] = arith.addf %[[L3]], %[[L7]]
// CHECK: %[[ODD:.*]] = arith.addf %[[A15]], %[[A37]]
// CHECK: %[[SUM:.*]] = arith.addf %[[EVEN]], %[[ODD]]
// CHECK: arith.divf %{{.*}}, %[[SUM]]
// CHECK: %[[Y:.*]] = linalg.generic {{{.*}}} ins(%[[EXP]], %[[INV]] : tensor<2x12xf32>, tensor<2xf32>)
// CHECK: arith.mulf
// CHECK: return %[[Y]]
func.func @softmax(%arg0: tensor<2x12xf32>) -> tensor<2x12xf32> {
  %0 = qfx.composite "torch.nn.Softmax" (%arg0) attributes {composite_attributes = {axis = 1 : i64, last_dim = true}} : (tensor<2x12xf32>) -> tensor<2x12xf32> {
  ^bb0(%v: tensor<2x12xf32>):
    %m = tosa.reduce_max %v {axis = 1 : i32} : (tensor<2x12xf32>) -> tensor<2x1xf32>
    %d = tosa.sub %v, %m : (tensor<2x12xf32>, tensor<2x1xf32>) -> tensor<2x12xf32>
    %e = tosa.exp %d : (tensor<2x12xf32>) -> tensor<2x12xf32>
    %s = tosa.reduce_sum %e {axis = 1 : i32} : (tensor<2x12xf32>) -> tensor<2x1xf32>
    %r = tosa.reciprocal %s : (tensor<2x1xf32>) -> tensor<2x1xf32>
    %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %p = tosa.mul %e, %r, %shift : (tensor<2x12xf32>, tensor<2x1xf32>, tensor<1xi8>) -> tensor<2x12xf32>
    qfx.yield %p : tensor<2x12xf32>
  }
  return %0 : tensor<2x12xf32>
}

// -----

// Rows shorter than a vector are added in order (PyTorch's vec_reduce_all
// of one partial vector): no padding, no lanes. Leading dimensions may be
// dynamic.
// CHECK-LABEL: func.func @short_rows
// CHECK: %[[D0:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x3xf32>
// CHECK: tensor.empty(%[[D0]]) : tensor<?xf32>
// CHECK-NOT: tensor.pad
// CHECK: %[[EXP:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?x3xf32>)
// CHECK: linalg.generic {{{.*}}} ins(%[[EXP]], %[[EXP]], %[[EXP]] : tensor<?x3xf32>, tensor<?x3xf32>, tensor<?x3xf32>)
// CHECK: ^bb0(%[[E0:.*]]: f32, %[[E1:.*]]: f32, %[[E2:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[S01:.*]] = arith.addf %[[E0]], %[[E1]]
// CHECK: %[[S:.*]] = arith.addf %[[S01]], %[[E2]]
// CHECK: arith.divf %{{.*}}, %[[S]]
// CHECK-NOT: qfx.composite
func.func @short_rows(%arg0: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = qfx.composite "torch.nn.Softmax" (%arg0) attributes {composite_attributes = {axis = 1 : i64, last_dim = true}} : (tensor<?x3xf32>) -> tensor<?x3xf32> {
  ^bb0(%v: tensor<?x3xf32>):
    qfx.yield %v : tensor<?x3xf32>
  }
  return %0 : tensor<?x3xf32>
}

// -----

// A whole number of vectors needs no padding either: the exponentials split
// into [rows, vectors, 8] directly (the zero padding folds away).
// CHECK-LABEL: func.func @whole_vectors
// CHECK: tensor.expand_shape {{.*}} output_shape [4, 2, 8] : tensor<4x16xf32> into tensor<4x2x8xf32>
func.func @whole_vectors(%arg0: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = qfx.composite "torch.nn.Softmax" (%arg0) attributes {composite_attributes = {axis = 1 : i64, last_dim = true}} : (tensor<4x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%v: tensor<4x16xf32>):
    qfx.yield %v : tensor<4x16xf32>
  }
  return %0 : tensor<4x16xf32>
}

// -----

// Kept (their bodies are inlined later): a softmax PyTorch runs over an
// inner dimension (no `last_dim`, or false, though innermost here: an NCHW
// channel softmax held NHWC), one not over the innermost axis, a dynamic
// reduced dimension, and float16.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-5: qfx.composite "torch.nn.Softmax"
// CHECK-NOT: linalg.generic
func.func @kept(%arg0: tensor<1x4x4x8xf32>, %arg1: tensor<2x?xf32>, %arg2: tensor<2x8xf16>) -> (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>, tensor<2x?xf32>, tensor<2x8xf16>) {
  %0 = qfx.composite "torch.nn.Softmax" (%arg0) attributes {composite_attributes = {axis = 3 : i64}} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  ^bb0(%v: tensor<1x4x4x8xf32>):
    qfx.yield %v : tensor<1x4x4x8xf32>
  }
  %1 = qfx.composite "torch.nn.Softmax" (%arg0) attributes {composite_attributes = {axis = 3 : i64, last_dim = false}} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  ^bb0(%v: tensor<1x4x4x8xf32>):
    qfx.yield %v : tensor<1x4x4x8xf32>
  }
  %2 = qfx.composite "torch.nn.Softmax" (%arg0) attributes {composite_attributes = {axis = 2 : i64, last_dim = true}} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  ^bb0(%v: tensor<1x4x4x8xf32>):
    qfx.yield %v : tensor<1x4x4x8xf32>
  }
  %3 = qfx.composite "torch.nn.Softmax" (%arg1) attributes {composite_attributes = {axis = 1 : i64, last_dim = true}} : (tensor<2x?xf32>) -> tensor<2x?xf32> {
  ^bb0(%v: tensor<2x?xf32>):
    qfx.yield %v : tensor<2x?xf32>
  }
  %4 = qfx.composite "torch.nn.Softmax" (%arg2) attributes {composite_attributes = {axis = 1 : i64, last_dim = true}} : (tensor<2x8xf16>) -> tensor<2x8xf16> {
  ^bb0(%v: tensor<2x8xf16>):
    qfx.yield %v : tensor<2x8xf16>
  }
  return %0, %1, %2, %3, %4 : tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>, tensor<2x?xf32>, tensor<2x8xf16>
}
