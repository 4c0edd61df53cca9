// qfx-prepare's failures and the remark for a QConfig the backend refuses.

// A QConfig the x86 table refuses (qint8 activations): no observer at all,
// and the remark names the failed field.
// RUN: quant-opt %s --split-input-file --mlir-print-op-on-diagnostic=false \
// RUN:   --qfx-prepare="qconfig-mapping=%S/Inputs/qint8-mapping.json backend=x86" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DTYPE
// DTYPE: remark: loc("conv"): not quantized: backend 'x86' pattern [tosa.conv2d] does not support its QConfig: dtype_configs[0]: input_dtype: the QConfig's activation dtype is qint8, the backend expects quint8
// DTYPE-NOT: qfx.observe

// A per-channel weight observer along PyTorch's axis 1 of a depthwise weight
// ([C*M, 1, KH, KW]): TOSA's HWCM layout has no such axis.
// RUN: not quant-opt %s --split-input-file --mlir-print-op-on-diagnostic=false \
// RUN:   --qfx-prepare="qconfig-mapping=%S/Inputs/axis1-mapping.json backend=x86" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=AXIS
// AXIS: error: loc("dw"): cannot observe the weight per channel along PyTorch's axis 1: it has no counterpart in the layout of tosa.depthwise_conv2d's weight

// Along axis 1 of a conv2d weight (PyTorch's input channel) is TOSA's 3 (the
// depthwise function fails, the conv function is printed).
// RUN: not quant-opt %s --split-input-file \
// RUN:   --qfx-prepare="qconfig-mapping=%S/Inputs/axis1-mapping.json backend=x86" 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=CONV-AXIS
// CONV-AXIS: qfx.observe {{.*}}ch_axis = 3>) : tensor<2x1x1x2xf32>

func.func @conv(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w = "tosa.const"() <{values = dense<0.5> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<0.1> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32> loc("conv")
  return %c : tensor<1x4x4x2xf32>
}

// -----

func.func @depthwise(%x: tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  %w = "tosa.const"() <{values = dense<1.0> : tensor<1x1x2x1xf32>}> : () -> tensor<1x1x2x1xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %d = tosa.depthwise_conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x3x2xf32>, tensor<1x1x2x1xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x2xf32> loc("dw")
  return %d : tensor<1x3x3x2xf32>
}

// -----

// A fused region that no config of the backend was fused from stays float.
// UNKNOWN: remark: loc("blk"): not quantized: no pattern of backend 'x86' matches qfx.fused "mystery"
// UNKNOWN-LABEL: func.func @unknown_fused
// UNKNOWN-NOT: qfx.observe
// UNKNOWN: return
// RUN: quant-opt %s --split-input-file --mlir-print-op-on-diagnostic=false \
// RUN:   --qfx-prepare 2>&1 | FileCheck %s --check-prefix=UNKNOWN
func.func @unknown_fused(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = qfx.fused "mystery" (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = tosa.sigmoid %a : (tensor<4xf32>) -> tensor<4xf32>
    qfx.yield %0 : tensor<4xf32>
  } loc("blk")
  return %r : tensor<4xf32>
}
