// A float model whose ops carry module names.
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = tosa.add %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> loc("block"("add"))
  %s = tosa.sigmoid %a : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("head")
  return %s : tensor<2x3xf32>
}
