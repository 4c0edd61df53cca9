func.func @nested(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = qfx.fused "outer" (%a) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%x: tensor<4xf32>):
    %n = qfx.fused "inner" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%y: tensor<4xf32>):
      %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
      %m = tosa.negate %y, %zp, %zp : (tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4xf32>
      qfx.yield %m : tensor<4xf32>
    }
    %e = tosa.exp %n : (tensor<4xf32>) -> tensor<4xf32>
    qfx.yield %e, %n : tensor<4xf32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}
