// RUN: quant-opt %s "--qfx-pack-weights=target=x86-64-avx512vnni fold=true" -verify-diagnostics
// RUN: not quant-opt %s --qfx-codegen=target=x86-64-avx512vnni 2>&1 | FileCheck %s

// Packed weights that are not the packing ops on constants cannot be
// folded: an error naming the contraction, with no output.
// CHECK: error: 'qfx.contract' op has packed weights that qfx-codegen cannot compute at compile time
// CHECK-NOT: func.func
func.func @linear(%a: tensor<1x2x3xi8>, %p: tensor<1x1x64xi8>) -> tensor<1x2x2xi32> {
  %w = "tosa.const"() <{values = dense<[[[1, 2], [3, 4], [5, 6]]]> : tensor<1x3x2xi8>}> : () -> tensor<1x3x2xi8>
  // expected-error @+1 {{'qfx.contract' op has packed weights that qfx-codegen cannot compute at compile time: expected the packing ops of qfx-pack-weights on constants}}
  %r = qfx.contract matmul %a, %w packed(%p) {weight_packing = #qfx.weight_packing<lanes = 16, group = 4, taps = 1, tap_groups = 1>} : (tensor<1x2x3xi8>, tensor<1x3x2xi8>, tensor<1x1x64xi8>) -> tensor<1x2x2xi32>
  return %r : tensor<1x2x2xi32>
}
