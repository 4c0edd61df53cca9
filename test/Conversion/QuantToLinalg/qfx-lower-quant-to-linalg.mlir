// RUN: quant-opt %s --qfx-lower-quant-to-linalg --split-input-file | FileCheck %s

// Quantize then dequantize per tensor: PyTorch's arithmetic, in its order.
// The pair must not fold away (upstream folds dcast(qcast(x)) to x).
// CHECK-LABEL: func.func @per_tensor
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 1.000000e-01 : f32
// CHECK-DAG: %[[INV:.*]] = arith.constant 1.000000e+01 : f32
// CHECK-DAG: %[[ZP:.*]] = arith.constant 128 : i64
// CHECK-DAG: %[[QMIN:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[QMAX:.*]] = arith.constant 255 : i64
// CHECK: %[[Q:.*]] = linalg.generic
// CHECK:   %[[M:.*]] = arith.mulf %{{.*}}, %[[INV]] : f32
// CHECK:   %[[R:.*]] = math.roundeven %[[M]] : f32
// CHECK:   %[[ZF:.*]] = arith.sitofp %[[ZP]] : i64 to f32
// CHECK:   %[[A:.*]] = arith.addf %[[R]], %[[ZF]] : f32
// Values beyond int64 (and NaN) become INT64_MIN, as on x86, not poison.
// CHECK:   %[[ABS:.*]] = math.absf %[[A]] : f32
// CHECK:   %[[FITS:.*]] = arith.cmpf olt, %[[ABS]], %{{.*}} : f32
// CHECK:   %[[SAFE:.*]] = arith.select %[[FITS]], %[[A]], %{{.*}} : f32
// CHECK:   %[[C:.*]] = arith.fptosi %[[SAFE]] : f32 to i64
// CHECK:   %[[I:.*]] = arith.select %[[FITS]], %[[C]], %{{.*}} : i64
// CHECK:   %[[LO:.*]] = arith.maxsi %[[I]], %[[QMIN]] : i64
// CHECK:   %[[HI:.*]] = arith.minsi %[[LO]], %[[QMAX]] : i64
// CHECK:   %[[T:.*]] = arith.trunci %[[HI]] : i64 to i8
// CHECK:   linalg.yield %[[T]] : i8
// CHECK: } -> tensor<2x3xi8>
// Per tensor, aten subtracts the zero point in int32.
// CHECK: %[[D:.*]] = linalg.generic {{.*}} ins(%[[Q]] : tensor<2x3xi8>)
// CHECK:   %[[W:.*]] = arith.extui %{{.*}} : i8 to i32
// CHECK:   %[[Z32:.*]] = arith.trunci %[[ZP]] : i64 to i32
// CHECK:   %[[C:.*]] = arith.subi %[[W]], %[[Z32]] : i32
// CHECK:   %[[F:.*]] = arith.sitofp %[[C]] : i32 to f32
// CHECK:   %[[Y:.*]] = arith.mulf %[[F]], %[[SCALE]] : f32
// CHECK:   linalg.yield %[[Y]] : f32
// CHECK: return %[[D]]
func.func @per_tensor(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %q = quant.qcast %x : tensor<2x3xf32> to tensor<2x3x!quant.uniform<u8:f32, 0.1:128>>
  %d = quant.dcast %q : tensor<2x3x!quant.uniform<u8:f32, 0.1:128>> to tensor<2x3xf32>
  return %d : tensor<2x3xf32>
}

// -----

// Per-axis weights: integer constants, scales indexed by the channel; aten
// multiplies by the double scale in double.
// CHECK: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK: #[[CH:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @per_axis_weight
// CHECK-DAG: %[[W:.*]] = arith.constant dense<{{\[\[}}1, -2, 3], [4, 5, -6]]> : tensor<2x3xi8>
// CHECK-DAG: %[[S:.*]] = arith.constant dense<[1.000000e-01, 2.000000e-01, 3.000000e-01]> : tensor<3xf32>
// CHECK-DAG: %[[Z:.*]] = arith.constant dense<[0, 1, -1]> : tensor<3xi64>
// CHECK-DAG: %[[S64:.*]] = arith.constant dense<[1.000000e-01, 2.000000e-01, 3.000000e-01]> : tensor<3xf64>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[CH]], #[[CH]], #[[CH]], #[[CH]], #[[ID]]]{{.*}} ins(%[[W]], %[[S]], %{{.*}}, %[[Z]], %[[S64]] :
// CHECK:   %[[F:.*]] = arith.sitofp %{{.*}} : i8 to f32
// CHECK:   %[[ZF:.*]] = arith.sitofp %{{.*}} : i64 to f32
// CHECK:   %[[C:.*]] = arith.subf %[[F]], %[[ZF]] : f32
// CHECK:   %[[E:.*]] = arith.extf %[[C]] : f32 to f64
// CHECK:   %[[P:.*]] = arith.mulf %[[E]], %{{.*}} : f64
// CHECK:   arith.truncf %[[P]] : f64 to f32
// CHECK-NOT: quant.
func.func @per_axis_weight() -> tensor<2x3xf32> {
  %w = arith.constant dense<[[1, -2, 3], [4, 5, -6]]> : tensor<2x3xi8>
  %q = quant.scast %w : tensor<2x3xi8> to tensor<2x3x!quant.uniform<i8:f32:1, {0.1, 0.2:1, 0.3:-1}>>
  %d = quant.dcast %q : tensor<2x3x!quant.uniform<i8:f32:1, {0.1, 0.2:1, 0.3:-1}>> to tensor<2x3xf32>
  return %d : tensor<2x3xf32>
}

// -----

// Custom storage ranges clamp to them (quint4x2-style [0, 15]).
// CHECK-LABEL: func.func @narrow_range
// CHECK-DAG: arith.constant 15 : i64
// CHECK: arith.minsi
func.func @narrow_range(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<u8<0:15>:f32, 0.5:2>>
  %d = quant.dcast %q : tensor<4x!quant.uniform<u8<0:15>:f32, 0.5:2>> to tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @fake_quant
// CHECK: linalg.generic
// CHECK:   arith.mulf
// CHECK:   math.roundeven
// CHECK:   arith.fptosi {{.*}} : f32 to i64
// CHECK:   arith.subi
// CHECK:   arith.sitofp {{.*}} : i64 to f64
// CHECK:   arith.extf {{.*}} : f32 to f64
// CHECK:   arith.mulf {{.*}} : f64
// CHECK:   arith.truncf {{.*}} : f64 to f32
// CHECK: } -> tensor<4xf32>
func.func @fake_quant(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = qfx.fake_quant %x as !quant.uniform<i8:f32, 0.25:-3> : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Run-time scale and zero point; unsigned results go through a bitcast.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[S:.*]]: tensor<f32>, %[[Z:.*]]: tensor<i32>)
// CHECK: %[[SV:.*]] = tensor.extract %[[S]][] : tensor<f32>
// CHECK: %[[INV:.*]] = arith.divf %{{.*}}, %[[SV]] : f32
// CHECK: %[[ZV:.*]] = tensor.extract %[[Z]][] : tensor<i32>
// CHECK: %[[Q:.*]] = linalg.generic
// CHECK:   arith.mulf %{{.*}}, %[[INV]]
// CHECK: } -> tensor<4xi8>
// CHECK: %[[U:.*]] = tensor.bitcast %[[Q]] : tensor<4xi8> to tensor<4xui8>
// CHECK: %[[B:.*]] = tensor.bitcast %[[U]] : tensor<4xui8> to tensor<4xi8>
// CHECK: linalg.generic {{.*}} ins(%[[B]] : tensor<4xi8>)
// CHECK:   arith.extui
func.func @dynamic(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<4xf32> {
  %q = qfx.quantize %x, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<i32>) -> tensor<4xui8>
  %d = qfx.dequantize %q, %s, %z : (tensor<4xui8>, tensor<f32>, tensor<i32>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// A run-time f64 scale (PyTorch's double, as oneDNN's reorder takes it):
// the reciprocal in double rounded to float, the zero point added by an fma
// before rounding half to even.
// CHECK-LABEL: func.func @double_scale
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[S:.*]]: tensor<f64>, %[[Z:.*]]: tensor<i32>)
// CHECK: %[[SV:.*]] = tensor.extract %[[S]][] : tensor<f64>
// CHECK: %[[INV64:.*]] = arith.divf %{{.*}}, %[[SV]] : f64
// CHECK: %[[INV:.*]] = arith.truncf %[[INV64]] : f64 to f32
// CHECK: linalg.generic
// CHECK:   %[[ZF:.*]] = arith.sitofp %{{.*}} : i64 to f32
// CHECK:   %[[F:.*]] = math.fma %{{.*}}, %[[INV]], %[[ZF]] : f32
// CHECK:   math.roundeven %[[F]] : f32
func.func @double_scale(%x: tensor<4xf32>, %s: tensor<f64>, %z: tensor<i32>) -> tensor<4xui8> {
  %q = qfx.quantize %x, %s, %z : (tensor<4xf32>, tensor<f64>, tensor<i32>) -> tensor<4xui8>
  return %q : tensor<4xui8>
}
