!w = !quant.uniform<i8:f32:2, {0.5, 0.25}>

func.func @dynamic_linear(%x: tensor<1x2x2xf32>) -> tensor<1x2x2xf32> {
  %s, %z = qfx.choose_qparams %x range [0, 255] : tensor<1x2x2xf32> -> tensor<f32>, tensor<i32>
  %q = qfx.quantize %x, %s, %z : (tensor<1x2x2xf32>, tensor<f32>, tensor<i32>) -> tensor<1x2x2xui8>
  %d = qfx.dequantize %q, %s, %z : (tensor<1x2x2xui8>, tensor<f32>, tensor<i32>) -> tensor<1x2x2xf32>
  %wi = "tosa.const"() <{values = dense<[[[1, -1], [2, 4]]]> : tensor<1x2x2xi8>}> : () -> tensor<1x2x2xi8>
  %ws = quant.scast %wi : tensor<1x2x2xi8> to tensor<1x2x2x!w>
  %w = quant.dcast %ws : tensor<1x2x2x!w> to tensor<1x2x2xf32>
  %b = "tosa.const"() <{values = dense<[[[0.5, -0.5]]]> : tensor<1x1x2xf32>}> : () -> tensor<1x1x2xf32>
  %y = qfx.fused "linear_relu"(%d, %w, %b) : (tensor<1x2x2xf32>, tensor<1x2x2xf32>, tensor<1x1x2xf32>) -> tensor<1x2x2xf32> {
  ^bb0(%a: tensor<1x2x2xf32>, %aw: tensor<1x2x2xf32>, %ab: tensor<1x1x2xf32>):
    %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %m = tosa.matmul %a, %aw, %zp, %zp : (tensor<1x2x2xf32>, tensor<1x2x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2xf32>
    %r = tosa.add %m, %ab : (tensor<1x2x2xf32>, tensor<1x1x2xf32>) -> tensor<1x2x2xf32>
    %c = tosa.clamp %r {max_val = 3.40282347E+38 : f32, min_val = 0.0 : f32} : (tensor<1x2x2xf32>) -> tensor<1x2x2xf32>
    qfx.yield %c : tensor<1x2x2xf32>
  }
  return %y : tensor<1x2x2xf32>
}
