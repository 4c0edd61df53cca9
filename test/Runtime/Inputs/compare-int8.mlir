// A reference model whose first pattern's output feeds the second: lowered by
// qfx-lower, "head" exists only as integers (no quant.scast is left there).
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %qx = quant.qcast %x : tensor<2x3xf32> to tensor<2x3x!quant.uniform<i8:f32, 0.0625>> loc("x")
  %dx = quant.dcast %qx : tensor<2x3x!quant.uniform<i8:f32, 0.0625>> to tensor<2x3xf32> loc("x")
  %s = tosa.sigmoid %dx : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("head")
  %qs = quant.qcast %s : tensor<2x3xf32> to tensor<2x3x!quant.uniform<u8:f32, 0.00390625>> loc("head")
  %ds = quant.dcast %qs : tensor<2x3x!quant.uniform<u8:f32, 0.00390625>> to tensor<2x3xf32> loc("head")
  %t = tosa.tanh %ds : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("tail")
  %qt = quant.qcast %t : tensor<2x3xf32> to tensor<2x3x!quant.uniform<u8:f32, 0.0078125:128>> loc("tail")
  %dt = quant.dcast %qt : tensor<2x3x!quant.uniform<u8:f32, 0.0078125:128>> to tensor<2x3xf32> loc("tail")
  return %dt : tensor<2x3xf32>
}
