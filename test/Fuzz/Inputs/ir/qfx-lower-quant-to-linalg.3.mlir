func.func @fake_quant(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = qfx.fake_quant %x as !quant.uniform<i8:f32, 0.25:-3> : tensor<4xf32>
  return %0 : tensor<4xf32>
}
