func.func @conv(%a: tensor<1x3x3x3xi8>) -> tensor<1x3x3x1xi8> {
  %w = "tosa.const"() <{values = dense<[[[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]]]> : tensor<1x2x2x3xi8>}> : () -> tensor<1x2x2x3xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<1xi32>}> : () -> tensor<1xi32>
  %azp = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %acc = tosa.conv2d %a, %w, %b, %azp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 0, 0, 1>, stride = array<i64: 1, 1>} : (tensor<1x3x3x3xi8>, tensor<1x2x2x3xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x3x3x1xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %sh = "tosa.const"() <{values = dense<33> : tensor<1xi8>}> : () -> tensor<1xi8>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %ozp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %r = tosa.rescale %acc, %m, %sh, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<1x3x3x1xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x3x3x1xi8>
  return %r : tensor<1x3x3x1xi8>
}
