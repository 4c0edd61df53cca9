// RUN: quant-opt %s --qfx-lower-layer-norm --split-input-file | FileCheck %s
// RUN: quant-opt %s --qfx-lower-layer-norm --split-input-file | quant-opt --split-input-file -o /dev/null

// A layer norm over PyTorch's innermost dimensions becomes PyTorch's
// LayerNormKernelImplInternal. A row of 20: its two whole vectors one
// chunk, Welford per lane over the chunk's vectors (c = 1 / (j + 1), a
// constant per vector); the chunk into the empty cascade (c = 1); the last four values by a scalar Welford (divisions by the count), the
// eight lanes merged into it (c = 2 / (4 + 2), m0 = 4); var = m2 / 20,
// rstd = 1 / sqrt(var + eps), -rstd * mean; y = fma(fma(x, rstd, -rstd *
// mean), weight, bias). The weight and bias come from the attributes.
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[ARG:.*]]: tensor<4x20xf32>)
// CHECK-NOT: qfx.composite
// CHECK-NOT: tensor.pad
// CHECK: %[[WHOLE:.*]] = tensor.extract_slice %[[ARG]][0, 0] [4, 16] [1, 1]
// CHECK: %[[CHUNKS:.*]] = tensor.expand_shape %[[WHOLE]] {{\[\[}}0], [1, 2, 3]] output_shape [4, 1, 2, 8]
// CHECK: %[[RECIPROCALS:.*]] = arith.constant dense<[1.000000e+00, 5.000000e-01]> : tensor<2xf32>
// CHECK: %[[WELFORD:.*]]:2 = linalg.generic {{{.*}}iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%[[CHUNKS]], %[[RECIPROCALS]] : tensor<4x1x2x8xf32>, tensor<2xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[C:.*]]: f32, %[[M1:.*]]: f32, %[[M2:.*]]: f32):
// CHECK: %[[D:.*]] = arith.subf %[[X]], %[[M1]]
// CHECK: %[[DC:.*]] = arith.mulf %[[D]], %[[C]]
// CHECK: %[[NEW_M1:.*]] = arith.addf %[[M1]], %[[DC]]
// CHECK: %[[R:.*]] = arith.subf %[[X]], %[[NEW_M1]]
// CHECK: %[[DR:.*]] = arith.mulf %[[D]], %[[R]]
// CHECK: %[[NEW_M2:.*]] = arith.addf %[[M2]], %[[DR]]
// CHECK-NOT: arith.select
// CHECK: linalg.yield %[[NEW_M1]], %[[NEW_M2]]
// CHECK: %[[LANES:.*]]:2 = linalg.generic {{{.*}}iterator_types = ["parallel", "parallel"]} ins(%[[WELFORD]]#0, %[[WELFORD]]#1 : tensor<4x1x8xf32>, tensor<4x1x8xf32>)
// CHECK: %[[ROWS:.*]]:2 = linalg.generic {{{.*}}iterator_types = ["parallel"]} ins(%[[ARG]], %[[ARG]], %[[ARG]], %[[ARG]], %[[LANES]]#0, %[[LANES]]#1,
// CHECK-COUNT-4: arith.divf %{{.*}}, %cst
// CHECK: arith.constant 0.333333343 : f32
// CHECK: arith.constant 4.000000e+00 : f32
// CHECK: %[[VAR:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK: %[[SHIFTED:.*]] = arith.addf %[[VAR]], %[[EPS]]
// CHECK: %[[SQRT:.*]] = math.sqrt %[[SHIFTED]]
// CHECK: %[[RSTD:.*]] = arith.divf %{{.*}}, %[[SQRT]]
// CHECK: %[[NEG:.*]] = arith.negf %[[RSTD]]
// CHECK: %[[SHIFT:.*]] = arith.mulf %[[NEG]], %{{.*}}
// CHECK: linalg.yield %[[RSTD]], %[[SHIFT]]
// CHECK: %[[WEIGHT:.*]] = arith.constant dense<2.000000e+00> : tensor<20xf32>
// CHECK: %[[BIAS:.*]] = arith.constant dense<5.000000e-01> : tensor<20xf32>
// CHECK: %[[Y:.*]] = linalg.generic {{{.*}}} ins(%[[ARG]], %[[ROWS]]#0, %[[ROWS]]#1, %[[WEIGHT]], %[[BIAS]] :
// CHECK: ^bb0(%[[V:.*]]: f32, %[[S:.*]]: f32, %[[B:.*]]: f32, %[[G:.*]]: f32, %[[BETA:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[N:.*]] = math.fma %[[V]], %[[S]], %[[B]]
// CHECK: math.fma %[[N]], %[[G]], %[[BETA]]
// CHECK: return %[[Y]]
func.func @layer_norm(%arg0: tensor<4x20xf32>) -> tensor<4x20xf32> {
  %0 = qfx.composite "torch.nn.LayerNorm" (%arg0) attributes {composite_attributes = {axes = array<i64: 1>, eps = 1.0e-05 : f64, torch_order = true, weight = dense<2.0> : tensor<1x20xf32>, bias = dense<0.5> : tensor<1x20xf32>}} : (tensor<4x20xf32>) -> tensor<4x20xf32> {
  ^bb0(%v: tensor<4x20xf32>):
    qfx.yield %v : tensor<4x20xf32>
  }
  return %0 : tensor<4x20xf32>
}

// -----

// Three chunks of a row of 300 (16, 16 and 5 vectors, and 4 values): the
// vectors padded to whole chunks, the padding (vector 37 on) selected
// away; chunk 1 joins chunk 0 (c = 1/2, m0 = 16), the pair moves up a
// level (c = 1), chunk 2 starts level 0 again, and the levels merge at the
// end (c = 32/37, m0 = 5).
// CHECK-LABEL: func.func @cascade
// CHECK: tensor.pad %{{.*}} low[0, 0] high[0, 88]
// CHECK: tensor.expand_shape {{.*}} output_shape [2, 3, 16, 8]
// CHECK: linalg.generic {{.*}}ins(%{{.*}}, %{{.*}} : tensor<2x3x16x8xf32>, tensor<16xf32>)
// CHECK: %[[VECTOR:.*]] = arith.addi
// CHECK: %[[REAL:.*]] = arith.cmpi ult, %[[VECTOR]], %c37
// CHECK: arith.select %[[REAL]]
// CHECK: arith.select %[[REAL]]
// CHECK: } -> (tensor<2x3x8xf32>, tensor<2x3x8xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}#0, %{{.*}}#1, %{{.*}}#0, %{{.*}}#1, %{{.*}}#0, %{{.*}}#1 : tensor<2x3x8xf32>
// CHECK: arith.constant 5.000000e-01 : f32
// CHECK: arith.constant 1.600000e+01 : f32
// CHECK: arith.constant 0.864864885 : f32
// CHECK: arith.constant 5.000000e+00 : f32
// CHECK: linalg.yield
// CHECK-NEXT: } -> (tensor<2x8xf32>, tensor<2x8xf32>)
func.func @cascade(%arg0: tensor<2x300xf32>) -> tensor<2x300xf32> {
  %0 = qfx.composite "torch.nn.LayerNorm" (%arg0) attributes {composite_attributes = {axes = array<i64: 1>, eps = 1.0e-05 : f64, torch_order = true}} : (tensor<2x300xf32>) -> tensor<2x300xf32> {
  ^bb0(%v: tensor<2x300xf32>):
    qfx.yield %v : tensor<2x300xf32>
  }
  return %0 : tensor<2x300xf32>
}

// -----

// Rows shorter than a vector: no Welford over vectors, the five values by
// the scalar Welford and eight empty lanes merged in; leading dimensions
// may be dynamic and are collapsed into rows; without weights the output
// is fma(fma(x, rstd, shift), 1, 0), PyTorch's scalar loop.
// CHECK-LABEL: func.func @short_rows
// CHECK-NOT: tensor.pad
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<?x3x5xf32> into tensor<?x5xf32>
// CHECK-NOT: iterator_types = ["parallel", "parallel", "reduction", "parallel"]
// CHECK: linalg.generic {{{.*}}iterator_types = ["parallel"]} ins(%[[ROWS]], %[[ROWS]], %[[ROWS]], %[[ROWS]], %[[ROWS]] : tensor<?x5xf32>, tensor<?x5xf32>, tensor<?x5xf32>, tensor<?x5xf32>, tensor<?x5xf32>)
// CHECK-COUNT-5: arith.divf %{{.*}}, %cst
// CHECK: math.sqrt
// CHECK: %[[Y:.*]] = linalg.generic
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[N:.*]] = math.fma
// CHECK: math.fma %[[N]], %[[ONE]], %[[ZERO]]
// CHECK: tensor.expand_shape %[[Y]] {{\[\[}}0, 1], [2]] output_shape [%{{.*}}, 3, 5] : tensor<?x5xf32> into tensor<?x3x5xf32>
func.func @short_rows(%arg0: tensor<?x3x5xf32>) -> tensor<?x3x5xf32> {
  %0 = qfx.composite "torch.nn.LayerNorm" (%arg0) attributes {composite_attributes = {axes = array<i64: 2>, eps = 1.0e-05 : f64, torch_order = true}} : (tensor<?x3x5xf32>) -> tensor<?x3x5xf32> {
  ^bb0(%v: tensor<?x3x5xf32>):
    qfx.yield %v : tensor<?x3x5xf32>
  }
  return %0 : tensor<?x3x5xf32>
}

// -----

// Two normalized dimensions of a rank-2 tensor: one row of 8, a unit
// leading dimension added and dropped again.
// CHECK-LABEL: func.func @whole_tensor
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [1, 2, 4] : tensor<2x4xf32> into tensor<1x2x4xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<1x2x4xf32> into tensor<1x8xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<1x8xf32> into tensor<8xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
func.func @whole_tensor(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = qfx.composite "torch.nn.LayerNorm" (%arg0) attributes {composite_attributes = {axes = array<i64: 0, 1>, eps = 1.0e-05 : f64, torch_order = true}} : (tensor<2x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%v: tensor<2x4xf32>):
    qfx.yield %v : tensor<2x4xf32>
  }
  return %0 : tensor<2x4xf32>
}

// -----

// Without torch_order (a held layout that permutes the normalized
// dimensions), or with a dynamic normalized dimension, the body stays.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-2: qfx.composite "torch.nn.LayerNorm"
func.func @kept(%arg0: tensor<4x20xf32>, %arg1: tensor<4x?xf32>) -> (tensor<4x20xf32>, tensor<4x?xf32>) {
  %0 = qfx.composite "torch.nn.LayerNorm" (%arg0) attributes {composite_attributes = {axes = array<i64: 1>, eps = 1.0e-05 : f64}} : (tensor<4x20xf32>) -> tensor<4x20xf32> {
  ^bb0(%v: tensor<4x20xf32>):
    qfx.yield %v : tensor<4x20xf32>
  }
  %1 = qfx.composite "torch.nn.LayerNorm" (%arg1) attributes {composite_attributes = {axes = array<i64: 1>, eps = 1.0e-05 : f64, torch_order = true}} : (tensor<4x?xf32>) -> tensor<4x?xf32> {
  ^bb0(%v: tensor<4x?xf32>):
    qfx.yield %v : tensor<4x?xf32>
  }
  return %0, %1 : tensor<4x20xf32>, tensor<4x?xf32>
}
