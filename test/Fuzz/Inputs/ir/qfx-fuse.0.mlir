func.func @conv_bn_relu(%x: tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32> loc("conv")
  %b = "tosa.const"() <{values = dense<[0.5, -1.0]> : tensor<2xf32>}> : () -> tensor<2xf32> loc("conv")
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32> loc("conv")
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, qfx.origin = "torch.nn.Conv2d"} : (tensor<1x3x3x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x2xf32> loc("conv")
  %s = "tosa.const"() <{values = dense<[[[[2.0, 10.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32> loc("bn")
  %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8> loc("bn")
  %m = tosa.mul %c, %s, %sh {qfx.origin = "torch.nn.BatchNorm2d"} : (tensor<1x3x3x2xf32>, tensor<1x1x1x2xf32>, tensor<1xi8>) -> tensor<1x3x3x2xf32> loc("bn")
  %t = "tosa.const"() <{values = dense<[[[[1.0, 0.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32> loc("bn")
  %a = tosa.add %m, %t {qfx.origin = "torch.nn.BatchNorm2d"} : (tensor<1x3x3x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x3x3x2xf32> loc("bn")
  %r = tosa.clamp %a {min_val = 0.0 : f32, max_val = 3.40282347e+38 : f32, qfx.origin = "torch.nn.ReLU"} : (tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> loc("relu")
  return %r : tensor<1x3x3x2xf32>
}
