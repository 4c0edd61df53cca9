func.func @shared_weight() -> (tensor<2xf32>, tensor<2xf32>) {
  %w = "tosa.const"() <{values = dense<[1.0, -2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %0 = qfx.observe %w id 0 spec(#qfx.observer<minmax, dtype = qint8, qscheme = per_tensor_symmetric>) : tensor<2xf32>
  return %0, %w : tensor<2xf32>, tensor<2xf32>
}
