func.func @per_axis_weight() -> tensor<2x3xf32> {
  %w = arith.constant dense<[[1, -2, 3], [4, 5, -6]]> : tensor<2x3xi8>
  %q = quant.scast %w : tensor<2x3xi8> to tensor<2x3x!quant.uniform<i8:f32:1, {0.1, 0.2:1, 0.3:-1}>>
  %d = quant.dcast %q : tensor<2x3x!quant.uniform<i8:f32:1, {0.1, 0.2:1, 0.3:-1}>> to tensor<2x3xf32>
  return %d : tensor<2x3xf32>
}
