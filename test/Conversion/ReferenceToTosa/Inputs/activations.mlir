// The four table-lowered composites of the x86 table on one input:
// qfx.export_tosa of (Hardswish, Hardsigmoid, LeakyReLU(0.2), ELU(0.7))
// applied to x (2x256: a row of every input code per input quantization),
// for table-exact.test.
module {
  func.func @main(%x: tensor<2x256xf32> loc("x")) -> (tensor<2x256xf32>, tensor<2x256xf32>, tensor<2x256xf32>, tensor<2x256xf32>) {
    %hardswish = qfx.composite "torch.nn.Hardswish" (%x) attributes {qfx.origin = "torch.nn.Hardswish"} : (tensor<2x256xf32>) -> tensor<2x256xf32> {
    ^bb0(%arg: tensor<2x256xf32>):
      %three = "tosa.const"() <{values = dense<3.00000000e+00> : tensor<1x1xf32>}> : () -> tensor<1x1xf32> loc("hardswish")
      %add = tosa.add %arg, %three : (tensor<2x256xf32>, tensor<1x1xf32>) -> tensor<2x256xf32> loc("hardswish")
      %clamp = tosa.clamp %add {min_val = 0.00000000e+00 : f32, max_val = 6.00000000e+00 : f32} : (tensor<2x256xf32>) -> tensor<2x256xf32> loc("hardswish")
      %mul_shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8> loc("hardswish")
      %mul = tosa.mul %arg, %clamp, %mul_shift : (tensor<2x256xf32>, tensor<2x256xf32>, tensor<1xi8>) -> tensor<2x256xf32> loc("hardswish")
      %sixth = "tosa.const"() <{values = dense<1.66666672e-01> : tensor<1x1xf32>}> : () -> tensor<1x1xf32> loc("hardswish")
      %mul_shift_1 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8> loc("hardswish")
      %mul_1 = tosa.mul %mul, %sixth, %mul_shift_1 : (tensor<2x256xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<2x256xf32> loc("hardswish")
      qfx.yield %mul_1 : tensor<2x256xf32> loc("hardswish")
    } loc("hardswish")
    %hardsigmoid = qfx.composite "torch.nn.Hardsigmoid" (%x) attributes {qfx.origin = "torch.nn.Hardsigmoid"} : (tensor<2x256xf32>) -> tensor<2x256xf32> {
    ^bb0(%arg_1: tensor<2x256xf32>):
      %three_1 = "tosa.const"() <{values = dense<3.00000000e+00> : tensor<1x1xf32>}> : () -> tensor<1x1xf32> loc("hardsigmoid")
      %add_1 = tosa.add %arg_1, %three_1 : (tensor<2x256xf32>, tensor<1x1xf32>) -> tensor<2x256xf32> loc("hardsigmoid")
      %clamp_1 = tosa.clamp %add_1 {min_val = 0.00000000e+00 : f32, max_val = 6.00000000e+00 : f32} : (tensor<2x256xf32>) -> tensor<2x256xf32> loc("hardsigmoid")
      %sixth_1 = "tosa.const"() <{values = dense<1.66666672e-01> : tensor<1x1xf32>}> : () -> tensor<1x1xf32> loc("hardsigmoid")
      %mul_shift_2 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8> loc("hardsigmoid")
      %mul_2 = tosa.mul %clamp_1, %sixth_1, %mul_shift_2 : (tensor<2x256xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<2x256xf32> loc("hardsigmoid")
      qfx.yield %mul_2 : tensor<2x256xf32> loc("hardsigmoid")
    } loc("hardsigmoid")
    %leaky_relu = qfx.composite "torch.nn.LeakyReLU" (%x) attributes {composite_attributes = {negative_slope = 2.00000003e-01 : f32}, qfx.origin = "torch.nn.LeakyReLU"} : (tensor<2x256xf32>) -> tensor<2x256xf32> {
    ^bb0(%arg_2: tensor<2x256xf32>):
      %slope = "tosa.const"() <{values = dense<2.00000003e-01> : tensor<1x1xf32>}> : () -> tensor<1x1xf32> loc("leaky_relu")
      %mul_shift_3 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8> loc("leaky_relu")
      %mul_3 = tosa.mul %arg_2, %slope, %mul_shift_3 : (tensor<2x256xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<2x256xf32> loc("leaky_relu")
      %zero = "tosa.const"() <{values = dense<0.00000000e+00> : tensor<1x1xf32>}> : () -> tensor<1x1xf32> loc("leaky_relu")
      %positive = tosa.greater %arg_2, %zero : (tensor<2x256xf32>, tensor<1x1xf32>) -> tensor<2x256xi1> loc("leaky_relu")
      %select = tosa.select %positive, %arg_2, %mul_3 : (tensor<2x256xi1>, tensor<2x256xf32>, tensor<2x256xf32>) -> tensor<2x256xf32> loc("leaky_relu")
      qfx.yield %select : tensor<2x256xf32> loc("leaky_relu")
    } loc("leaky_relu")
    %elu = qfx.composite "torch.nn.ELU" (%x) attributes {composite_attributes = {alpha = 6.99999988e-01 : f32}, qfx.origin = "torch.nn.ELU"} : (tensor<2x256xf32>) -> tensor<2x256xf32> {
    ^bb0(%arg_3: tensor<2x256xf32>):
      %exp = tosa.exp %arg_3 : (tensor<2x256xf32>) -> tensor<2x256xf32> loc("elu")
      %one = "tosa.const"() <{values = dense<1.00000000e+00> : tensor<1x1xf32>}> : () -> tensor<1x1xf32> loc("elu")
      %sub = tosa.sub %exp, %one : (tensor<2x256xf32>, tensor<1x1xf32>) -> tensor<2x256xf32> loc("elu")
      %alpha = "tosa.const"() <{values = dense<6.99999988e-01> : tensor<1x1xf32>}> : () -> tensor<1x1xf32> loc("elu")
      %mul_shift_4 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8> loc("elu")
      %mul_4 = tosa.mul %sub, %alpha, %mul_shift_4 : (tensor<2x256xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<2x256xf32> loc("elu")
      %zero_1 = "tosa.const"() <{values = dense<0.00000000e+00> : tensor<1x1xf32>}> : () -> tensor<1x1xf32> loc("elu")
      %positive_1 = tosa.greater %arg_3, %zero_1 : (tensor<2x256xf32>, tensor<1x1xf32>) -> tensor<2x256xi1> loc("elu")
      %select_1 = tosa.select %positive_1, %arg_3, %mul_4 : (tensor<2x256xi1>, tensor<2x256xf32>, tensor<2x256xf32>) -> tensor<2x256xf32> loc("elu")
      qfx.yield %select_1 : tensor<2x256xf32> loc("elu")
    } loc("elu")
    return %hardswish, %hardsigmoid, %leaky_relu, %elu : tensor<2x256xf32>, tensor<2x256xf32>, tensor<2x256xf32>, tensor<2x256xf32> loc("output")
  }
}
