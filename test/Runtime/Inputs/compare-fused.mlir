// A reference model of compare-float-chain.mlir's add + clamp as one
// pattern: its ops are located at both ("a", then "b"), its input's
// quantization at "a" alone.
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %qx = quant.qcast %x : tensor<2x3xf32> to tensor<2x3x!quant.uniform<i8:f32, 0.03125>> loc("a")
  %dx = quant.dcast %qx : tensor<2x3x!quant.uniform<i8:f32, 0.03125>> to tensor<2x3xf32> loc("a")
  %a = tosa.add %dx, %dx : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> loc(fused["a", "b"])
  %b = tosa.clamp %a {max_val = 3.0 : f32, min_val = 0.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32> loc(fused["a", "b"])
  %qb = quant.qcast %b : tensor<2x3xf32> to tensor<2x3x!quant.uniform<u8:f32, 0.25>> loc(fused["a", "b"])
  %db = quant.dcast %qb : tensor<2x3x!quant.uniform<u8:f32, 0.25>> to tensor<2x3xf32> loc(fused["a", "b"])
  return %db : tensor<2x3xf32>
}
