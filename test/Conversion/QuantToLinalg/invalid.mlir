// RUN: quant-opt %s --qfx-lower-quant-to-linalg -split-input-file -verify-diagnostics

// A quantized value that escapes the function cannot be lowered.
func.func @escapes(%x: tensor<4xf32>) -> tensor<4x!quant.uniform<u8:f32, 0.1:128>> {
  // expected-error @+1 {{cannot lower a quantized 'tensor<4x!quant.uniform<u8:f32, 1.000000e-01:128>>' here: only quant.qcast, quant.dcast and storage casts between them are lowered}}
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 0.1:128>>
  return %q : tensor<4x!quant.uniform<u8:f32, 0.1:128>>
}
