// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(qfx-int8-clamps))" | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t && %python %S/Inputs/int8-clamps.py write %t
// RUN: quant-run %t/folded.mlir --input=%t/x.npy -o %t/folded0.npy,%t/folded1.npy,%t/folded2.npy
// RUN: quant-run %t/kept.mlir --input=%t/x.npy -o %t/kept0.npy,%t/s0.npy,%t/kept1.npy,%t/s1.npy,%t/kept2.npy,%t/s2.npy
// RUN: %python %S/Inputs/int8-clamps.py check %t | FileCheck %s --check-prefix=SAME
// RUN: quant-opt %t/folded.mlir --pass-pipeline="builtin.module(func.func(qfx-int8-clamps))" | FileCheck %s --check-prefix=FOLDED

// In quant-run's pipeline, chains that qfx-int8-clamps makes clamps give
// the same int8 values, on every input, as the same chains kept (their
// int32 start has a second use); all three are folded.
// SAME: chain 0: equal, outputs in [-59, 127]
// SAME: chain 1: equal, outputs in [-103, 47]
// SAME: chain 2: equal, outputs in [-128, 127]
// FOLDED-COUNT-3: tosa.clamp %arg0
// FOLDED-NOT: tosa.mul

// qfx-lower's ReLU6 (hardtanh with the input's qparams): a clamp to
// [-59, 127] keeping the last cast's location and qparams.
// CHECK-LABEL: func.func @relu6
// CHECK-SAME: (%[[X:.*]]: tensor<1x4xi8>)
// CHECK: %[[C:.*]] = tosa.clamp %[[X]] {max_val = 127 : i8, min_val = -59 : i8, qfx.quantized = !quant.uniform<i8:f32, 1.000000e-01:-59>} : (tensor<1x4xi8>) -> tensor<1x4xi8>
// CHECK-NOT: tosa.cast
// CHECK: return %[[C]]
func.func @relu6(%x: tensor<1x4xi8>) -> tensor<1x4xi8> {
  %0 = tosa.cast %x : (tensor<1x4xi8>) -> tensor<1x4xi32>
  %m = "tosa.const"() <{values = dense<1048575> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %s = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %1 = tosa.mul %0, %m, %s : (tensor<1x4xi32>, tensor<1x1xi32>, tensor<1xi8>) -> tensor<1x4xi32>
  %r = "tosa.const"() <{values = dense<127> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %2 = tosa.add %1, %r : (tensor<1x4xi32>, tensor<1x1xi32>) -> tensor<1x4xi32>
  %t = "tosa.const"() <{values = dense<20> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %3 = tosa.arithmetic_right_shift %2, %t {round = false} : (tensor<1x4xi32>, tensor<1x1xi32>) -> tensor<1x4xi32>
  %lo = "tosa.const"() <{values = dense<-59> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %4 = tosa.maximum %3, %lo : (tensor<1x4xi32>, tensor<1x1xi32>) -> tensor<1x4xi32>
  %hi = "tosa.const"() <{values = dense<127> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %5 = tosa.minimum %4, %hi : (tensor<1x4xi32>, tensor<1x1xi32>) -> tensor<1x4xi32>
  %6 = tosa.cast %5 {qfx.quantized = !quant.uniform<i8:f32, 0.1:-59>} : (tensor<1x4xi32>) -> tensor<1x4xi8>
  return %6 : tensor<1x4xi8>
}

// -----

// Left alone: a chain that is not a clamp (x * 2, clamped), one with a
// per-channel constant, one whose start has a second use, one that does not
// end in int8, one whose product leaves int32, and one whose constant
// broadcasts the value to a larger shape.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: tosa.clamp %arg0
// CHECK: return
func.func @kept(%x: tensor<1x4xi8>) -> (tensor<1x4xi8>, tensor<1x4xi8>, tensor<1x4xi8>, tensor<1x4xi32>, tensor<1x4xi32>, tensor<1x4xi8>, tensor<2x4xi8>) {
  %s = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %two = "tosa.const"() <{values = dense<2> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %a0 = tosa.cast %x : (tensor<1x4xi8>) -> tensor<1x4xi32>
  %a1 = tosa.mul %a0, %two, %s : (tensor<1x4xi32>, tensor<1x1xi32>, tensor<1xi8>) -> tensor<1x4xi32>
  %a2 = tosa.clamp %a1 {min_val = -128 : i32, max_val = 127 : i32} : (tensor<1x4xi32>) -> tensor<1x4xi32>
  %a3 = tosa.cast %a2 : (tensor<1x4xi32>) -> tensor<1x4xi8>
  %per = "tosa.const"() <{values = dense<[[0, 1, 0, 0]]> : tensor<1x4xi32>}> : () -> tensor<1x4xi32>
  %b0 = tosa.cast %x : (tensor<1x4xi8>) -> tensor<1x4xi32>
  %b1 = tosa.maximum %b0, %per : (tensor<1x4xi32>, tensor<1x4xi32>) -> tensor<1x4xi32>
  %b2 = tosa.cast %b1 : (tensor<1x4xi32>) -> tensor<1x4xi8>
  %zero = "tosa.const"() <{values = dense<0> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %c0 = tosa.cast %x : (tensor<1x4xi8>) -> tensor<1x4xi32>
  %c1 = tosa.maximum %c0, %zero : (tensor<1x4xi32>, tensor<1x1xi32>) -> tensor<1x4xi32>
  %c2 = tosa.cast %c1 : (tensor<1x4xi32>) -> tensor<1x4xi8>
  %d0 = tosa.cast %x : (tensor<1x4xi8>) -> tensor<1x4xi32>
  %d1 = tosa.maximum %d0, %zero : (tensor<1x4xi32>, tensor<1x1xi32>) -> tensor<1x4xi32>
  %big = "tosa.const"() <{values = dense<1073741824> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %e0 = tosa.cast %x : (tensor<1x4xi8>) -> tensor<1x4xi32>
  %e1 = tosa.mul %e0, %big, %s : (tensor<1x4xi32>, tensor<1x1xi32>, tensor<1xi8>) -> tensor<1x4xi32>
  %e2 = tosa.arithmetic_right_shift %e1, %big {round = false} : (tensor<1x4xi32>, tensor<1x1xi32>) -> tensor<1x4xi32>
  %e3 = tosa.cast %e2 : (tensor<1x4xi32>) -> tensor<1x4xi8>
  %wide = "tosa.const"() <{values = dense<-128> : tensor<2x4xi32>}> : () -> tensor<2x4xi32>
  %f0 = tosa.cast %x : (tensor<1x4xi8>) -> tensor<1x4xi32>
  %f1 = tosa.maximum %f0, %wide : (tensor<1x4xi32>, tensor<2x4xi32>) -> tensor<2x4xi32>
  %f2 = tosa.cast %f1 : (tensor<2x4xi32>) -> tensor<2x4xi8>
  return %a3, %b2, %c2, %c0, %d1, %e3, %f2 : tensor<1x4xi8>, tensor<1x4xi8>, tensor<1x4xi8>, tensor<1x4xi32>, tensor<1x4xi32>, tensor<1x4xi8>, tensor<2x4xi8>
}
