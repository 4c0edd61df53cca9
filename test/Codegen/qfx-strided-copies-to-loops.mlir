// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(qfx-strided-copies-to-loops))" | FileCheck %s

// A copy into the interior of a padded buffer (a strided subview) becomes a
// loop over its rows (n and h, flattened), each row (64 x 8 bytes, contiguous
// in both) a memref.copy; a copy between contiguous buffers stays as it is.
// CHECK-LABEL: func.func @pad_interior
// CHECK: %[[VIEW:.*]] = memref.subview %arg1[0, 1, 1, 0]
// CHECK: %[[ROWS:.*]] = arith.constant 4 : index
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %[[ROWS]]
// CHECK: %[[H:.*]] = arith.remui %[[ROW]], %{{.*}}
// CHECK: %[[N:.*]] = arith.divui %[[ROW]], %{{.*}}
// CHECK: %[[N0:.*]] = arith.remui %[[N]], %{{.*}}
// CHECK: %[[FROM:.*]] = memref.subview %arg0[%[[N0]], %[[H]], 0, 0] [1, 1, 64, 8] [1, 1, 1, 1]
// CHECK: %[[TO:.*]] = memref.subview %[[VIEW]][%[[N0]], %[[H]], 0, 0] [1, 1, 64, 8] [1, 1, 1, 1]
// CHECK: memref.copy %[[FROM]], %[[TO]]
// CHECK: }
// CHECK: memref.copy %arg0, %arg2 : memref<1x4x64x8xi8> to memref<1x4x64x8xi8>
func.func @pad_interior(%x: memref<1x4x64x8xi8>, %padded: memref<1x5x65x8xi8>, %out: memref<1x4x64x8xi8>) {
  %view = memref.subview %padded[0, 1, 1, 0] [1, 4, 64, 8] [1, 1, 1, 1] : memref<1x5x65x8xi8> to memref<1x4x64x8xi8, strided<[2600, 520, 8, 1], offset: 528>>
  memref.copy %x, %view : memref<1x4x64x8xi8> to memref<1x4x64x8xi8, strided<[2600, 520, 8, 1], offset: 528>>
  memref.copy %x, %out : memref<1x4x64x8xi8> to memref<1x4x64x8xi8>
  return
}

// -----

// Rows shorter than 256 bytes (a concatenation input's 8 channels) stay a
// memref.copy: the loop would cost more code than it saves.
// CHECK-LABEL: func.func @short_rows
// CHECK-NOT: scf.for
// CHECK: memref.copy
func.func @short_rows(%x: memref<1x4x4x8xf32>, %cat: memref<1x4x4x16xf32>) {
  %view = memref.subview %cat[0, 0, 0, 8] [1, 4, 4, 8] [1, 1, 1, 1] : memref<1x4x4x16xf32> to memref<1x4x4x8xf32, strided<[256, 64, 16, 1], offset: 8>>
  memref.copy %x, %view : memref<1x4x4x8xf32> to memref<1x4x4x8xf32, strided<[256, 64, 16, 1], offset: 8>>
  return
}

// -----

// No contiguous innermost dimension (a transposition): linalg.copy, loops
// LLVM vectorizes.
// CHECK-LABEL: func.func @transposed
// CHECK: linalg.copy
// CHECK-NOT: memref.copy
func.func @transposed(%x: memref<64x64xf32>, %y: memref<64x64xf32>) {
  %t = memref.transpose %y (d0, d1) -> (d1, d0) : memref<64x64xf32> to memref<64x64xf32, strided<[1, 64]>>
  memref.copy %x, %t : memref<64x64xf32> to memref<64x64xf32, strided<[1, 64]>>
  return
}
