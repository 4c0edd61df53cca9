// An int8 program (a qfx.contract) with a float island holding a float
// contraction (attention scores x x^T, then exp): emit-llvm.test.
func.func @main(%a: tensor<1x2x3xi8>, %x: tensor<4x16x16xf32>) -> (tensor<1x2x2xi8>, tensor<4x16x16xf32>) {
  %w = "tosa.const"() <{values = dense<[[[1, 2], [3, 4], [5, 6]]]> : tensor<1x3x2xi8>}> : () -> tensor<1x3x2xi8>
  %r = qfx.contract matmul %a, %w {input_zp = 2 : i64, epilogue = #qfx.rescale<fraction_bits = 0, bias = [100, -100], multipliers = [1073741824], shifts = [33], output_zp = -5, min = -128, max = 127>} : (tensor<1x2x3xi8>, tensor<1x3x2xi8>) -> tensor<1x2x2xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %t = tosa.transpose %x {perms = array<i32: 0, 2, 1>} : (tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %s = tosa.matmul %x, %t, %zp, %zp : (tensor<4x16x16xf32>, tensor<4x16x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4x16x16xf32>
  %e = tosa.exp %s : (tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  return %r, %e : tensor<1x2x2xi8>, tensor<4x16x16xf32>
}
