// x + x, then clamped to [0, 3]: "a" and "b" are values of their own.
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = tosa.add %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> loc("a")
  %b = tosa.clamp %a {max_val = 3.0 : f32, min_val = 0.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("b")
  return %b : tensor<2x3xf32>
}
