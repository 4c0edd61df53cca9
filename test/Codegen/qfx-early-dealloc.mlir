// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(qfx-early-dealloc))" | FileCheck %s

// Each buffer is freed after its last use: %a after the second call (which
// reads it), %b after the third.
func.func private @kernel(memref<4xi8>, memref<4xi8>)

// CHECK-LABEL: func.func @chain
// CHECK:      %[[A:.*]] = memref.alloc()
// CHECK-NEXT: call @kernel(%arg0, %[[A]])
// CHECK-NEXT: %[[B:.*]] = memref.alloc()
// CHECK-NEXT: call @kernel(%[[A]], %[[B]])
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: call @kernel(%[[B]], %arg1)
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK-NEXT: return
func.func @chain(%x: memref<4xi8>, %out: memref<4xi8>) {
  %a = memref.alloc() : memref<4xi8>
  call @kernel(%x, %a) : (memref<4xi8>, memref<4xi8>) -> ()
  %b = memref.alloc() : memref<4xi8>
  call @kernel(%a, %b) : (memref<4xi8>, memref<4xi8>) -> ()
  call @kernel(%b, %out) : (memref<4xi8>, memref<4xi8>) -> ()
  memref.dealloc %a : memref<4xi8>
  memref.dealloc %b : memref<4xi8>
  return
}

// -----

// Uses through an alias (a view of a view) and inside a loop count: the
// buffer is freed after the loop that reads the alias, not after the view.
// A buffer nothing uses is freed where it is allocated.
func.func private @kernel(memref<4xi8>, memref<4xi8>)

// CHECK-LABEL: func.func @aliases
// CHECK:      %[[A:.*]] = memref.alloc()
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK:      %[[B:.*]] = memref.alloc()
// CHECK:      memref.collapse_shape %[[B]]
// CHECK:      scf.for
// CHECK:        call @kernel
// CHECK:      }
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK-NEXT: call @kernel(%arg0, %arg0)
// CHECK-NEXT: return
func.func @aliases(%x: memref<4xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %unused = memref.alloc() : memref<4xi8>
  %b = memref.alloc() : memref<2x2xi8>
  %flat = memref.collapse_shape %b [[0, 1]] : memref<2x2xi8> into memref<4xi8>
  %view = memref.cast %flat : memref<4xi8> to memref<?xi8>
  scf.for %i = %c0 to %c2 step %c1 {
    %same = memref.cast %view : memref<?xi8> to memref<4xi8>
    func.call @kernel(%x, %same) : (memref<4xi8>, memref<4xi8>) -> ()
  }
  call @kernel(%x, %x) : (memref<4xi8>, memref<4xi8>) -> ()
  memref.dealloc %unused : memref<4xi8>
  memref.dealloc %b : memref<2x2xi8>
  return
}

// -----

// A buffer whose alias a terminator takes (yielded out of scf.if), or one
// allocated in another block, keeps its dealloc where it is.
func.func private @kernel(memref<4xi8>, memref<4xi8>)

// CHECK-LABEL: func.func @escapes
// CHECK:      scf.if
// CHECK:      call @kernel(%arg0, %arg0)
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: return
func.func @escapes(%x: memref<4xi8>, %c: i1) {
  %a = memref.alloc() : memref<4xi8>
  %r = scf.if %c -> memref<4xi8> {
    scf.yield %a : memref<4xi8>
  } else {
    scf.yield %x : memref<4xi8>
  }
  call @kernel(%x, %x) : (memref<4xi8>, memref<4xi8>) -> ()
  memref.dealloc %a : memref<4xi8>
  return
}

// CHECK-LABEL: func.func @other_block
// CHECK:      scf.execute_region
// CHECK:        memref.alloc
// CHECK:        call @kernel
// CHECK:        call @kernel(%arg0, %arg0)
// CHECK-NEXT:   memref.dealloc
func.func @other_block(%x: memref<4xi8>) {
  scf.execute_region {
    %a = memref.alloc() : memref<4xi8>
    cf.br ^bb1
  ^bb1:
    func.call @kernel(%x, %a) : (memref<4xi8>, memref<4xi8>) -> ()
    func.call @kernel(%x, %x) : (memref<4xi8>, memref<4xi8>) -> ()
    memref.dealloc %a : memref<4xi8>
    scf.yield
  }
  return
}
