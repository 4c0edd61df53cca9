// Two graph breaks: id 0 negates its 2x3 input, id 1 adds 10 to its 3x2
// one (a transposed value: the host sees it in C order); the result is
// 10 - 2x. test/CAPI/Inputs/run-model.c's `host` mode is their host.
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = tosa.add %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %n = qfx.host_call "negate" id 0 (%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = tosa.transpose %n {perms = array<i32: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %p = qfx.host_call "add_ten" id 1 (%t) : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %r = tosa.transpose %p {perms = array<i32: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
