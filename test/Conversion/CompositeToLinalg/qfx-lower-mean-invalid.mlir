// RUN: quant-opt %s --qfx-lower-mean --split-input-file --verify-diagnostics

func.func @not_a_permutation(%x: tensor<3x5xf32>) -> tensor<3x1xf32> {
  // expected-error @+1 {{torch.mean needs `torch_dims` a permutation of 0..1 and positive `torch_strides`}}
  %r = qfx.composite "torch.mean" (%x) attributes {composite_attributes = {
      axes = array<i64: 1>, keepdim = true,
      torch_dims = array<i64: 1, 1>, torch_strides = array<i64: 5, 1>}}
      : (tensor<3x5xf32>) -> tensor<3x1xf32> {
  ^bb0(%a: tensor<3x5xf32>):
    %s = tosa.reduce_sum %a {axis = 1 : i32} : (tensor<3x5xf32>) -> tensor<3x1xf32>
    qfx.yield %s : tensor<3x1xf32>
  }
  return %r : tensor<3x1xf32>
}

// -----

func.func @short_strides(%x: tensor<3x5xf32>) -> tensor<3x1xf32> {
  // expected-error @+1 {{torch.mean needs `axes`, and `torch_dims` and `torch_strides` of 2 values (the operand's rank)}}
  %r = qfx.composite "torch.mean" (%x) attributes {composite_attributes = {
      axes = array<i64: 1>, keepdim = true,
      torch_dims = array<i64: 0, 1>, torch_strides = array<i64: 1>}}
      : (tensor<3x5xf32>) -> tensor<3x1xf32> {
  ^bb0(%a: tensor<3x5xf32>):
    %s = tosa.reduce_sum %a {axis = 1 : i32} : (tensor<3x5xf32>) -> tensor<3x1xf32>
    qfx.yield %s : tensor<3x1xf32>
  }
  return %r : tensor<3x1xf32>
}

// -----

func.func @result_of_other_size(%x: tensor<3x5xf32>) -> tensor<5x1xf32> {
  // expected-error @+1 {{torch.mean has a result of 5 elements where its axes leave 3}}
  %r = qfx.composite "torch.mean" (%x) attributes {composite_attributes = {
      axes = array<i64: 1>, keepdim = true,
      torch_dims = array<i64: 0, 1>, torch_strides = array<i64: 5, 1>}}
      : (tensor<3x5xf32>) -> tensor<5x1xf32> {
  ^bb0(%a: tensor<3x5xf32>):
    %c = "tosa.const"() <{values = dense<0.0> : tensor<5x1xf32>}> : () -> tensor<5x1xf32>
    qfx.yield %c : tensor<5x1xf32>
  }
  return %r : tensor<5x1xf32>
}
