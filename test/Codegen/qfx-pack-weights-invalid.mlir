// RUN: quant-opt %s --qfx-pack-weights=target=x86-64-avx2 --qfx-codegen=target=x86-64-avx512vnni --split-input-file -verify-diagnostics
// RUN: quant-opt %s --qfx-pack-weights=target=x86-64-amx --qfx-codegen=target=x86-64-avx512vnni --split-input-file | FileCheck %s

// Weights packed for one target's kernels are an error for another's that
// does not read them (AVX2's int16 pairs for VNNI), not a silent fallback
// to the generic lowering. Every kernel reads K packed as one run padded to
// its multiple of groups: the VNNI kernel reads AMX's packing (as the AMX
// target's VNNI fallback does).
// CHECK-LABEL: func.func @linear
// CHECK: call @qfx_vnni_matmul_0
func.func @linear(%a: tensor<1x2x3xi8>) -> tensor<1x2x2xi8> {
  %w = "tosa.const"() <{values = dense<[[[1, 2], [3, 4], [5, 6]]]> : tensor<1x3x2xi8>}> : () -> tensor<1x3x2xi8>
  // expected-error @+1 {{'qfx.contract' op has weights packed as #qfx.weight_packing<lanes = 8, group = 2, taps = 1, tap_groups = 2>, which the kernels of target x86-64-avx512vnni do not read (qfx-pack-weights packs for the target given to it)}}
  %r = qfx.contract matmul %a, %w {input_zp = 2 : i64, epilogue = #qfx.rescale<fraction_bits = 0, bias = [100, -100], multipliers = [1073741824], shifts = [33], output_zp = -5, min = -128, max = 127>} : (tensor<1x2x3xi8>, tensor<1x3x2xi8>) -> tensor<1x2x2xi8>
  return %r : tensor<1x2x2xi8>
}
