func.func @matmul_bn(%x: tensor<1x3x2xf32>) -> tensor<1x3x2xf32> {
  %w = "tosa.const"() <{values = dense<[[[1.0, 2.0], [3.0, 4.0]]]> : tensor<1x2x2xf32>}> : () -> tensor<1x2x2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %mm = tosa.matmul %x, %w, %zp, %zp {qfx.origin = "torch.nn.Linear"} : (tensor<1x3x2xf32>, tensor<1x2x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x2xf32> loc("fc")
  %s = "tosa.const"() <{values = dense<[[[2.0, 3.0]]]> : tensor<1x1x2xf32>}> : () -> tensor<1x1x2xf32>
  %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = tosa.mul %mm, %s, %sh : (tensor<1x3x2xf32>, tensor<1x1x2xf32>, tensor<1xi8>) -> tensor<1x3x2xf32> loc("bn")
  %t = "tosa.const"() <{values = dense<[[[5.0, 6.0]]]> : tensor<1x1x2xf32>}> : () -> tensor<1x1x2xf32>
  %a = tosa.add %m, %t : (tensor<1x3x2xf32>, tensor<1x1x2xf32>) -> tensor<1x3x2xf32> loc("bn")
  %r = tosa.clamp %a {min_val = 0.0 : f32, max_val = 3.40282347e+38 : f32} : (tensor<1x3x2xf32>) -> tensor<1x3x2xf32> loc("relu")
  return %r : tensor<1x3x2xf32>
}
