// RUN: rm -rf %t && mkdir -p %t && %python %S/Inputs/byte-constants.py %t
// RUN: quant-opt %t/globals.mlir --qfx-byte-constants | FileCheck %s
// RUN: quant-opt %t/globals.mlir --pass-pipeline='builtin.module(qfx-lower-to-native)' --dump-pass-pipeline 2>&1 >/dev/null | FileCheck %s --check-prefix=AOT
// RUN: quant-opt %t/globals.mlir --pass-pipeline='builtin.module(qfx-lower-to-native{byte-constants=false})' --dump-pass-pipeline 2>&1 >/dev/null | FileCheck %s --check-prefix=JIT

// A constant array of 1024 floats (4096 bytes) becomes its bytes, the
// floats' little-endian encodings (1.0 = 0x3F800000, 2.0 = 0x40000000);
// smaller arrays, splats, byte arrays and mutable globals stay as they are.
// CHECK: llvm.mlir.global private constant @big(dense<"0x0000803F00000040{{[0-9A-F]*}}"> : tensor<4096xi8>) {addr_space = 0 : i32, alignment = 64 : i64} : !llvm.array<4096 x i8>
// CHECK: llvm.mlir.global private constant @small({{.*}} : tensor<1023xf32>) {{.*}} : !llvm.array<1023 x f32>
// CHECK: llvm.mlir.global private constant @splat(dense<1.000000e+00> : tensor<2048xf32>) {{.*}} : !llvm.array<2048 x f32>
// CHECK: llvm.mlir.global private constant @bytes({{.*}} : tensor<8192xi8>) {{.*}} : !llvm.array<8192 x i8>
// CHECK: llvm.mlir.global private @mutable({{.*}} : tensor<1024xi32>) {{.*}} : !llvm.array<1024 x i32>

// qfx-lower-to-native ends with it (quant-compile's object files) unless
// byte-constants=false (quant-run's JIT, which does not compile large
// constants: Runtime/bound-constants.test).
// AOT: reconcile-unrealized-casts,{{[[:space:]]*}}qfx-byte-constants
// JIT: reconcile-unrealized-casts{{[[:space:]]*}})
