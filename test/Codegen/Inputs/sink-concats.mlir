// The input of qfx-sink-concats.mlir's differential run: a batch norm and
// ReLU's integer chain (qfx-lower's lines, per-channel constants) on a
// concatenation of two int8 tensors.
func.func @main(%a: tensor<1x3x4x5xi8>, %b: tensor<1x3x4x3xi8>) -> tensor<1x3x4x8xi8> {
  %c = tosa.concat %a, %b {axis = 3 : i32} : (tensor<1x3x4x5xi8>, tensor<1x3x4x3xi8>) -> tensor<1x3x4x8xi8>
  %w = tosa.cast %c : (tensor<1x3x4x8xi8>) -> tensor<1x3x4x8xi32>
  %m = "tosa.const"() <{values = dense<[[[[1048575, 2097152, 524288, -1048576, 3145728, 1048576, 786432, 4194303]]]]> : tensor<1x1x1x8xi32>}> : () -> tensor<1x1x1x8xi32>
  %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %x = tosa.mul %w, %m, %sh : (tensor<1x3x4x8xi32>, tensor<1x1x1x8xi32>, tensor<1xi8>) -> tensor<1x3x4x8xi32>
  %bias = "tosa.const"() <{values = dense<[[[[127, -1048449, 5000, 0, 1, -3, 77777, 9]]]]> : tensor<1x1x1x8xi32>}> : () -> tensor<1x1x1x8xi32>
  %y = tosa.add %x, %bias : (tensor<1x3x4x8xi32>, tensor<1x1x1x8xi32>) -> tensor<1x3x4x8xi32>
  %s = "tosa.const"() <{values = dense<20> : tensor<1x1x1x1xi32>}> : () -> tensor<1x1x1x1xi32>
  %z = tosa.arithmetic_right_shift %y, %s {round = false} : (tensor<1x3x4x8xi32>, tensor<1x1x1x1xi32>) -> tensor<1x3x4x8xi32>
  %lo = "tosa.const"() <{values = dense<[[[[0, -128, -5, -128, 0, 3, -128, 0]]]]> : tensor<1x1x1x8xi32>}> : () -> tensor<1x1x1x8xi32>
  %u = tosa.maximum %z, %lo : (tensor<1x3x4x8xi32>, tensor<1x1x1x8xi32>) -> tensor<1x3x4x8xi32>
  %hi = "tosa.const"() <{values = dense<[[[[127, 100, 127, 6, 127, 127, 50, 127]]]]> : tensor<1x1x1x8xi32>}> : () -> tensor<1x1x1x8xi32>
  %v = tosa.minimum %u, %hi : (tensor<1x3x4x8xi32>, tensor<1x1x1x8xi32>) -> tensor<1x3x4x8xi32>
  %q = tosa.cast %v : (tensor<1x3x4x8xi32>) -> tensor<1x3x4x8xi8>
  return %q : tensor<1x3x4x8xi8>
}
