func.func @weight_float_qparams() -> tensor<2x3xf32> {
  %w = "tosa.const"() <{values = dense<[[0.0, 1.5, 3.0], [-1.0, 0.1, 2.0]]> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
  %0 = qfx.observe %w id 0 spec(#qfx.observer<per_channel_minmax, dtype = quint4x2, qscheme = per_channel_affine_float_qparams>) : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
