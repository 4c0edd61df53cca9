func.func @window_sum(%a: tensor<1x2x2x4xi8>) -> tensor<1x1x1x4xi32> {
  %w = "tosa.const"() <{values = dense<1> : tensor<2x2x4x1xi8>}> : () -> tensor<2x2x4x1xi8>
  %b = "tosa.const"() <{values = dense<0> : tensor<4xi32>}> : () -> tensor<4xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %acc = tosa.depthwise_conv2d %a, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x2x2x4xi8>, tensor<2x2x4x1xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x1x1x4xi32>
  %two = "tosa.const"() <{values = dense<2> : tensor<1x1x1x1xi32>}> : () -> tensor<1x1x1x1xi32>
  %sum = tosa.add %acc, %two : (tensor<1x1x1x4xi32>, tensor<1x1x1x1xi32>) -> tensor<1x1x1x4xi32>
  return %sum : tensor<1x1x1x4xi32>
}
