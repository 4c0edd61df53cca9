// RUN: quant-opt %s --qfx-module-names-from-locations --qfx-prepare="qconfig-mapping=%S/Inputs/prepare-mapping.json backend=qnnpack" \
// RUN:   2>/dev/null | FileCheck %s
// RUN: quant-opt %s --qfx-module-names-from-locations --qfx-prepare="qconfig-mapping=%S/Inputs/prepare-mapping.json backend=qnnpack" \
// RUN:   --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=REMARK --implicit-check-not=remark
// RUN: quant-opt %s --qfx-module-names-from-locations --qfx-prepare="qconfig-mapping=%S/Inputs/prepare-mapping.json backend=qnnpack summary=true" \
// RUN:   --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=SUMMARY --implicit-check-not=remark
// RUN: not quant-opt %s --qfx-module-names-from-locations --qfx-prepare="qconfig-mapping=%S/Inputs/malformed.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ERROR

// Inputs/prepare-mapping.json: default_qconfig globally,
// default_reuse_input_qconfig for tosa.reshape, default_dynamic_qconfig for
// module "dyn", default_symmetric_qnnpack_qconfig for "sym", null for "off",
// a histogram activation observer for "hist".

// SUMMARY: remark: 2 ops not quantized (backend 'qnnpack', qconfig-mapping '{{.*}}prepare-mapping.json'):
// SUMMARY-NEXT: op | module | reason
// SUMMARY-NEXT: tosa.add | off(add) | its QConfig is null (module 'off', object types tosa.add #0 in 'off')
// SUMMARY-NEXT: qfx.fused "conv2d_relu" | ? | the QConfig of its pattern's last op is null (module 'off', object types tosa.clamp #0 in '')

// ERROR: error: qconfig-mapping: {{.*}}malformed.json: invalid JSON

// A value used by ops that need different dtypes gets one observer per
// dtype: "a" and "b" use default_qconfig (quint8), "sym" the symmetric qint8
// QConfig that qnnpack's first dtype config takes. The add in "off" has a
// null QConfig: nothing observes its inputs or output.
// CHECK-LABEL: func.func @two_dtypes
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x4x2xf32>)
// CHECK-NEXT: %[[XU8:.*]] = qfx.observe %[[X]] id 0 spec(#qfx.observer<minmax, quant_min = 0, quant_max = 127>)
// CHECK-NEXT: %[[XI8:.*]] = qfx.observe %[[X]] id 1 spec(#qfx.observer<histogram, dtype = qint8, reduce_range = false, eps = 2.44140625E-4>)
// CHECK: %[[WA:.*]] = qfx.observe %[[W:.*]] id 2 spec(#qfx.observer<minmax, dtype = qint8, qscheme = per_tensor_symmetric>)
// CHECK-NEXT: %[[A:.*]] = tosa.conv2d %[[XU8]], %[[WA]],
// CHECK-NEXT: %[[AO:.*]] = qfx.observe %[[A]] id 3
// CHECK-NEXT: %[[WS:.*]] = qfx.observe %[[W]] id 4 spec(#qfx.observer<minmax, dtype = qint8, qscheme = per_tensor_symmetric, quant_min = -127, quant_max = 127, eps = 2.44140625E-4>)
// CHECK-NEXT: %[[S:.*]] = tosa.conv2d %[[XI8]], %[[WS]],
// CHECK-NEXT: %[[SO:.*]] = qfx.observe %[[S]] id 5
// CHECK-NEXT: %[[WB:.*]] = qfx.observe %[[W]] id 6
// CHECK-NEXT: %[[B:.*]] = tosa.conv2d %[[XU8]], %[[WB]],
// CHECK-NEXT: %[[BO:.*]] = qfx.observe %[[B]] id 7
// CHECK-NEXT: %[[ADD:.*]] = tosa.add %[[SO]], %[[BO]]
// CHECK-NEXT: return %[[AO]], %[[ADD]]
// REMARK: remark: loc("off"("add")): not quantized: its QConfig is null (module 'off', object types tosa.add #0 in 'off')
func.func @two_dtypes(%x: tensor<1x4x4x2xf32>) -> (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) {
  %w = "tosa.const"() <{values = dense<0.5> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<0.1> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32> loc("a")
  %c2 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32> loc("sym")
  %c3 = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32> loc("b")
  %s = tosa.add %c2, %c3 : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> loc("off"("add"))
  return %c, %s : tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>
}

// default_reuse_input_qconfig on reshapes: no input observer; the output
// shares the input's observer when there is one (reshape_1, reshape_2) and is
// left unobserved when there is none (reshape of the argument) -- yet counts
// as quint8, so the matmul after it observes nothing, as in PyTorch. The
// linear in "dyn" is dynamic: a placeholder observer with compute_dtype on
// its input, none on its output.
// CHECK-LABEL: func.func @reuse_input
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>)
// CHECK: %[[R:.*]] = tosa.reshape %[[X]]
// CHECK: %[[WO:.*]] = qfx.observe %{{.*}} id 8
// CHECK-NEXT: %[[M:.*]] = tosa.matmul %[[R]], %[[WO]],
// CHECK-NEXT: %[[MO:.*]] = qfx.observe %[[M]] id 9 spec(#qfx.observer<minmax, quant_min = 0, quant_max = 127>)
// CHECK: %[[R1:.*]] = tosa.reshape %[[MO]]
// CHECK-NEXT: %[[R1O:.*]] = qfx.observe %[[R1]] id 9 spec(#qfx.observer<minmax, quant_min = 0, quant_max = 127>)
// CHECK-NEXT: %[[R2:.*]] = tosa.reshape %[[R1O]]
// CHECK-NEXT: %[[R2O:.*]] = qfx.observe %[[R2]] id 9 spec(#qfx.observer<minmax, quant_min = 0, quant_max = 127>)
// CHECK-NEXT: %[[DYN:.*]] = qfx.observe %[[R2O]] id 10 spec(#qfx.observer<placeholder, dtype = quint8, compute_dtype = quint8>)
// CHECK-NEXT: %[[W2O:.*]] = qfx.observe %{{.*}} id 11
// CHECK-NEXT: %[[M2:.*]] = tosa.matmul %[[DYN]], %[[W2O]],
// CHECK-NEXT: return %[[M2]]
func.func @reuse_input(%x: tensor<2x4xf32>) -> tensor<1x2x4xf32> {
  %s = tosa.const_shape {values = dense<[1, 2, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %r = tosa.reshape %x, %s : (tensor<2x4xf32>, !tosa.shape<3>) -> tensor<1x2x4xf32> loc(""("reshape"))
  %w = "tosa.const"() <{values = dense<0.5> : tensor<1x4x4xf32>}> : () -> tensor<1x4x4xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %m = tosa.matmul %r, %w, %zp, %zp : (tensor<1x2x4xf32>, tensor<1x4x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x4xf32> loc("fc")
  %s2 = tosa.const_shape {values = dense<[2, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r2 = tosa.reshape %m, %s2 : (tensor<1x2x4xf32>, !tosa.shape<2>) -> tensor<2x4xf32> loc(""("reshape_1"))
  %r3 = tosa.reshape %r2, %s : (tensor<2x4xf32>, !tosa.shape<3>) -> tensor<1x2x4xf32> loc(""("reshape_2"))
  %m2 = tosa.matmul %r3, %w, %zp, %zp : (tensor<1x2x4xf32>, tensor<1x4x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x4xf32> loc("dyn")
  return %m2 : tensor<1x2x4xf32>
}

// A fused region is one op: observers on its operands and result, none
// inside; its weight operand is observed with the layout of the conv inside.
// CHECK-LABEL: func.func @fused
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x4x2xf32>)
// CHECK-NEXT: %[[XO:.*]] = qfx.observe %[[X]] id 12
// CHECK: %[[WO:.*]] = qfx.observe %{{.*}} id 13 spec(#qfx.observer<minmax, dtype = qint8, qscheme = per_tensor_symmetric>)
// CHECK-NEXT: %[[F:.*]] = qfx.fused "conv2d_relu"(%[[XO]], %[[WO]], %{{.*}})
// CHECK-NOT: qfx.observe
// CHECK: qfx.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[FO:.*]] = qfx.observe %[[F]] id 14
// CHECK-NEXT: return %[[FO]]
func.func @fused(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w = "tosa.const"() <{values = dense<0.5> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<0.1> : tensor<2xf32>}> : () -> tensor<2xf32>
  %r = qfx.fused "conv2d_relu" (%x, %w, %b) : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32> {
  ^bb0(%a: tensor<1x4x4x2xf32>, %k: tensor<2x1x1x2xf32>, %c: tensor<2xf32>):
    %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %0 = tosa.conv2d %a, %k, %c, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32> loc("conv")
    %1 = tosa.clamp %0 {min_val = 0.0 : f32, max_val = 3.40282347e+38 : f32} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> loc("relu")
    qfx.yield %1 : tensor<1x4x4x2xf32>
  } loc(fused["conv", "relu"])
  return %r : tensor<1x4x4x2xf32>
}

// PyTorch observes a pattern's output with its last node's QConfig (the
// clamp, in "hist"), its inputs with its root node's (the conv: global).
// CHECK-LABEL: func.func @fused_last_other
// CHECK: qfx.observe %{{.*}} spec(#qfx.observer<minmax, quant_min = 0, quant_max = 127>)
// CHECK: qfx.fused "conv2d_relu"
// CHECK: qfx.yield
// CHECK-NEXT: }
// CHECK-NEXT: qfx.observe %{{.*}} spec(#qfx.observer<histogram, reduce_range = true>)
func.func @fused_last_other(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w = "tosa.const"() <{values = dense<0.5> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<0.1> : tensor<2xf32>}> : () -> tensor<2xf32>
  %r = qfx.fused "conv2d_relu" (%x, %w, %b) : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32> {
  ^bb0(%a: tensor<1x4x4x2xf32>, %k: tensor<2x1x1x2xf32>, %c: tensor<2xf32>):
    %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %0 = tosa.conv2d %a, %k, %c, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32> loc("conv")
    %1 = tosa.clamp %0 {min_val = 0.0 : f32, max_val = 3.40282347e+38 : f32} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> loc("hist")
    qfx.yield %1 : tensor<1x4x4x2xf32>
  } loc(fused["conv", "hist"])
  return %r : tensor<1x4x4x2xf32>
}

// With the last node configured None the pattern's output is float, which
// its dtype configs do not take: nothing of it is observed.
// CHECK-LABEL: func.func @fused_last_off
// CHECK-NOT: qfx.observe
// CHECK: return
func.func @fused_last_off(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w = "tosa.const"() <{values = dense<0.5> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<0.1> : tensor<2xf32>}> : () -> tensor<2xf32>
  // REMARK: remark: loc(fused["conv", "off"]): not quantized: the QConfig of its pattern's last op is null (module 'off', object types tosa.clamp #0 in '')
  %r = qfx.fused "conv2d_relu" (%x, %w, %b) : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32> {
  ^bb0(%a: tensor<1x4x4x2xf32>, %k: tensor<2x1x1x2xf32>, %c: tensor<2xf32>):
    %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %0 = tosa.conv2d %a, %k, %c, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32> loc("conv")
    %1 = tosa.clamp %0 {min_val = 0.0 : f32, max_val = 3.40282347e+38 : f32} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> loc("off")
    qfx.yield %1 : tensor<1x4x4x2xf32>
  } loc(fused["conv", "off"])
  return %r : tensor<1x4x4x2xf32>
}
