func.func @not_batch_norm(%x: tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  %w = "tosa.const"() <{values = dense<1.0> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x3x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x2xf32>
  %t = "tosa.const"() <{values = dense<[[[[1.0, 2.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
  %a = tosa.add %c, %t : (tensor<1x3x3x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x3x3x2xf32>
  %c2 = tosa.conv2d %a, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x3x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x2xf32>
  %two = "tosa.const"() <{values = dense<2.0> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = tosa.mul %c2, %two, %sh : (tensor<1x3x3x2xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x3x3x2xf32>
  return %m : tensor<1x3x3x2xf32>
}
