// compare-reference.mlir with other qparams, as another calibration gives
// them: the add's scale 2 float32 ulps larger (0.5 + 2 * 2^-24), the head's
// zero point 1 instead of 0.
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = tosa.add %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> loc("block"("add"))
  %qa = quant.qcast %a : tensor<2x3xf32> to tensor<2x3x!quant.uniform<i8:f32, 0.50000011920928955>> loc("block"("add"))
  %da = quant.dcast %qa : tensor<2x3x!quant.uniform<i8:f32, 0.50000011920928955>> to tensor<2x3xf32> loc("block"("add"))
  %s = tosa.sigmoid %da : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("head")
  %qs = quant.qcast %s : tensor<2x3xf32> to tensor<2x3x!quant.uniform<u8:f32, 0.00390625:1>> loc("head")
  %ds = quant.dcast %qs : tensor<2x3x!quant.uniform<u8:f32, 0.00390625:1>> to tensor<2x3xf32> loc("head")
  return %ds : tensor<2x3xf32>
}
