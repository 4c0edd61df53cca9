func.func @observed(%x: tensor<2x4xf32>, %h: tensor<3xf16>) -> (tensor<2x4xf32>, tensor<3xf16>) {
  %0 = qfx.observe %x id 0 spec(#qfx.observer<minmax>) : tensor<2x4xf32>
  %1 = tosa.add %0, %0 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = qfx.observe %1 id 1 spec(#qfx.observer<histogram>) : tensor<2x4xf32>
  %3 = qfx.observe %h id 2 spec(#qfx.observer<minmax>) : tensor<3xf16>
  return %2, %3 : tensor<2x4xf32>, tensor<3xf16>
}
