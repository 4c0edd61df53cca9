// RUN: quant-opt %s --qfx-lower-layer-norm --split-input-file --verify-diagnostics

func.func @not_innermost(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  // expected-error @+1 {{torch.nn.LayerNorm with torch_order needs `axes` the operand's innermost dimensions, in order}}
  %r = qfx.composite "torch.nn.LayerNorm" (%x) attributes {composite_attributes = {
      axes = array<i64: 0>, eps = 1.0e-05 : f64, torch_order = true}}
      : (tensor<3x5xf32>) -> tensor<3x5xf32> {
  ^bb0(%a: tensor<3x5xf32>):
    qfx.yield %a : tensor<3x5xf32>
  }
  return %r : tensor<3x5xf32>
}

// -----

func.func @short_weight(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  // expected-error @+1 {{torch.nn.LayerNorm needs `weight` of 5 float32 values}}
  %r = qfx.composite "torch.nn.LayerNorm" (%x) attributes {composite_attributes = {
      axes = array<i64: 1>, eps = 1.0e-05 : f64, torch_order = true,
      weight = dense<1.0> : tensor<1x4xf32>}}
      : (tensor<3x5xf32>) -> tensor<3x5xf32> {
  ^bb0(%a: tensor<3x5xf32>):
    qfx.yield %a : tensor<3x5xf32>
  }
  return %r : tensor<3x5xf32>
}
