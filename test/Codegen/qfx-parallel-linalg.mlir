// RUN: quant-opt %s --split-input-file --verify-diagnostics --pass-pipeline="builtin.module(qfx-parallel-linalg,func.func(cse))" | FileCheck %s

// In the whole lowering: the split op in a function of its own, and the
// same results as the generic lowering's sequential loops (no kernels, no
// threads), on one thread and on two.
// RUN: quant-opt %S/Inputs/parallel-linalg.mlir --pass-pipeline="builtin.module(qfx-lower-to-native{target=x86-64-avx512vnni})" | FileCheck %s --check-prefix=LOWERED
// LOWERED-LABEL: llvm.func @main(
// LOWERED:       llvm.call @main_parallel(
// LOWERED-LABEL: llvm.func {{.*}}@main_parallel(
// LOWERED:       omp.parallel
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np, sys; np.save(sys.argv[1], np.random.default_rng(0).integers(-128, 128, (1, 112, 112, 32)).astype(np.int8))" %t/x.npy
// RUN: quant-run %S/Inputs/parallel-linalg.mlir --codegen=none --input=%t/x.npy -o %t/none.npy
// RUN: env OMP_NUM_THREADS=2 quant-run %S/Inputs/parallel-linalg.mlir --input=%t/x.npy -o %t/two.npy
// RUN: env OMP_NUM_THREADS=1 quant-run %S/Inputs/parallel-linalg.mlir --input=%t/x.npy -o %t/one.npy
// RUN: cmp %t/none.npy %t/two.npy
// RUN: cmp %t/none.npy %t/one.npy

// An elementwise op of 1x112x112x32 (2 ops an iteration): its rows in 28
// pieces of 4, on threads, in a function of its own that the op's function
// calls; the op itself on the piece's views.
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
module attributes {qfx.target = "x86-64-avx512vnni"} {
  // CHECK-LABEL: func.func @rows(
  // CHECK-NEXT: call @rows_parallel(%arg0, %arg1)
  // CHECK-NEXT: return
  // CHECK-LABEL: func.func private @rows_parallel(
  // CHECK-DAG:  %[[C0:.*]] = arith.constant 0 : index
  // CHECK-DAG:  %[[C4:.*]] = arith.constant 4 : index
  // CHECK-DAG:  %[[C112:.*]] = arith.constant 112 : index
  // CHECK:      scf.parallel (%[[H:.*]]) = (%[[C0]]) to (%[[C112]]) step (%[[C4]])
  // CHECK:        %[[X:.*]] = memref.subview %arg0[0, %[[H]], 0, 0] [1, 4, 112, 32] [1, 1, 1, 1]
  // CHECK:        %[[Y:.*]] = memref.subview %arg1[0, %[[H]], 0, 0] [1, 4, 112, 32] [1, 1, 1, 1]
  // CHECK:        linalg.generic {{.*}} ins(%[[X]] : {{.*}}) outs(%[[Y]] : {{.*}})
  // CHECK:          arith.maxsi
  // CHECK:          arith.minsi
  // CHECK:        scf.reduce
  // CHECK-NEXT: }
  // CHECK-NEXT: return
  func.func @rows(%x: memref<1x112x112x32xi8>, %y: memref<1x112x112x32xi8>) {
    %lo = arith.constant -10 : i8
    %hi = arith.constant 50 : i8
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%x : memref<1x112x112x32xi8>) outs(%y : memref<1x112x112x32xi8>) {
    ^bb0(%in: i8, %out: i8):
      %0 = arith.maxsi %in, %lo : i8
      %1 = arith.minsi %0, %hi : i8
      linalg.yield %1 : i8
    }
    return
  }

  // A 7x7 activation: its 7 rows, one a piece; the columns (7) have no
  // divisor that gives between 2 and 5 pieces, the channels are split in 4
  // (multiples of 16): 28 pieces.
  // CHECK-LABEL: func.func private @seven_rows_parallel(
  // CHECK-DAG:  %[[C1:.*]] = arith.constant 1 : index
  // CHECK-DAG:  %[[C7:.*]] = arith.constant 7 : index
  // CHECK-DAG:  %[[C288:.*]] = arith.constant 288 : index
  // CHECK-DAG:  %[[C1152:.*]] = arith.constant 1152 : index
  // CHECK:      scf.parallel (%[[H:.*]], %[[C:.*]]) = (%{{.*}}, %{{.*}}) to (%[[C7]], %[[C1152]]) step (%[[C1]], %[[C288]])
  // CHECK:        memref.subview %arg0[0, %[[H]], 0, %[[C]]] [1, 1, 7, 288] [1, 1, 1, 1]
  func.func @seven_rows(%x: memref<1x7x7x1152xi8>, %y: memref<1x7x7x1152xi8>) {
    %lo = arith.constant -10 : i8
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%x : memref<1x7x7x1152xi8>) outs(%y : memref<1x7x7x1152xi8>) {
    ^bb0(%in: i8, %out: i8):
      %0 = arith.maxsi %in, %lo : i8
      linalg.yield %0 : i8
    }
    return
  }

  // One loop only, the innermost: pieces of a multiple of 16 iterations.
  // CHECK-LABEL: func.func private @innermost_parallel(
  // CHECK-DAG:  %[[C2048:.*]] = arith.constant 2048 : index
  // CHECK-DAG:  %[[C65536:.*]] = arith.constant 65536 : index
  // CHECK:      scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%[[C65536]]) step (%[[C2048]])
  // CHECK:        memref.subview %arg0[%[[I]]] [2048] [1]
  func.func @innermost(%x: memref<65536xi8>, %y: memref<65536xi8>) {
    %lo = arith.constant -10 : i8
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
        ins(%x : memref<65536xi8>) outs(%y : memref<65536xi8>) {
    ^bb0(%in: i8, %out: i8):
      %0 = arith.maxsi %in, %lo : i8
      linalg.yield %0 : i8
    }
    return
  }

  // The work counts the ops of an iteration: 1x16x32x32 (2^14 iterations)
  // with 2 ops is 2^15, split (16 rows, one a piece).
  // CHECK-LABEL: func.func private @at_threshold_parallel(
  // CHECK:      scf.parallel
  // CHECK:        memref.subview %arg0[0, %{{.*}}, 0, 0] [1, 1, 32, 32] [1, 1, 1, 1]
  func.func @at_threshold(%x: memref<1x16x32x32xi8>, %y: memref<1x16x32x32xi8>) {
    %lo = arith.constant -10 : i8
    %hi = arith.constant 50 : i8
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%x : memref<1x16x32x32xi8>) outs(%y : memref<1x16x32x32xi8>) {
    ^bb0(%in: i8, %out: i8):
      %0 = arith.maxsi %in, %lo : i8
      %1 = arith.minsi %0, %hi : i8
      linalg.yield %1 : i8
    }
    return
  }

  // Below 2^15 (1x16x16x32, 2 ops an iteration: 2^14): left alone.
  // CHECK-LABEL: func.func @small(
  // CHECK-NOT:  {{scf.parallel|call}}
  // CHECK:      linalg.generic
  func.func @small(%x: memref<1x16x16x32xi8>, %y: memref<1x16x16x32xi8>) {
    %lo = arith.constant -10 : i8
    %hi = arith.constant 50 : i8
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%x : memref<1x16x16x32xi8>) outs(%y : memref<1x16x16x32xi8>) {
    ^bb0(%in: i8, %out: i8):
      %0 = arith.maxsi %in, %lo : i8
      %1 = arith.minsi %0, %hi : i8
      linalg.yield %1 : i8
    }
    return
  }

  // A global pool, its window's reductions before the channels: no
  // parallel loop before the first reduction has more than one iteration.
  // CHECK-LABEL: func.func @global_pool(
  // CHECK-NOT:  {{scf.parallel|call}}
  // CHECK:      linalg.generic
  func.func @global_pool(%x: memref<1x56x56x144xi32>, %w: memref<56x56xi32>, %y: memref<1x1x1x144xi32>) {
    linalg.generic {indexing_maps = [affine_map<(n, h, w, kh, kw, c) -> (n, h + kh, w + kw, c)>, affine_map<(n, h, w, kh, kw, c) -> (kh, kw)>, affine_map<(n, h, w, kh, kw, c) -> (n, h, w, c)>],
                    iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
        ins(%x, %w : memref<1x56x56x144xi32>, memref<56x56xi32>) outs(%y : memref<1x1x1x144xi32>) {
    ^bb0(%in: i32, %in2: i32, %out: i32):
      %0 = arith.addi %out, %in : i32
      linalg.yield %0 : i32
    }
    return
  }

  // Already on threads (inside a kernel's scf.parallel), or with dynamic
  // shapes: left alone.
  // CHECK-LABEL: func.func @nested_or_dynamic(
  // CHECK:      scf.parallel
  // CHECK-NOT:  {{scf.parallel|call}}
  // CHECK:      return
  func.func @nested_or_dynamic(%x: memref<1x112x112x32xi8>, %y: memref<1x112x112x32xi8>, %d: memref<?x112x32xi8>, %e: memref<?x112x32xi8>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %lo = arith.constant -10 : i8
    scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
      linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
          ins(%x : memref<1x112x112x32xi8>) outs(%y : memref<1x112x112x32xi8>) {
      ^bb0(%in: i8, %out: i8):
        %0 = arith.maxsi %in, %lo : i8
        linalg.yield %0 : i8
      }
      scf.reduce
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%d : memref<?x112x32xi8>) outs(%e : memref<?x112x32xi8>) {
    ^bb0(%in: i8, %out: i8):
      %0 = arith.maxsi %in, %lo : i8
      linalg.yield %0 : i8
    }
    return
  }
}

// -----

// A target whose kernels run no threads: nothing changes.
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
module attributes {qfx.target = "aarch64-dotprod"} {
  // CHECK-LABEL: func.func @no_threads(
  // CHECK-NOT:  {{scf.parallel|call}}
  func.func @no_threads(%x: memref<1x112x112x32xi8>, %y: memref<1x112x112x32xi8>) {
    %lo = arith.constant -10 : i8
    linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%x : memref<1x112x112x32xi8>) outs(%y : memref<1x112x112x32xi8>) {
    ^bb0(%in: i8, %out: i8):
      %0 = arith.maxsi %in, %lo : i8
      linalg.yield %0 : i8
    }
    return
  }
}

// -----

// expected-error @+1 {{qfx-parallel-linalg needs the module attribute 'qfx.target' (qfx-codegen sets it)}}
module {
  func.func @no_target() {
    return
  }
}

// -----

// expected-error @+1 {{unknown target 'z80' in the module attribute 'qfx.target', expected}}
module attributes {qfx.target = "z80"} {
  func.func @unknown_target() {
    return
  }
}
