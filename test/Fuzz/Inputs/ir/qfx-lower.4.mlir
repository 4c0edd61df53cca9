!a = !quant.uniform<i8:f32, 0.5:0>
!b = !quant.uniform<i8:f32, 0.25:0>

func.func @concat(%arg0: tensor<2x!a>, %arg1: tensor<2x!b>) -> tensor<4x!a> {
  %x = quant.dcast %arg0 : tensor<2x!a> to tensor<2xf32>
  %y = quant.dcast %arg1 : tensor<2x!b> to tensor<2xf32>
  %c = tosa.concat %x, %y {axis = 0 : i32} : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  %q = quant.qcast %c : tensor<4xf32> to tensor<4x!a>
  return %q : tensor<4x!a>
}
