!a = !quant.uniform<i8:f32, 0.5:1>
!b = !quant.uniform<i8:f32, 0.25:-1>
!out = !quant.uniform<i8:f32, 1.0:-10>

func.func @add_relu(%arg0: tensor<4x!a>, %arg1: tensor<4x!b>) -> tensor<4x!out> {
  %x = quant.dcast %arg0 : tensor<4x!a> to tensor<4xf32>
  %y = quant.dcast %arg1 : tensor<4x!b> to tensor<4xf32>
  %s = qfx.fused "add_relu"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%p: tensor<4xf32>, %r: tensor<4xf32>):
    %0 = tosa.add %p, %r : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %1 = tosa.clamp %0 {max_val = 3.40282347E+38 : f32, min_val = 0.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
    qfx.yield %1 : tensor<4xf32>
  }
  %q = quant.qcast %s : tensor<4xf32> to tensor<4x!out>
  return %q : tensor<4x!out>
}
