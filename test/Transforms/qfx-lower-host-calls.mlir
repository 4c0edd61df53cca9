// RUN: quant-opt %s -split-input-file --qfx-lower-host-calls | FileCheck %s
// RUN: quant-opt %s -split-input-file --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" | FileCheck %s --check-prefix=BUFFERS

// The buffer form calls the runtime with the id and the buffers' addresses,
// inputs then outputs.
// CHECK: func.func private @qfxHostCall(i64, memref<?xi64>) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @buffers
// CHECK-SAME: (%[[X:.*]]: memref<1x10xf32>, %[[V:.*]]: memref<1x3xf32>, %[[I:.*]]: memref<1x3xi64>)
// CHECK: %[[A:.*]] = memref.alloca() : memref<3xi64>
// CHECK: %[[PX:.*]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK: %[[PX64:.*]] = arith.index_cast %[[PX]] : index to i64
// CHECK: memref.store %[[PX64]], %[[A]][%{{.*}}]
// CHECK: memref.extract_aligned_pointer_as_index %[[V]]
// CHECK: memref.extract_aligned_pointer_as_index %[[I]]
// CHECK: %[[D:.*]] = memref.cast %[[A]] : memref<3xi64> to memref<?xi64>
// CHECK: %[[ID:.*]] = arith.constant 7 : i64
// CHECK: call @qfxHostCall(%[[ID]], %[[D]])
// CHECK-NOT: qfx.host_call
func.func @buffers(%x: memref<1x10xf32>, %v: memref<1x3xf32>, %i: memref<1x3xi64>) {
  qfx.host_call "torch.topk" id 7 (%x) outs(%v, %i) : (memref<1x10xf32>, memref<1x3xf32>, memref<1x3xi64>) -> ()
  return
}

// -----

// A strided buffer is copied to a C-order one for the host (an output back
// after the call).
// CHECK-LABEL: func.func @strided
// CHECK-SAME: (%[[X:.*]]: memref<2x3xf32, strided<[6, 2]>>, %[[Y:.*]]: memref<2x3xf32, strided<[1, 2]>>)
// CHECK: %[[CX:.*]] = memref.alloc() : memref<2x3xf32>
// CHECK: memref.copy %[[X]], %[[CX]]
// CHECK: %[[CY:.*]] = memref.alloc() : memref<2x3xf32>
// CHECK: memref.extract_aligned_pointer_as_index %[[CX]]
// CHECK: memref.extract_aligned_pointer_as_index %[[CY]]
// CHECK: call @qfxHostCall
// CHECK: memref.copy %[[CY]], %[[Y]]
// CHECK: memref.dealloc %[[CX]]
// CHECK: memref.dealloc %[[CY]]
func.func @strided(%x: memref<2x3xf32, strided<[6, 2]>>, %y: memref<2x3xf32, strided<[1, 2]>>) {
  qfx.host_call "f" id 0 (%x) outs(%y) : (memref<2x3xf32, strided<[6, 2]>>, memref<2x3xf32, strided<[1, 2]>>) -> ()
  return
}

// -----

// The tensor form is bufferization's to turn into the buffer form: the
// pass leaves it. Bufferized, each result is a fresh buffer.
// CHECK-LABEL: func.func @tensors
// CHECK: qfx.host_call "f" id 0(%{{.*}}) : (tensor<2xf32>) -> tensor<2xi1>
// CHECK-NOT: qfxHostCall
// BUFFERS-LABEL: func.func @tensors
// BUFFERS-SAME: (%[[X:.*]]: memref<2xf32>)
// BUFFERS: %[[OUT:.*]] = memref.alloc() {{.*}}: memref<2xi1>
// BUFFERS: qfx.host_call "f" id 0(%[[X]]) outs(%[[OUT]]) : (memref<2xf32>, memref<2xi1>) -> ()
// BUFFERS: return %[[OUT]]
func.func @tensors(%x: tensor<2xf32>) -> tensor<2xi1> {
  %0 = qfx.host_call "f" id 0 (%x) : (tensor<2xf32>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}
