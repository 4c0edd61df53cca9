// A zero-size activation beside an ordinary one (calibrate-errors.test).
func.func @main(%x: tensor<0x4xf32>, %y: tensor<2x4xf32>) -> (tensor<0x4xf32>, tensor<2x4xf32>) {
  %o = qfx.observe %x id 0 spec(#qfx.observer<histogram>) : tensor<0x4xf32>
  %p = qfx.observe %y id 1 spec(#qfx.observer<minmax>) : tensor<2x4xf32>
  return %o, %p : tensor<0x4xf32>, tensor<2x4xf32>
}
