func.func @dynamic(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<4xf32> {
  %q = qfx.quantize %x, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<i32>) -> tensor<4xui8>
  %d = qfx.dequantize %q, %s, %z : (tensor<4xui8>, tensor<f32>, tensor<i32>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}
