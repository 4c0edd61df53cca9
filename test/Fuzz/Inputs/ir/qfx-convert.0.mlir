func.func @activation(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = qfx.observe %x id 0 spec(#qfx.observer<minmax>) stats(#qfx.minmax<min = -1.0, max = 3.0>) : tensor<4xf32>
  return %0 : tensor<4xf32>
}
