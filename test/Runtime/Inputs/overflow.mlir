// Squaring 1e38 overflows to infinity between two observers.
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %sq = tosa.mul %x, %x, %shift : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<1xi8>) -> tensor<2x3xf32>
  %0 = qfx.observe %sq id 0 spec(#qfx.observer<minmax>) : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
