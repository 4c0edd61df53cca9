func.func @depthwise_multiplier(%x: tensor<1x3x3x2xf32>) -> tensor<1x3x3x4xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1.0, 2.0], [3.0, 4.0]]]]> : tensor<1x1x2x2xf32>}> : () -> tensor<1x1x2x2xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.depthwise_conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x3x2xf32>, tensor<1x1x2x2xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x4xf32>
  %s = "tosa.const"() <{values = dense<[[[[1.0, 2.0, 3.0, 4.0]]]]> : tensor<1x1x1x4xf32>}> : () -> tensor<1x1x1x4xf32>
  %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = tosa.mul %c, %s, %sh : (tensor<1x3x3x4xf32>, tensor<1x1x1x4xf32>, tensor<1xi8>) -> tensor<1x3x3x4xf32>
  %t = "tosa.const"() <{values = dense<1.0> : tensor<1x1x1x4xf32>}> : () -> tensor<1x1x1x4xf32>
  %a = tosa.add %m, %t : (tensor<1x3x3x4xf32>, tensor<1x1x1x4xf32>) -> tensor<1x3x3x4xf32>
  return %a : tensor<1x3x3x4xf32>
}
