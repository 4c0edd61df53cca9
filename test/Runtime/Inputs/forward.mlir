// One public function, not called @main, and a private helper: quant-run and
// quant-compile take @forward without --entry.
func.func @forward(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = func.call @double(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

func.func private @double(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = tosa.add %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
