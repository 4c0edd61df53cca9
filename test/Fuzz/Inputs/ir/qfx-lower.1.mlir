!in = !quant.uniform<i8:f32, 0.5:-3>
!out = !quant.uniform<i8:f32, 0.25:4>
!w = !quant.uniform<i8:f32, 0.125>

func.func @linear(%arg0: tensor<2x4x!in>) -> tensor<1x2x3x!out> {
  %x0 = quant.dcast %arg0 : tensor<2x4x!in> to tensor<2x4xf32>
  %shape = tosa.const_shape {values = dense<[1, 2, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %x = tosa.reshape %x0, %shape : (tensor<2x4xf32>, !tosa.shape<3>) -> tensor<1x2x4xf32>
  %wi = "tosa.const"() <{values = dense<1> : tensor<1x4x3xi8>}> : () -> tensor<1x4x3xi8>
  %ws = quant.scast %wi : tensor<1x4x3xi8> to tensor<1x4x3x!w>
  %w = quant.dcast %ws : tensor<1x4x3x!w> to tensor<1x4x3xf32>
  %b = "tosa.const"() <{values = dense<[[[0.5, 0.0, -0.5]]]> : tensor<1x1x3xf32>}> : () -> tensor<1x1x3xf32>
  %y = qfx.fused "linear"(%x, %w, %b) : (tensor<1x2x4xf32>, tensor<1x4x3xf32>, tensor<1x1x3xf32>) -> tensor<1x2x3xf32> {
  ^bb0(%a: tensor<1x2x4xf32>, %aw: tensor<1x4x3xf32>, %ab: tensor<1x1x3xf32>):
    %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %m = tosa.matmul %a, %aw, %zp, %zp : (tensor<1x2x4xf32>, tensor<1x4x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x3xf32>
    %s = tosa.add %m, %ab : (tensor<1x2x3xf32>, tensor<1x1x3xf32>) -> tensor<1x2x3xf32>
    qfx.yield %s : tensor<1x2x3xf32>
  }
  %q = quant.qcast %y : tensor<1x2x3xf32> to tensor<1x2x3x!out>
  return %q : tensor<1x2x3x!out>
}
