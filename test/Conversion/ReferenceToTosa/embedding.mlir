// A weight-only embedding (float_qparams_weight_only_qconfig): qfx-convert
// stores the [rows, dim] table as integers with a float scale and zero
// point per row, dequantized by TOSA ops; qfx-lower turns the lookup into
// PyTorch's kernel: the integer rows and each row's scale and bias
// (-(zero_point * scale), float16 for 4 bits) gathered, q * scale + bias in
// double, rounded once to float. The whole table is never dequantized.
// RUN: quant-opt %s --split-input-file --qfx-convert --qfx-lower="backend=onednn" --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @embedding_8bit
// CHECK: %[[TABLE:.*]] = "tosa.const"() <{values = dense<{{.*}}> : tensor<1x3x4xi8>}>
// CHECK: %[[FLAT:.*]] = tosa.reshape %arg0, {{.*}} : (tensor<2x5xi64>, !tosa.shape<2>) -> tensor<1x10xi64>
// CHECK: %[[IDS:.*]] = tosa.clamp %[[FLAT]] {max_val = 2 : i64, min_val = 0 : i64}
// CHECK: %[[ROWS:.*]] = tosa.gather %[[TABLE]], %[[IDS]] : (tensor<1x3x4xi8>, tensor<1x10xi64>) -> tensor<1x10x4xi8>
// CHECK: %[[INTS:.*]] = tosa.cast %[[ROWS]] : (tensor<1x10x4xi8>) -> tensor<1x10x4xi32>
// CHECK: %[[MASK:.*]] = "tosa.const"() <{values = dense<255> : tensor<1x1x1xi32>}>
// CHECK: %[[UNSIGNED:.*]] = tosa.bitwise_and %[[INTS]], %[[MASK]]
// CHECK: %[[WIDE:.*]] = tosa.cast %[[UNSIGNED]] : (tensor<1x10x4xi32>) -> tensor<1x10x4xf64>
// Row 0 spans [-0.5, 3]: scale 3.5 / 255, bias -(zero_point * scale) in float.
// CHECK: %[[SCALES:.*]] = "tosa.const"() <{values = dense<{{\[\[\[}}0.013725490309298038], [0.011764706112444401], [0.0078431377187371254]]]> : tensor<1x3x1xf64>}>
// CHECK: %[[S:.*]] = tosa.gather %[[SCALES]], %[[IDS]] : (tensor<1x3x1xf64>, tensor<1x10xi64>) -> tensor<1x10x1xf64>
// CHECK: %[[BIASES:.*]] = "tosa.const"() <{values = dense<{{\[\[\[}}-0.49999997019767761], [-1.000000e+00], [4.000000e+00]]]> : tensor<1x3x1xf64>}>
// CHECK: %[[B:.*]] = tosa.gather %[[BIASES]], %[[IDS]]
// CHECK: %[[SCALED:.*]] = tosa.mul %[[WIDE]], %[[S]]
// CHECK: %[[SUM:.*]] = tosa.add %[[SCALED]], %[[B]] : (tensor<1x10x4xf64>, tensor<1x10x1xf64>) -> tensor<1x10x4xf64>
// CHECK: %[[OUT:.*]] = tosa.cast %[[SUM]] : (tensor<1x10x4xf64>) -> tensor<1x10x4xf32>
// CHECK: %[[RESULT:.*]] = tosa.reshape %[[OUT]], {{.*}} -> tensor<2x5x4xf32>
// CHECK: return %[[RESULT]]
// CHECK-NOT: qfx.composite
// CHECK-NOT: tensor<3x4xf32>
func.func @embedding_8bit(%arg0: tensor<2x5xi64> {qfx.index_bound = 3 : i64}) -> tensor<2x5x4xf32> {
  %w = "tosa.const"() <{values = dense<[[0.0, 1.5, 3.0, -0.5], [-1.0, 0.1, 2.0, 0.25], [4.0, 4.5, 5.0, 6.0]]> : tensor<3x4xf32>}> : () -> tensor<3x4xf32>
  %q = qfx.observe %w id 0 spec(#qfx.observer<per_channel_minmax, dtype = quint8, qscheme = per_channel_affine_float_qparams>) : tensor<3x4xf32>
  %0 = qfx.composite "torch.nn.Embedding" (%arg0, %q) : (tensor<2x5xi64>, tensor<3x4xf32>) -> tensor<2x5x4xf32> {
  ^bb0(%ids: tensor<2x5xi64>, %table: tensor<3x4xf32>):
    %s1 = tosa.const_shape {values = dense<[1, 10]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %flat = tosa.reshape %ids, %s1 : (tensor<2x5xi64>, !tosa.shape<2>) -> tensor<1x10xi64>
    %safe = tosa.clamp %flat {min_val = 0 : i64, max_val = 2 : i64} : (tensor<1x10xi64>) -> tensor<1x10xi64>
    %s2 = tosa.const_shape {values = dense<[1, 3, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %rows = tosa.reshape %table, %s2 : (tensor<3x4xf32>, !tosa.shape<3>) -> tensor<1x3x4xf32>
    %g = tosa.gather %rows, %safe : (tensor<1x3x4xf32>, tensor<1x10xi64>) -> tensor<1x10x4xf32>
    %s3 = tosa.const_shape {values = dense<[2, 5, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %r = tosa.reshape %g, %s3 : (tensor<1x10x4xf32>, !tosa.shape<3>) -> tensor<2x5x4xf32>
    qfx.yield %r : tensor<2x5x4xf32>
  }
  return %0 : tensor<2x5x4xf32>
}

// -----

// 4 bits: the values widened to one per byte, masked to 15; scale and bias
// rounded to float16 (0.1 is 0.0999755859375 in float16).
// CHECK-LABEL: func.func @embedding_4bit
// CHECK-DAG: "tosa.const"() <{values = dense<{{\[\[\[}}0, 15], [0, 15]]]> : tensor<1x2x2xi8>}>
// CHECK-DAG: "tosa.const"() <{values = dense<0.0999755859375> : tensor<1x2x1xf64>}>
// CHECK-DAG: "tosa.const"() <{values = dense<15> : tensor<1x1x1xi32>}>
func.func @embedding_4bit(%arg0: tensor<3xi32>) -> tensor<3x2xf32> {
  %w = "tosa.const"() <{values = dense<[[0.0, 1.5], [1.0, 2.5]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
  %q = qfx.observe %w id 0 spec(#qfx.observer<per_channel_minmax, dtype = quint4x2, qscheme = per_channel_affine_float_qparams>) : tensor<2x2xf32>
  %0 = qfx.composite "torch.nn.Embedding" (%arg0, %q) : (tensor<3xi32>, tensor<2x2xf32>) -> tensor<3x2xf32> {
  ^bb0(%ids: tensor<3xi32>, %table: tensor<2x2xf32>):
    %s1 = tosa.const_shape {values = dense<[1, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %flat = tosa.reshape %ids, %s1 : (tensor<3xi32>, !tosa.shape<2>) -> tensor<1x3xi32>
    %safe = tosa.clamp %flat {min_val = 0 : i32, max_val = 1 : i32} : (tensor<1x3xi32>) -> tensor<1x3xi32>
    %s2 = tosa.const_shape {values = dense<[1, 2, 2]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %rows = tosa.reshape %table, %s2 : (tensor<2x2xf32>, !tosa.shape<3>) -> tensor<1x2x2xf32>
    %g = tosa.gather %rows, %safe : (tensor<1x2x2xf32>, tensor<1x3xi32>) -> tensor<1x3x2xf32>
    %s3 = tosa.const_shape {values = dense<[3, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %r = tosa.reshape %g, %s3 : (tensor<1x3x2xf32>, !tosa.shape<2>) -> tensor<3x2xf32>
    qfx.yield %r : tensor<3x2xf32>
  }
  return %0 : tensor<3x2xf32>
}

// -----

// A table quantized another way (here int8 per tensor) is not PyTorch's
// embedding kernel: it stays float, with a remark.
func.func @embedding_int8_weight(%arg0: tensor<3xi64>) -> tensor<3x2xf32> {
  %w = "tosa.const"() <{values = dense<[[0.0, 1.5], [1.0, 2.5]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
  %q = qfx.observe %w id 0 spec(#qfx.observer<minmax, dtype = qint8, qscheme = per_tensor_symmetric>) : tensor<2x2xf32>
  // expected-remark @+1 {{runs in float: an embedding's weight is lowered with float zero points only}}
  %0 = qfx.composite "torch.nn.Embedding" (%arg0, %q) : (tensor<3xi64>, tensor<2x2xf32>) -> tensor<3x2xf32> {
  ^bb0(%ids: tensor<3xi64>, %table: tensor<2x2xf32>):
    %s1 = tosa.const_shape {values = dense<[1, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %flat = tosa.reshape %ids, %s1 : (tensor<3xi64>, !tosa.shape<2>) -> tensor<1x3xi64>
    %s2 = tosa.const_shape {values = dense<[1, 2, 2]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %rows = tosa.reshape %table, %s2 : (tensor<2x2xf32>, !tosa.shape<3>) -> tensor<1x2x2xf32>
    %g = tosa.gather %rows, %flat : (tensor<1x2x2xf32>, tensor<1x3xi64>) -> tensor<1x3x2xf32>
    %s3 = tosa.const_shape {values = dense<[3, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %r = tosa.reshape %g, %s3 : (tensor<1x3x2xf32>, !tosa.shape<2>) -> tensor<3x2xf32>
    qfx.yield %r : tensor<3x2xf32>
  }
  return %0 : tensor<3x2xf32>
}

// -----

// An EmbeddingBag of [2 bags, 3 indices]: per bag position, acc = fma(q,
// scale, acc + bias) in the same double form; mode "mean" then multiplies by
// float(1 / 3).
// CHECK-LABEL: func.func @embedding_bag_mean
// CHECK: %[[ACC0:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<2x1x2xf32>}>
// CHECK: %[[B0:.*]] = tosa.cast %{{.*}} : (tensor<2x1x1xf64>) -> tensor<2x1x1xf32>
// CHECK: %[[T0:.*]] = tosa.add %[[ACC0]], %[[B0]] : (tensor<2x1x2xf32>, tensor<2x1x1xf32>) -> tensor<2x1x2xf32>
// CHECK: %[[P0:.*]] = tosa.mul {{.*}} : (tensor<2x1x2xf64>, tensor<2x1x1xf64>, tensor<1xi8>) -> tensor<2x1x2xf64>
// CHECK: %[[W0:.*]] = tosa.cast %[[T0]] : (tensor<2x1x2xf32>) -> tensor<2x1x2xf64>
// CHECK: %[[S0:.*]] = tosa.add %[[P0]], %[[W0]]
// CHECK: %[[ACC1:.*]] = tosa.cast %[[S0]] : (tensor<2x1x2xf64>) -> tensor<2x1x2xf32>
// CHECK: tosa.add %[[ACC1]]
// CHECK-COUNT-2: tosa.cast %{{.*}} : (tensor<2x1x2xf64>) -> tensor<2x1x2xf32>
// CHECK: "tosa.const"() <{values = dense<0.333333343> : tensor<1x1x1xf32>}>
// CHECK: tosa.mul
// CHECK: tosa.reshape {{.*}} -> tensor<2x2xf32>
func.func @embedding_bag_mean(%arg0: tensor<2x3xi64>) -> tensor<2x2xf32> {
  %w = "tosa.const"() <{values = dense<[[0.0, 1.5], [1.0, 2.5], [-1.0, 0.5]]> : tensor<3x2xf32>}> : () -> tensor<3x2xf32>
  %q = qfx.observe %w id 0 spec(#qfx.observer<per_channel_minmax, dtype = quint8, qscheme = per_channel_affine_float_qparams>) : tensor<3x2xf32>
  %0 = qfx.composite "torch.nn.EmbeddingBag" (%arg0, %q) attributes {composite_attributes = {mode = "mean"}} : (tensor<2x3xi64>, tensor<3x2xf32>) -> tensor<2x2xf32> {
  ^bb0(%ids: tensor<2x3xi64>, %table: tensor<3x2xf32>):
    %s1 = tosa.const_shape {values = dense<[1, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %flat = tosa.reshape %ids, %s1 : (tensor<2x3xi64>, !tosa.shape<2>) -> tensor<1x6xi64>
    %s2 = tosa.const_shape {values = dense<[1, 3, 2]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %rows = tosa.reshape %table, %s2 : (tensor<3x2xf32>, !tosa.shape<3>) -> tensor<1x3x2xf32>
    %g = tosa.gather %rows, %flat : (tensor<1x3x2xf32>, tensor<1x6xi64>) -> tensor<1x6x2xf32>
    %s3 = tosa.const_shape {values = dense<[2, 3, 2]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %bags = tosa.reshape %g, %s3 : (tensor<1x6x2xf32>, !tosa.shape<3>) -> tensor<2x3x2xf32>
    %sum = tosa.reduce_sum %bags {axis = 1 : i32} : (tensor<2x3x2xf32>) -> tensor<2x1x2xf32>
    %s4 = tosa.const_shape {values = dense<[2, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %r = tosa.reshape %sum, %s4 : (tensor<2x1x2xf32>, !tosa.shape<2>) -> tensor<2x2xf32>
    qfx.yield %r : tensor<2x2xf32>
  }
  return %0 : tensor<2x2xf32>
}

// -----

// An EmbeddingBag of 1-D indices with offsets and per-sample weights: where
// a bag starts is known only when the model runs, so loops over the bags
// (each from +0; its start and end from the offsets, clamped into the
// indices), their indices (each clamped into the table; scale and bias
// times the sample's weight) and the row, acc = fma(q, scale, acc + bias)
// in the double form.
// CHECK-LABEL: func.func @embedding_bag_offsets
// CHECK-SAME: (%[[IDS:.*]]: tensor<5xi64>, %[[OFFSETS:.*]]: tensor<3xi64>, %[[WEIGHTS:.*]]: tensor<5xf32>)
// CHECK-DAG: %[[TABLE:.*]] = arith.constant dense<{{.*}}> : tensor<3x2xi8>
// CHECK-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<3x2xf32>
// CHECK: %[[RESULT:.*]] = scf.for %[[BAG:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[OUT:.*]] = %[[ZERO]]) -> (tensor<3x2xf32>)
// CHECK: tensor.extract %[[OFFSETS]][%[[BAG]]] : tensor<3xi64>
// CHECK: arith.cmpi slt
// CHECK: arith.select
// CHECK: scf.for %[[I:.*]] = {{.*}} iter_args(%{{.*}} = %[[OUT]]) -> (tensor<3x2xf32>)
// CHECK: tensor.extract %[[IDS]][%[[I]]] : tensor<5xi64>
// CHECK: %[[W:.*]] = tensor.extract %[[WEIGHTS]][%[[I]]] : tensor<5xf32>
// CHECK: arith.mulf %[[W]]
// CHECK: arith.mulf %[[W]]
// CHECK: scf.for
// CHECK: tensor.extract %[[TABLE]]
// CHECK: arith.addf {{.*}} : f32
// CHECK: arith.mulf {{.*}} : f64
// CHECK: arith.addf {{.*}} : f64
// CHECK: arith.truncf
// CHECK: tensor.insert
// CHECK: return %[[RESULT]]
func.func @embedding_bag_offsets(%arg0: tensor<5xi64>, %arg1: tensor<3xi64>, %arg2: tensor<5xf32>) -> tensor<3x2xf32> {
  %w = "tosa.const"() <{values = dense<[[0.0, 1.5], [1.0, 2.5], [-1.0, 0.5]]> : tensor<3x2xf32>}> : () -> tensor<3x2xf32>
  %q = qfx.observe %w id 0 spec(#qfx.observer<per_channel_minmax, dtype = quint8, qscheme = per_channel_affine_float_qparams>) : tensor<3x2xf32>
  %0 = qfx.composite "torch.nn.EmbeddingBag" (%arg0, %q, %arg1, %arg2) attributes {composite_attributes = {mode = "sum", include_last_offset = false}} : (tensor<5xi64>, tensor<3x2xf32>, tensor<3xi64>, tensor<5xf32>) -> tensor<3x2xf32> {
  ^bb0(%ids: tensor<5xi64>, %table: tensor<3x2xf32>, %offsets: tensor<3xi64>, %weights: tensor<5xf32>):
    %z = "tosa.const"() <{values = dense<0.0> : tensor<3x2xf32>}> : () -> tensor<3x2xf32>
    qfx.yield %z : tensor<3x2xf32>
  }
  return %0 : tensor<3x2xf32>
}
