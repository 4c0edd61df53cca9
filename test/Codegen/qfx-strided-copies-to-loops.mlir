// RUN: quant-opt %s --pass-pipeline="builtin.module(func.func(qfx-strided-copies-to-loops))" | FileCheck %s

// A copy into the interior of a padded buffer (a strided subview) becomes
// linalg.copy; a copy between contiguous buffers stays a memref.copy.
// CHECK-LABEL: func.func @pad_interior
// CHECK: %[[VIEW:.*]] = memref.subview
// CHECK-NEXT: linalg.copy ins(%{{.*}} : memref<1x4x4x8xi8>) outs(%[[VIEW]] : memref<1x4x4x8xi8, strided<[200, 40, 8, 1], offset: 48>>)
// CHECK-NOT: memref.copy %arg0, %[[VIEW]]
// CHECK: memref.copy %arg0, %arg2 : memref<1x4x4x8xi8> to memref<1x4x4x8xi8>
func.func @pad_interior(%x: memref<1x4x4x8xi8>, %padded: memref<1x5x5x8xi8>, %out: memref<1x4x4x8xi8>) {
  %view = memref.subview %padded[0, 1, 1, 0] [1, 4, 4, 8] [1, 1, 1, 1] : memref<1x5x5x8xi8> to memref<1x4x4x8xi8, strided<[200, 40, 8, 1], offset: 48>>
  memref.copy %x, %view : memref<1x4x4x8xi8> to memref<1x4x4x8xi8, strided<[200, 40, 8, 1], offset: 48>>
  memref.copy %x, %out : memref<1x4x4x8xi8> to memref<1x4x4x8xi8>
  return
}
