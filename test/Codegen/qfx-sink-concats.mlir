// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(qfx-sink-concats))" --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s
//
// The chain on the concatenation (Inputs/sink-concats.mlir) computes the same
// int8 values sunk into the operands as kept after the concat (returning the
// concat too, a second use, keeps it):
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np, sys; r = np.random.default_rng(0); np.save(sys.argv[1], r.integers(-128, 128, (1, 3, 4, 5)).astype(np.int8)); np.save(sys.argv[2], r.integers(-128, 128, (1, 3, 4, 3)).astype(np.int8))" %t/a.npy %t/b.npy
// RUN: sed -e 's/-> tensor<1x3x4x8xi8> {/-> (tensor<1x3x4x8xi8>, tensor<1x3x4x8xi8>) {/' -e 's/return %q : tensor<1x3x4x8xi8>/return %q, %c : tensor<1x3x4x8xi8>, tensor<1x3x4x8xi8>/' %S/Inputs/sink-concats.mlir > %t/kept.mlir
// RUN: quant-opt %t/kept.mlir --pass-pipeline="builtin.module(func.func(qfx-sink-concats))" | FileCheck %s --check-prefix=KEPT
// RUN: quant-run %S/Inputs/sink-concats.mlir --input=%t/a.npy,%t/b.npy -o %t/sunk.npy
// RUN: quant-run %t/kept.mlir --input=%t/a.npy,%t/b.npy -o %t/kept.npy,%t/concat.npy
// RUN: cmp %t/sunk.npy %t/kept.npy
//
// Each piece's loop writes into its part of the concatenation's buffer: no
// copy is left after bufferization (the passes of qfx-lower-to-native).
// RUN: quant-opt %S/Inputs/sink-concats.mlir --pass-pipeline="builtin.module(func.func(qfx-sink-concats,tosa-to-linalg,tosa-to-arith,tosa-to-tensor),convert-elementwise-to-linalg,func.func(qfx-fuse-elementwise),canonicalize,eliminate-empty-tensors,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},func.func(cse,canonicalize))" | FileCheck %s --check-prefix=INPLACE

// KEPT: tosa.concat
// KEPT: tosa.cast %{{.*}} : (tensor<1x3x4x8xi8>) -> tensor<1x3x4x8xi32>

// INPLACE: %[[BUF:.*]] = memref.alloc() {{.*}} : memref<1x3x4x8xi8>
// INPLACE: %[[A:.*]] = memref.subview %[[BUF]][0, 0, 0, 0] [1, 3, 4, 5]
// INPLACE: linalg.generic {{.*}} outs(%[[A]] :
// INPLACE: %[[B:.*]] = memref.subview %[[BUF]][0, 0, 0, 5] [1, 3, 4, 3]
// INPLACE: linalg.generic {{.*}} outs(%[[B]] :
// INPLACE-NOT: memref.copy
// INPLACE: return %[[BUF]]

// A per-channel chain on a concatenation runs on each operand, with the
// constants along the axis sliced (the multiplier [1, 2, 3 | 4, 5]), shared
// when they broadcast (the scalar 7) or are not per element (the shift);
// the concat of the pieces stands for the last op (its location and
// qfx.quantized; the pieces drop it).
// CHECK-LABEL: func.func @chain
// CHECK-DAG: %[[M1:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}1, 2, 3]]]]> : tensor<1x1x1x3xi32>}>
// CHECK-DAG: %[[M2:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}4, 5]]]]> : tensor<1x1x1x2xi32>}>
// CHECK-DAG: %[[K:.*]] = "tosa.const"() <{values = dense<7> : tensor<1x1x1x1xi32>}>
// CHECK-DAG: %[[SH:.*]] = "tosa.const"() <{values = dense<0> : tensor<1xi8>}>
// CHECK-DAG: %[[WA:.*]] = tosa.cast %arg0 : (tensor<1x2x2x3xi8>) -> tensor<1x2x2x3xi32>
// CHECK-DAG: %[[WB:.*]] = tosa.cast %arg1 : (tensor<1x2x2x2xi8>) -> tensor<1x2x2x2xi32>
// CHECK-DAG: %[[XA:.*]] = tosa.mul %[[WA]], %[[M1]], %[[SH]]
// CHECK-DAG: %[[XB:.*]] = tosa.mul %[[WB]], %[[M2]], %[[SH]]
// CHECK-DAG: %[[YA:.*]] = tosa.add %[[XA]], %[[K]]
// CHECK-DAG: %[[YB:.*]] = tosa.add %[[XB]], %[[K]]
// CHECK-DAG: %[[ZA:.*]] = tosa.clamp %[[YA]]
// CHECK-DAG: %[[ZB:.*]] = tosa.clamp %[[YB]]
// CHECK-DAG: %[[QA:.*]] = tosa.cast %[[ZA]] : (tensor<1x2x2x3xi32>) -> tensor<1x2x2x3xi8>
// CHECK-DAG: %[[QB:.*]] = tosa.cast %[[ZB]] : (tensor<1x2x2x2xi32>) -> tensor<1x2x2x2xi8>
// CHECK: %[[R:.*]] = tosa.concat %[[QA]], %[[QB]] {axis = 3 : i32, qfx.quantized = !quant.uniform<i8:f32, 5.000000e-01>} : (tensor<1x2x2x3xi8>, tensor<1x2x2x2xi8>) -> tensor<1x2x2x5xi8> loc("relu")
// CHECK: return %[[R]]
func.func @chain(%a: tensor<1x2x2x3xi8>, %b: tensor<1x2x2x2xi8>) -> tensor<1x2x2x5xi8> {
  %c = tosa.concat %a, %b {axis = 3 : i32} : (tensor<1x2x2x3xi8>, tensor<1x2x2x2xi8>) -> tensor<1x2x2x5xi8> loc("cat")
  %w = tosa.cast %c : (tensor<1x2x2x5xi8>) -> tensor<1x2x2x5xi32>
  %m = "tosa.const"() <{values = dense<[[[[1, 2, 3, 4, 5]]]]> : tensor<1x1x1x5xi32>}> : () -> tensor<1x1x1x5xi32>
  %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %x = tosa.mul %w, %m, %sh : (tensor<1x2x2x5xi32>, tensor<1x1x1x5xi32>, tensor<1xi8>) -> tensor<1x2x2x5xi32>
  %k = "tosa.const"() <{values = dense<7> : tensor<1x1x1x1xi32>}> : () -> tensor<1x1x1x1xi32>
  %y = tosa.add %x, %k : (tensor<1x2x2x5xi32>, tensor<1x1x1x1xi32>) -> tensor<1x2x2x5xi32>
  %z = tosa.clamp %y {min_val = -128 : i32, max_val = 127 : i32} : (tensor<1x2x2x5xi32>) -> tensor<1x2x2x5xi32>
  %q = tosa.cast %z {qfx.quantized = !quant.uniform<i8:f32, 0.5>} : (tensor<1x2x2x5xi32>) -> tensor<1x2x2x5xi8> loc("relu")
  return %q : tensor<1x2x2x5xi8>
}

// -----

// A table lookup shares its table; the concat is along the channels of NCHW
// (axis 1) here.
// CHECK-LABEL: func.func @table
// CHECK: %[[TA:.*]] = tosa.table %arg0, %[[T:.*]] : (tensor<1x2x3x3xi8>, tensor<256xi8>)
// CHECK: %[[TB:.*]] = tosa.table %arg1, %[[T]] : (tensor<1x1x3x3xi8>, tensor<256xi8>)
// CHECK: tosa.concat %[[TA]], %[[TB]] {axis = 1 : i32}
func.func @table(%a: tensor<1x2x3x3xi8>, %b: tensor<1x1x3x3xi8>) -> tensor<1x3x3x3xi8> {
  %c = tosa.concat %a, %b {axis = 1 : i32} : (tensor<1x2x3x3xi8>, tensor<1x1x3x3xi8>) -> tensor<1x3x3x3xi8>
  %t = "tosa.const"() <{values = dense<5> : tensor<256xi8>}> : () -> tensor<256xi8>
  %y = tosa.table %c, %t : (tensor<1x3x3x3xi8>, tensor<256xi8>) -> tensor<1x3x3x3xi8>
  return %y : tensor<1x3x3x3xi8>
}

// The table is never sliced, even where it has the concatenation's length.
// CHECK-LABEL: func.func @table_of_its_length
// CHECK: %[[T:.*]] = "tosa.const"() <{values = dense<5> : tensor<256xi8>}>
// CHECK: %[[TA:.*]] = tosa.table %arg0, %[[T]] : (tensor<128xi8>, tensor<256xi8>)
// CHECK: %[[TB:.*]] = tosa.table %arg1, %[[T]] : (tensor<128xi8>, tensor<256xi8>)
// CHECK: tosa.concat %[[TA]], %[[TB]] {axis = 0 : i32}
func.func @table_of_its_length(%a: tensor<128xi8>, %b: tensor<128xi8>) -> tensor<256xi8> {
  %c = tosa.concat %a, %b {axis = 0 : i32} : (tensor<128xi8>, tensor<128xi8>) -> tensor<256xi8>
  %t = "tosa.const"() <{values = dense<5> : tensor<256xi8>}> : () -> tensor<256xi8>
  %y = tosa.table %c, %t : (tensor<256xi8>, tensor<256xi8>) -> tensor<256xi8>
  return %y : tensor<256xi8>
}

// -----

// Left alone: a concat with a second user, an op with a second operand that
// is not a constant, and a constant that broadcasts the concat to a larger
// shape.
// CHECK-LABEL: func.func @kept
// CHECK: %[[C1:.*]] = tosa.concat %arg0, %arg1
// CHECK: tosa.cast %[[C1]]
// CHECK: %[[C2:.*]] = tosa.concat %arg0, %arg1
// CHECK: tosa.add %[[C2]], %arg2
// CHECK: %[[C3:.*]] = tosa.concat %arg0, %arg1
// CHECK: tosa.add %[[C3]], %{{.*}} : (tensor<1x1x1x3xi32>, tensor<1x2x2x3xi32>) -> tensor<1x2x2x3xi32>
func.func @kept(%a: tensor<1x1x1x2xi32>, %b: tensor<1x1x1x1xi32>, %r: tensor<1x1x1x3xi32>) -> (tensor<1x1x1x3xi8>, tensor<1x1x1x3xi32>, tensor<1x1x1x3xi32>, tensor<1x2x2x3xi32>) {
  %c1 = tosa.concat %a, %b {axis = 3 : i32} : (tensor<1x1x1x2xi32>, tensor<1x1x1x1xi32>) -> tensor<1x1x1x3xi32>
  %y1 = tosa.cast %c1 : (tensor<1x1x1x3xi32>) -> tensor<1x1x1x3xi8>
  %c2 = tosa.concat %a, %b {axis = 3 : i32} : (tensor<1x1x1x2xi32>, tensor<1x1x1x1xi32>) -> tensor<1x1x1x3xi32>
  %y2 = tosa.add %c2, %r : (tensor<1x1x1x3xi32>, tensor<1x1x1x3xi32>) -> tensor<1x1x1x3xi32>
  %c3 = tosa.concat %a, %b {axis = 3 : i32} : (tensor<1x1x1x2xi32>, tensor<1x1x1x1xi32>) -> tensor<1x1x1x3xi32>
  %big = "tosa.const"() <{values = dense<1> : tensor<1x2x2x3xi32>}> : () -> tensor<1x2x2x3xi32>
  %y3 = tosa.add %c3, %big : (tensor<1x1x1x3xi32>, tensor<1x2x2x3xi32>) -> tensor<1x2x2x3xi32>
  return %y1, %c1, %y2, %y3 : tensor<1x1x1x3xi8>, tensor<1x1x1x3xi32>, tensor<1x1x1x3xi32>, tensor<1x2x2x3xi32>
}

// -----

// More operands than max-operands: left alone.
// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(qfx-sink-concats{max-operands=2}))" | FileCheck %s --check-prefix=MAX
// MAX-LABEL: func.func @three
// MAX: %[[C:.*]] = tosa.concat %arg0, %arg1, %arg2
// MAX: tosa.cast %[[C]]
// CHECK-LABEL: func.func @three
// CHECK: tosa.cast %arg0
// CHECK: tosa.cast %arg1
// CHECK: tosa.cast %arg2
// CHECK: tosa.concat
func.func @three(%a: tensor<1x1xi8>, %b: tensor<1x1xi8>, %c: tensor<1x1xi8>) -> tensor<1x3xi32> {
  %cat = tosa.concat %a, %b, %c {axis = 1 : i32} : (tensor<1x1xi8>, tensor<1x1xi8>, tensor<1x1xi8>) -> tensor<1x3xi8>
  %y = tosa.cast %cat : (tensor<1x3xi8>) -> tensor<1x3xi32>
  return %y : tensor<1x3xi32>
}
