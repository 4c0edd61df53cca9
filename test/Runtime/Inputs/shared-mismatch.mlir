// Observers sharing an id must be the same observer.
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = qfx.observe %x id 7 spec(#qfx.observer<minmax>) : tensor<2x3xf32>
  %1 = qfx.observe %0 id 7 spec(#qfx.observer<histogram>) : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
