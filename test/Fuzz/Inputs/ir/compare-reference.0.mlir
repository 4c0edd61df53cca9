func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = tosa.add %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> loc("block"("add"))
  %qa = quant.qcast %a : tensor<2x3xf32> to tensor<2x3x!quant.uniform<i8:f32, 0.5>> loc("block"("add"))
  %da = quant.dcast %qa : tensor<2x3x!quant.uniform<i8:f32, 0.5>> to tensor<2x3xf32> loc("block"("add"))
  %s = tosa.sigmoid %da : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("head")
  %qs = quant.qcast %s : tensor<2x3xf32> to tensor<2x3x!quant.uniform<u8:f32, 0.00390625>> loc("head")
  %ds = quant.dcast %qs : tensor<2x3x!quant.uniform<u8:f32, 0.00390625>> to tensor<2x3xf32> loc("head")
  return %ds : tensor<2x3xf32>
}
