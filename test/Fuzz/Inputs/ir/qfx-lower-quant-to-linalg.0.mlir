func.func @per_tensor(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %q = quant.qcast %x : tensor<2x3xf32> to tensor<2x3x!quant.uniform<u8:f32, 0.1:128>>
  %d = quant.dcast %q : tensor<2x3x!quant.uniform<u8:f32, 0.1:128>> to tensor<2x3xf32>
  return %d : tensor<2x3xf32>
}
