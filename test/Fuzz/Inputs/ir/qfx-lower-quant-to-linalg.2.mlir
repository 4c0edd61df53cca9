func.func @narrow_range(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<u8<0:15>:f32, 0.5:2>>
  %d = quant.dcast %q : tensor<4x!quant.uniform<u8<0:15>:f32, 0.5:2>> to tensor<4xf32>
  return %d : tensor<4xf32>
}
