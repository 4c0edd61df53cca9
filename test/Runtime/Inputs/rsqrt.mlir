// tosa.rsqrt, which layer norm composites use: math.rsqrt has no libm
// function, so the native pipeline expands it to 1 / sqrt.
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tosa.rsqrt %x : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
