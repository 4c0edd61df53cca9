// RUN: quant-opt %s --qfx-lower-intrinsic-calls | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t && %python %S/Inputs/expf.py write %t
// RUN: quant-run %t/exp.mlir --input=%t/x.npy -o %t/y.npy --emit-llvm=%t/exp.ll
// RUN: FileCheck %s --check-prefix=LLVM < %t/exp.ll
// RUN: %python %S/Inputs/expf.py check %t | FileCheck %s --check-prefix=LIBM

// An f32 math.exp becomes glibc's expf as arithmetic: k + r = x * 32 / ln 2
// by fused multiply-adds in double, 2^(k/32) from the 32-entry table and the
// exponent bits, a cubic in r, one rounding to float, then the out-of-range
// inputs and NaN. Other exps stay (libm calls).
// CHECK: memref.global "private" constant @qfx_expf_table : memref<32xi64> = dense<[4607182418800017408, 4607140297302181236,
// CHECK-LABEL: func.func @softmax_exp
// CHECK: %[[TABLE:.*]] = memref.get_global @qfx_expf_table
// CHECK: %[[XD:.*]] = arith.extf %[[X:.*]] : f32 to f64
// CHECK: %[[SHIFTED:.*]] = llvm.intr.fma(%{{.*}}, %[[XD]], %{{.*}})
// CHECK: %[[KI:.*]] = arith.bitcast %[[SHIFTED]] : f64 to i64
// CHECK: %[[KD:.*]] = arith.subf %[[SHIFTED]]
// CHECK: %[[NEG:.*]] = arith.negf %[[KD]]
// CHECK: %[[R:.*]] = llvm.intr.fma(%{{.*}}, %[[XD]], %[[NEG]])
// CHECK: %[[I:.*]] = arith.andi %[[KI]], %{{.*}} : i64
// CHECK: %[[INDEX:.*]] = arith.index_cast %[[I]]
// CHECK: memref.load %[[TABLE]][%[[INDEX]]]
// CHECK: arith.shli %[[KI]]
// CHECK-COUNT-3: llvm.intr.fma
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: arith.cmpf uno
// CHECK: arith.cmpf olt, %[[X]], %{{.*}} : f32
// CHECK: arith.cmpf ogt, %[[X]], %{{.*}} : f32
// CHECK-NOT: math.exp
// CHECK-LABEL: func.func @double_exp
// CHECK: math.exp %{{.*}} : f64
func.func @softmax_exp(%x: f32) -> f32 {
  %e = math.exp %x : f32
  return %e : f32
}
func.func @double_exp(%x: f64) -> f64 {
  %e = math.exp %x : f64
  return %e : f64
}

// In quant-run's pipeline, LLVM vectorizes it (the table read as a gather),
// and it equals libm's expf on every sample, bit for bit.
// LLVM: @llvm.masked.gather
// LLVM-NOT: @expf
// LIBM: libm's expf on all {{[0-9]+}} inputs, bit for bit
