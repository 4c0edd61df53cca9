!t = !quant.uniform<i8:f32, 0.5:3>
!t2 = !quant.uniform<i8:f32, 0.25:3>

func.func @pools(%arg0: tensor<1x4x4x2x!t>) -> (tensor<1x2x2x2x!t>, tensor<1x2x2x2x!t>, tensor<1x2x2x2x!t2>) {
  %x = quant.dcast %arg0 : tensor<1x4x4x2x!t> to tensor<1x4x4x2xf32>
  %m = tosa.max_pool2d %x {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32>
  %qm = quant.qcast %m : tensor<1x2x2x2xf32> to tensor<1x2x2x2x!t>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %a = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x4x4x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x2xf32>
  %qa = quant.qcast %a : tensor<1x2x2x2xf32> to tensor<1x2x2x2x!t>
  %a2 = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x4x4x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x2xf32>
  %qa2 = quant.qcast %a2 : tensor<1x2x2x2xf32> to tensor<1x2x2x2x!t2>
  return %qm, %qa, %qa2 : tensor<1x2x2x2x!t>, tensor<1x2x2x2x!t>, tensor<1x2x2x2x!t2>
}
