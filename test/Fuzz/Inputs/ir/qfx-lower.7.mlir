!w4 = !quant.uniform<u4:f32:1, {0.5:8, 0.25:7, 1.0:0, 2.0:1, 0.125:15}>

func.func @weight_only_4bit(%x: tensor<1x2x1xf32>) -> tensor<1x2x5xf32> {
  %wi = "tosa.const"() <{values = dense<[[1, 2, 3, 15, 0]]> : tensor<1x5xi4>}> : () -> tensor<1x5xi4>
  %ws = quant.scast %wi : tensor<1x5xi4> to tensor<1x5x!w4>
  %w = quant.dcast %ws : tensor<1x5x!w4> to tensor<1x5xf32>
  %shape = tosa.const_shape {values = dense<[1, 1, 5]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %w3 = tosa.reshape %w, %shape : (tensor<1x5xf32>, !tosa.shape<3>) -> tensor<1x1x5xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.matmul %x, %w3, %zp, %zp : (tensor<1x2x1xf32>, tensor<1x1x5xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x5xf32>
  return %y : tensor<1x2x5xf32>
}
