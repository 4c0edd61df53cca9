func.func @conv_bn_rsqrt(%x: tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<[0.5, -1.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x3x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x2xf32>
  %mean = "tosa.const"() <{values = dense<[[[[1.0, 0.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
  %var = "tosa.const"() <{values = dense<[[[[3.75, 0.125]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
  %eps = "tosa.const"() <{values = dense<[[[[0.25, 0.125]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
  %gamma = "tosa.const"() <{values = dense<[[[[2.0, 1.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
  %beta = "tosa.const"() <{values = dense<[[[[0.0, 3.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
  %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %ve = tosa.add %var, %eps : (tensor<1x1x1x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32>
  %inv = tosa.rsqrt %ve : (tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32>
  %0 = tosa.sub %c, %mean : (tensor<1x3x3x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x3x3x2xf32>
  %1 = tosa.mul %0, %inv, %sh : (tensor<1x3x3x2xf32>, tensor<1x1x1x2xf32>, tensor<1xi8>) -> tensor<1x3x3x2xf32>
  %2 = tosa.mul %1, %gamma, %sh : (tensor<1x3x3x2xf32>, tensor<1x1x1x2xf32>, tensor<1xi8>) -> tensor<1x3x3x2xf32>
  %3 = tosa.add %2, %beta : (tensor<1x3x3x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x3x3x2xf32>
  return %3 : tensor<1x3x3x2xf32>
}
