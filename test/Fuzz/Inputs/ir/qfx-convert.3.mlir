func.func @dynamic(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = qfx.observe %x id 0 spec(#qfx.observer<placeholder, dtype = quint8, compute_dtype = quint8>) : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
