// A linalg.generic that calls its loop parallel while every iteration
// writes out[0]: a data race once qfx-parallel-linalg splits the loop
// between threads (test/Runtime/tsan-model-code.test).
#each = affine_map<(d0) -> (d0)>
#first = affine_map<(d0) -> (0)>
func.func @main(%x: tensor<65536xf32>) -> tensor<1xf32> {
  %zero = arith.constant dense<0.0> : tensor<1xf32>
  %r = linalg.generic {indexing_maps = [#each, #first], iterator_types = ["parallel"]}
      ins(%x : tensor<65536xf32>) outs(%zero : tensor<1xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  } -> tensor<1xf32>
  return %r : tensor<1xf32>
}
