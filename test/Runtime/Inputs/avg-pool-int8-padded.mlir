func.func @main(%x: tensor<1x5x5x2xi8>) -> tensor<1x3x3x2xi8> {
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %a = tosa.avg_pool2d %x, %zp, %zp {acc_type = i32, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x5x5x2xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x3x3x2xi8>
  return %a : tensor<1x3x3x2xi8>
}
