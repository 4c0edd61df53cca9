func.func @inline(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = qfx.fused "add_relu" (%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):
    %s = tosa.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %c = tosa.clamp %s {max_val = 3.40282347E+38 : f32, min_val = 0.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
    qfx.yield %c : tensor<4xf32>
  }
  %t = tosa.add %r, %r : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %t : tensor<4xf32>
}
