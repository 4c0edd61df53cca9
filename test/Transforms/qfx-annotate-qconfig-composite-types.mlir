// RUN: rm -rf %t && mkdir -p %t
// RUN: echo '{"": {"activation": {"observer": "MinMaxObserver", "quant_min": 0, "quant_max": 101}, "weight": {"observer": "MinMaxObserver", "dtype": "qint8", "qscheme": "per_tensor_symmetric"}}, "object_type": [["torch.nn.Hardswish", {"activation": {"observer": "MinMaxObserver", "quant_min": 0, "quant_max": 102}, "weight": {"observer": "MinMaxObserver", "dtype": "qint8", "qscheme": "per_tensor_symmetric"}}]]}' > %t/mapping.json
// RUN: quant-opt %s --qfx-annotate-qconfig="qconfig-mapping=%t/mapping.json backend=x86" \
// RUN:   2>/dev/null | FileCheck %s

// A composite is named after a PyTorch op, but with an origin PyTorch knows
// it by the origin alone: set_object_type(nn.Hardswish, ...) configures the
// module, not F.hardswish (difffuzz 119141). Without an origin (a TOSA
// model), the composite's name is its object type.
// CHECK-LABEL: func.func @composite_types
// CHECK: qfx.composite "torch.nn.Hardswish"{{.*}}qfx.origin = "torch.nn.functional.hardswish"{{.*}}quant_max = 101>
// CHECK: qfx.composite "torch.nn.Hardswish"{{.*}}qfx.origin = "torch.nn.Hardswish"{{.*}}quant_max = 102>
// CHECK: qfx.composite "torch.nn.Hardswish"{{.*}}quant_max = 102>
func.func @composite_types(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = qfx.composite "torch.nn.Hardswish" (%x) attributes {qfx.origin = "torch.nn.functional.hardswish"} : (tensor<2x8xf32>) -> tensor<2x8xf32> {
  ^bb0(%a: tensor<2x8xf32>):
    qfx.yield %a : tensor<2x8xf32>
  } loc("f")
  %1 = qfx.composite "torch.nn.Hardswish" (%0) attributes {qfx.origin = "torch.nn.Hardswish"} : (tensor<2x8xf32>) -> tensor<2x8xf32> {
  ^bb0(%a: tensor<2x8xf32>):
    qfx.yield %a : tensor<2x8xf32>
  } loc("m")
  %2 = qfx.composite "torch.nn.Hardswish" (%1) : (tensor<2x8xf32>) -> tensor<2x8xf32> {
  ^bb0(%a: tensor<2x8xf32>):
    qfx.yield %a : tensor<2x8xf32>
  } loc("t")
  return %2 : tensor<2x8xf32>
}
