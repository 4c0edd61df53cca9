// Two inputs, two results of different dtypes.
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {
  %s = tosa.add %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %i = tosa.cast %s : (tensor<2x3xf32>) -> tensor<2x3xi32>
  return %s, %i : tensor<2x3xf32>, tensor<2x3xi32>
}

func.func @negate(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %n = tosa.negate %x, %zp, %zp : (tensor<2x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x3xf32>
  return %n : tensor<2x3xf32>
}

func.func @dynamic(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  return %x : tensor<?x3xf32>
}

func.func @not_lowered(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = tosa.custom %x {domain_name = "qfx.test", implementation_attrs = "", operator_name = "mystery"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}
