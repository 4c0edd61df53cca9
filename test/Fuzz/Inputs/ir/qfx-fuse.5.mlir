func.func @linear_reshape_relu(%x: tensor<1x3x2xf32>) -> tensor<3x2xf32> {
  %w = "tosa.const"() <{values = dense<1.0> : tensor<1x2x2xf32>}> : () -> tensor<1x2x2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %mm = tosa.matmul %x, %w, %zp, %zp : (tensor<1x3x2xf32>, tensor<1x2x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x2xf32>
  %bias = "tosa.const"() <{values = dense<0.5> : tensor<1x1x2xf32>}> : () -> tensor<1x1x2xf32>
  %a = tosa.add %mm, %bias : (tensor<1x3x2xf32>, tensor<1x1x2xf32>) -> tensor<1x3x2xf32>
  %s = tosa.const_shape {values = dense<[3, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %a, %s : (tensor<1x3x2xf32>, !tosa.shape<2>) -> tensor<3x2xf32>
  %c = tosa.clamp %r {min_val = 0.0 : f32, max_val = 3.40282347e+38 : f32} : (tensor<3x2xf32>) -> tensor<3x2xf32>
  return %c : tensor<3x2xf32>
}
