// RUN: rm -rf %t && mkdir -p %t && %python %S/Inputs/byte-constants.py write %t
// RUN: quant-opt %t/globals.mlir --qfx-byte-constants | FileCheck %s
// RUN: quant-run %t/ramp.mlir --input=%t/x.npy -o %t/y.npy --emit-llvm=%t/ramp.ll
// RUN: FileCheck %s --check-prefix=LLVM < %t/ramp.ll
// RUN: %python %S/Inputs/byte-constants.py check %t | FileCheck %s --check-prefix=RAMP

// A constant array of 1024 floats (4096 bytes) becomes its bytes, the
// floats' little-endian encodings (1.0 = 0x3F800000, 2.0 = 0x40000000);
// smaller arrays, splats, byte arrays and mutable globals stay as they are.
// CHECK: llvm.mlir.global private constant @big(dense<"0x0000803F00000040{{[0-9A-F]*}}"> : tensor<4096xi8>) {addr_space = 0 : i32, alignment = 64 : i64} : !llvm.array<4096 x i8>
// CHECK: llvm.mlir.global private constant @small({{.*}} : tensor<1023xf32>) {{.*}} : !llvm.array<1023 x f32>
// CHECK: llvm.mlir.global private constant @splat(dense<1.000000e+00> : tensor<2048xf32>) {{.*}} : !llvm.array<2048 x f32>
// CHECK: llvm.mlir.global private constant @bytes({{.*}} : tensor<8192xi8>) {{.*}} : !llvm.array<8192 x i8>
// CHECK: llvm.mlir.global private @mutable({{.*}} : tensor<1024xi32>) {{.*}} : !llvm.array<1024 x i32>

// In quant-run's pipeline: the module the JIT compiles (--emit-llvm) holds a
// 1024-float constant as bytes, and the program reads back the same floats.
// LLVM: constant [4096 x i8]
// RAMP: the ramp, bit for bit
