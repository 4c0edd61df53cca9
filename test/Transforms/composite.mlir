// qfx.composite through the passes: backend patterns and QConfigMapping
// object types see the PyTorch name, observers go around the composite and
// never inside, a composite no pattern names stays float with a remark, and
// qfx-inline-composites leaves plain TOSA.
// RUN: quant-opt %s --qfx-fuse=backend=x86 --qfx-prepare="qconfig-mapping=default:x86 backend=x86" 2>&1 | FileCheck %s --check-prefix=PREPARE
// RUN: quant-opt %s --qfx-inline-composites | FileCheck %s --check-prefix=INLINE
// RUN: quant-opt %s --qfx-inline-composites --tosa-attach-target=profiles=pro_fp --tosa-validate -o /dev/null

// PREPARE: remark: loc("silu"): not quantized: no pattern of backend 'x86' matches qfx.composite "torch.nn.SiLU"
// PREPARE-LABEL: func.func @main
// PREPARE: %[[IN:.*]] = qfx.observe %arg0 id 0 spec(#qfx.observer<histogram, reduce_range = true>)
// PREPARE: %[[HS:.*]] = qfx.composite "torch.nn.Hardswish"(%[[IN]])
// PREPARE-NOT: qfx.observe
// PREPARE: qfx.yield
// PREPARE: %[[HSO:.*]] = qfx.observe %[[HS]] id 1 spec(#qfx.observer<histogram, reduce_range = true>)
// Hardsigmoid's output takes PyTorch's fixed qparams (1/256, 0).
// PREPARE: %[[HG:.*]] = qfx.composite "torch.nn.Hardsigmoid"(%[[HSO]])
// PREPARE: qfx.observe %[[HG]] id 2 spec(#qfx.observer<fixed_qparams, {{.*}}scale = 3.906250e-03, zero_point = 0>)
// PREPARE: qfx.composite "torch.nn.SiLU"
// PREPARE-NOT: qfx.observe
// PREPARE: return

// INLINE-LABEL: func.func @main
// INLINE-NOT: qfx.
// INLINE: tosa.add
// INLINE: tosa.clamp
// INLINE: tosa.mul
// INLINE: tosa.sigmoid
// INLINE: return
func.func @main(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = qfx.composite "torch.nn.Hardswish" (%x) attributes {qfx.origin = "torch.nn.Hardswish"} : (tensor<2x8xf32>) -> tensor<2x8xf32> {
  ^bb0(%a: tensor<2x8xf32>):
    %three = "tosa.const"() <{values = dense<3.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
    %sixth = "tosa.const"() <{values = dense<0.166666672> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
    %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %t = tosa.add %a, %three : (tensor<2x8xf32>, tensor<1x1xf32>) -> tensor<2x8xf32>
    %c = tosa.clamp %t {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %m = tosa.mul %a, %c, %shift : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<1xi8>) -> tensor<2x8xf32>
    %r = tosa.mul %m, %sixth, %shift : (tensor<2x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<2x8xf32>
    qfx.yield %r : tensor<2x8xf32>
  } loc("hs")
  %1 = qfx.composite "torch.nn.Hardsigmoid" (%0) attributes {qfx.origin = "torch.nn.functional.hardsigmoid"} : (tensor<2x8xf32>) -> tensor<2x8xf32> {
  ^bb0(%a: tensor<2x8xf32>):
    %three = "tosa.const"() <{values = dense<3.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
    %sixth = "tosa.const"() <{values = dense<0.166666672> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
    %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %t = tosa.add %a, %three : (tensor<2x8xf32>, tensor<1x1xf32>) -> tensor<2x8xf32>
    %c = tosa.clamp %t {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %r = tosa.mul %c, %sixth, %shift : (tensor<2x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<2x8xf32>
    qfx.yield %r : tensor<2x8xf32>
  } loc(""("hardsigmoid"))
  %2 = qfx.composite "torch.nn.SiLU" (%1) attributes {qfx.origin = "torch.nn.SiLU"} : (tensor<2x8xf32>) -> tensor<2x8xf32> {
  ^bb0(%a: tensor<2x8xf32>):
    %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %s = tosa.sigmoid %a : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %r = tosa.mul %a, %s, %shift : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<1xi8>) -> tensor<2x8xf32>
    qfx.yield %r : tensor<2x8xf32>
  } loc("silu")
  return %2 : tensor<2x8xf32>
}
