// A result whose byte count overflows int64: 2^62 x 4 float32 values.
func.func @main(%x: tensor<2x3xf32>) -> tensor<4611686018427387904x4xf32> {
  %e = tensor.empty() : tensor<4611686018427387904x4xf32>
  return %e : tensor<4611686018427387904x4xf32>
}
