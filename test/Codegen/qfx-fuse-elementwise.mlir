// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(qfx-fuse-elementwise))" | FileCheck %s
// Upstream's pass fuses the dequantizations into the matmul (recomputed once
// per multiply-add):
// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(linalg-fuse-elementwise-ops))" | FileCheck %s --check-prefix=UPSTREAM

#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#a = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#b = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

// The dequantizations a matmul reads once per output column and row stay
// loop nests of their own.
// CHECK-LABEL: func.func @matmul_of_dequantized
// CHECK: %[[A:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<2x3x4xi8>)
// CHECK: arith.sitofp
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<2x4x5xi8>)
// CHECK: arith.sitofp
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]] : tensor<2x3x4xf32>, tensor<2x4x5xf32>)
// CHECK-NOT: arith.sitofp
// CHECK: linalg.yield
// UPSTREAM-LABEL: func.func @matmul_of_dequantized
// UPSTREAM: iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<2x3x4xi8>, tensor<2x4x5xi8>)
func.func @matmul_of_dequantized(%qa: tensor<2x3x4xi8>, %qb: tensor<2x4x5xi8>) -> tensor<2x3x5xi8> {
  %ea = tensor.empty() : tensor<2x3x4xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qa : tensor<2x3x4xi8>) outs(%ea : tensor<2x3x4xf32>) {
  ^bb0(%q: i8, %o: f32):
    %f = arith.sitofp %q : i8 to f32
    %s = arith.constant 0.5 : f32
    %x = arith.mulf %f, %s : f32
    linalg.yield %x : f32
  } -> tensor<2x3x4xf32>
  %eb = tensor.empty() : tensor<2x4x5xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%qb : tensor<2x4x5xi8>) outs(%eb : tensor<2x4x5xf32>) {
  ^bb0(%q: i8, %o: f32):
    %f = arith.sitofp %q : i8 to f32
    %s = arith.constant 0.25 : f32
    %x = arith.mulf %f, %s : f32
    linalg.yield %x : f32
  } -> tensor<2x4x5xf32>
  %zero = arith.constant 0.0 : f32
  %ec = tensor.empty() : tensor<2x3x5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%ec : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %c = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<2x3x4xf32>, tensor<2x4x5xf32>) outs(%init : tensor<2x3x5xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x3x5xf32>
  %eq = tensor.empty() : tensor<2x3x5xi8>
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c : tensor<2x3x5xf32>) outs(%eq : tensor<2x3x5xi8>) {
  ^bb0(%x: f32, %o: i8):
    %s = arith.constant 8.0 : f32
    %y = arith.mulf %x, %s : f32
    %i = arith.fptosi %y : f32 to i8
    linalg.yield %i : i8
  } -> tensor<2x3x5xi8>
  return %q : tensor<2x3x5xi8>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Elementwise chains still fuse.
// CHECK-LABEL: func.func @chain
// CHECK: linalg.generic
// CHECK: arith.sitofp
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
func.func @chain(%q: tensor<4x8xi8>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%q : tensor<4x8xi8>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: i8, %o: f32):
    %f = arith.sitofp %x : i8 to f32
    linalg.yield %f : f32
  } -> tensor<4x8xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.constant 0.5 : f32
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}
