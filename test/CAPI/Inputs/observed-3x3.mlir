// observed.mlir at another shape (3x3 for 2x3): the same observers, in the same order.

func.func @main(%x: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %0 = qfx.observe %x id 0 spec(#qfx.observer<minmax>) : tensor<3x3xf32>
  %1 = qfx.observe %0 id 1 spec(#qfx.observer<per_channel_minmax, ch_axis = 1>) : tensor<3x3xf32>
  %2 = qfx.observe %1 id 2 spec(#qfx.observer<histogram, bins = 8>) : tensor<3x3xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %n = tosa.negate %2, %zp, %zp : (tensor<3x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<3x3xf32>
  %3 = qfx.observe %n id 0 spec(#qfx.observer<minmax>) : tensor<3x3xf32>
  %4 = qfx.observe %3 id 3 spec(#qfx.observer<moving_average_minmax, averaging_constant = 0.5>) : tensor<3x3xf32>
  %5 = qfx.observe %4 id 4 spec(#qfx.observer<placeholder, dtype = float16>) : tensor<3x3xf32>
  return %5 : tensor<3x3xf32>
}
