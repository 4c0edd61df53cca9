// A QConfig the pattern's dtype configs refuse: the remark names each dtype
// config and the field that failed.

// RUN: quant-opt %s --mlir-print-op-on-diagnostic=false \
// RUN:   --qfx-annotate-qconfig="qconfig-mapping=%S/Inputs/qint8-mapping.json backend=x86" \
// RUN:   2>&1 >/dev/null | FileCheck %s --check-prefix=X86
// RUN: quant-opt %s --mlir-print-op-on-diagnostic=false \
// RUN:   --qfx-annotate-qconfig="qconfig-mapping=%S/Inputs/qint8-mapping.json backend=qnnpack" \
// RUN:   2>&1 >/dev/null | FileCheck %s --check-prefix=QNNPACK
// RUN: quant-opt %s --mlir-print-op-on-diagnostic=false \
// RUN:   --qfx-annotate-qconfig="qconfig-mapping=%S/Inputs/qint8-mapping.json backend=tosa" \
// RUN:   2>&1 >/dev/null | FileCheck %s --check-prefix=TOSA
// RUN: quant-opt %s --mlir-print-op-on-diagnostic=false \
// RUN:   --qfx-annotate-qconfig="qconfig-mapping=%S/Inputs/qint8-small-eps-mapping.json backend=qnnpack" \
// RUN:   2>&1 >/dev/null | FileCheck %s --check-prefix=EPS
// RUN: quant-opt %s --mlir-print-op-on-diagnostic=false \
// RUN:   --qfx-annotate-qconfig="qconfig-mapping=default:x86 backend=x86" \
// RUN:   2>&1 >/dev/null | FileCheck %s --allow-empty --check-prefix=DEFAULT

// Inputs/qint8-mapping.json: qint8 activations (eps 2^-12), qint8 weights in
// [-128, 127]. Inputs/qint8-small-eps-mapping.json: qint8 activations with
// the default eps (below qnnpack's scale_min_lower_bound 2^-12), weights in
// [-127, 127].

// DEFAULT-NOT: remark
func.func @conv(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w = "tosa.const"() <{values = dense<0.5> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // X86: remark: loc("conv"): not quantized: backend 'x86' pattern [tosa.conv2d] does not support its QConfig: dtype_configs[0]: input_dtype: the QConfig's activation dtype is qint8, the backend expects quint8
  // QNNPACK: remark: loc("conv"): not quantized: backend 'qnnpack' pattern [tosa.conv2d] does not support its QConfig: dtype_configs[0]: weight_dtype: the QConfig's weight range [-128, 127] is not within the backend's quant_min_lower_bound -127 / quant_max_upper_bound 127; dtype_configs[1]: input_dtype: the QConfig's activation dtype is qint8, the backend expects quint8
  // EPS: remark: loc("conv"): not quantized: backend 'qnnpack' pattern [tosa.conv2d] does not support its QConfig: dtype_configs[0]: input_dtype: the QConfig's activation eps 1.19209e-07 is below the backend's scale_min_lower_bound 0.000244141; dtype_configs[1]: input_dtype: the QConfig's activation dtype is qint8, the backend expects quint8
  // TOSA: remark: loc("conv"): not quantized: backend 'tosa' pattern [tosa.conv2d] does not support its QConfig: dtype_configs[0]: weight_dtype: the QConfig's weight range [-128, 127] is not within the backend's quant_min_lower_bound -127 / quant_max_upper_bound 127
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32> loc("conv")
  // Without a weight, the tosa table accepts the QConfig.
  // TOSA-NOT: loc("pool")
  // X86: remark: loc("pool"): not quantized: backend 'x86' pattern [tosa.max_pool2d] does not support its QConfig: dtype_configs[0]: input_dtype: the QConfig's activation dtype is qint8, the backend expects quint8
  %p = tosa.max_pool2d %c {kernel = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> loc("pool")
  return %p : tensor<1x4x4x2xf32>
}
