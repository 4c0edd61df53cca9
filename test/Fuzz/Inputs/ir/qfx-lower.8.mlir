func.func @half_weight(%x: tensor<2xf32>) -> tensor<2xf32> {
  %w = "tosa.const"() <{values = dense<[0.1, -2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %h = tosa.cast %w : (tensor<2xf32>) -> tensor<2xf16>
  %f = tosa.cast %h : (tensor<2xf16>) -> tensor<2xf32>
  %y = tosa.add %x, %f : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}
