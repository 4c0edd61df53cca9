// RUN: quant-opt %s --qfx-emulate-amx --split-input-file --verify-diagnostics | FileCheck %s

// Tiles become one vector a row: loads and stores row by row (rows advance
// along the second innermost dimension), tdpbusd as vpdpbusd per row and
// group of 4 k values (16 x 16 calls for 16x64-byte tiles), tiles carried by
// a loop as their rows; the AMX permission is taken as granted and the
// kernel no longer needs AMX features.
// CHECK-LABEL: func.func @kernel
// CHECK-NOT: target_features
// CHECK-NOT: amx.
// CHECK: %[[ZERO:.*]] = arith.constant dense<0> : vector<16xi32>
// CHECK: scf.for {{.*}} iter_args(%[[ACC0:[a-z0-9_]+]] = %[[ZERO]], {{.*}}) -> (vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>)
// CHECK-COUNT-32: vector.load {{.*}} vector<64xi8>
// CHECK: %[[WORDS:.*]] = vector.bitcast %{{.*}} : vector<64xi8> to vector<16xi32>
// CHECK: %[[WORD:.*]] = vector.extract %[[WORDS]][0] : i32 from vector<16xi32>
// CHECK: %[[SPLAT:.*]] = vector.broadcast %[[WORD]] : i32 to vector<16xi32>
// CHECK: %[[BYTES:.*]] = vector.bitcast %[[SPLAT]] : vector<16xi32> to vector<64xi8>
// CHECK: call @qfx.intrinsic.llvm.x86.avx512.vpdpbusd.512(%[[ACC0]], %[[BYTES]],
// CHECK-COUNT-255: call @qfx.intrinsic.llvm.x86.avx512.vpdpbusd.512
// CHECK-NOT: call @qfx.intrinsic
// CHECK: scf.yield
// CHECK-COUNT-16: vector.store {{.*}} : memref<16x16xi32>, vector<16xi32>
// CHECK-LABEL: func.func @dispatch
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: scf.if %[[TRUE]]
func.func @kernel(%a: memref<16x128xi8>, %b: memref<32x64xi8>, %c: memref<16x16xi32>) attributes {target_features = #llvm.target_features<["+amx-tile", "+amx-int8"]>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %z = amx.tile_zero : !amx.tile<16x16xi32>
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %z) -> (!amx.tile<16x16xi32>) {
    %col = arith.muli %i, %c64 : index
    %row = arith.muli %i, %c16 : index
    %ta = amx.tile_load %a[%c0, %col] : memref<16x128xi8> into !amx.tile<16x64xi8>
    %tb = amx.tile_load %b[%row, %c0] : memref<32x64xi8> into !amx.tile<16x64xi8>
    %n = amx.tile_muli %ta zext, %tb, %acc : !amx.tile<16x64xi8>, !amx.tile<16x64xi8>, !amx.tile<16x16xi32>
    scf.yield %n : !amx.tile<16x16xi32>
  }
  amx.tile_store %c[%c0, %c0], %r : memref<16x16xi32>, !amx.tile<16x16xi32>
  return
}
func.func private @qfx_amx_ready() -> i1
func.func @dispatch(%a: memref<16x128xi8>, %b: memref<32x64xi8>, %c: memref<16x16xi32>) {
  %ready = call @qfx_amx_ready() : () -> i1
  scf.if %ready {
    func.call @kernel(%a, %b, %c) : (memref<16x128xi8>, memref<32x64xi8>, memref<16x16xi32>) -> ()
  }
  return
}

// -----

// Only unsigned x signed products (tdpbusd) are emulated.
func.func @signed(%a: memref<16x64xi8>, %c: memref<16x16xi32>) {
  %c0 = arith.constant 0 : index
  %z = amx.tile_zero : !amx.tile<16x16xi32>
  %t = amx.tile_load %a[%c0, %c0] : memref<16x64xi8> into !amx.tile<16x64xi8>
  // expected-error @+1 {{failed to legalize operation 'amx.tile_muli'}}
  %n = amx.tile_muli %t, %t, %z : !amx.tile<16x64xi8>, !amx.tile<16x64xi8>, !amx.tile<16x16xi32>
  amx.tile_store %c[%c0, %c0], %n : memref<16x16xi32>, !amx.tile<16x16xi32>
  return
}
