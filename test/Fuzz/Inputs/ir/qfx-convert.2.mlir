func.func @kinds(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = qfx.observe %x id 5 spec(#qfx.observer<minmax, dtype = qint8, qscheme = per_tensor_symmetric>) stats(#qfx.minmax<min = -2.0, max = 4.0>) : tensor<4xf32>
  %m = tosa.maximum %0, %0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = qfx.observe %m id 5 spec(#qfx.observer<minmax, dtype = qint8, qscheme = per_tensor_symmetric>) stats(#qfx.minmax<min = -2.0, max = 4.0>) : tensor<4xf32>
  %s = tosa.sigmoid %1 : (tensor<4xf32>) -> tensor<4xf32>
  %2 = qfx.observe %s id 6 spec(#qfx.observer<fixed_qparams, scale = 0.00390625, zero_point = 0>) : tensor<4xf32>
  %3 = qfx.observe %2 id 7 spec(#qfx.observer<reuse_input>) : tensor<4xf32>
  %4 = qfx.observe %3 id 8 spec(#qfx.observer<placeholder>) : tensor<4xf32>
  %5 = qfx.observe %4 id 9 spec(#qfx.observer<placeholder, dtype = float16>) : tensor<4xf32>
  return %5 : tensor<4xf32>
}
