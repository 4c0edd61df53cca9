func.func @weight() -> tensor<2x3xf32> {
  %w = "tosa.const"() <{values = dense<[[1.0, -0.5, 0.25], [2.0, 1.0, -4.0]]> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %0 = qfx.observe %w id 0 spec(#qfx.observer<per_channel_minmax, dtype = qint8, qscheme = per_channel_symmetric>) : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
