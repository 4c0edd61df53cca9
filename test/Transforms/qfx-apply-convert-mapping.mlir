// PyTorch's convert_fx(qconfig_mapping=...): ops the convert-time mapping
// sets to None lose the observers that no quantized op produces or uses.
// Prepared with {"": "default_qconfig"}.

// RUN: echo '{"": "default_qconfig"}' > %t.prepare.json
// RUN: quant-opt %s --qfx-module-names-from-locations --qfx-fuse=backend=x86 \
// RUN:   --qfx-prepare="qconfig-mapping=%t.prepare.json backend=x86" -o %t.observed.mlir

// fc2 None: its weight observer goes; its input (fc1's output) and output
// (the functional linear's input) stay observed.
// RUN: echo '{"": "default_qconfig", "module_name": [["fc2", null]]}' > %t.fc2.json
// RUN: quant-opt %t.observed.mlir --qfx-apply-convert-mapping="qconfig-mapping=%t.fc2.json prepare-qconfig-mapping=%t.prepare.json backend=x86" \
// RUN:   | FileCheck %s --check-prefix=FC2
// FC2: qfx.observe %arg0 id 0
// FC2: qfx.observe %{{.*}} id 1 {{.*}}qint8
// FC2: %[[FC1:.*]] = qfx.fused "linear_relu"
// FC2: %[[IN:.*]] = qfx.observe %[[FC1]] id 2
// FC2-NOT: id 3
// FC2: %[[SECOND:.*]] = qfx.fused "linear"(%[[IN]],
// FC2: qfx.observe %[[SECOND]] id 4
// FC2: qfx.observe %{{.*}} id 5 {{.*}}qint8
// FC2: qfx.observe %{{.*}} id 6

// fc2 and the functional linear None: nothing quantized produces or uses
// fc2's output or the function's result.
// RUN: echo '{"": "default_qconfig", "module_name": [["fc2", null]], "object_type": [["torch.nn.functional.linear", null]]}' > %t.both.json
// RUN: quant-opt %t.observed.mlir --qfx-apply-convert-mapping="qconfig-mapping=%t.both.json prepare-qconfig-mapping=%t.prepare.json backend=x86" \
// RUN:   | FileCheck %s --check-prefix=BOTH --implicit-check-not="id 3" --implicit-check-not="id 4" \
// RUN:     --implicit-check-not="id 5" --implicit-check-not="id 6"
// BOTH: qfx.observe %arg0 id 0
// BOTH: qfx.observe %{{.*}} id 1
// BOTH: qfx.observe %{{.*}} id 2
// BOTH: %[[SECOND:.*]] = qfx.fused "linear"
// BOTH: %[[LIN:.*]] = qfx.fused "linear_relu"(%[[SECOND]],
// BOTH: return %[[LIN]]

// The convert mapping may only turn QConfigs to None.
// RUN: echo '{"": "default_qconfig", "module_name": [["fc2", "default_per_channel_qconfig"]]}' > %t.other.json
// RUN: not quant-opt %t.observed.mlir --qfx-apply-convert-mapping="qconfig-mapping=%t.other.json prepare-qconfig-mapping=%t.prepare.json backend=x86" \
// RUN:   --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=OTHER
// OTHER: error: qfx-apply-convert-mapping: the convert QConfigMapping gives this op another QConfig than the prepare one (it may only give None) (module 'fc2',
// RUN: echo '{"": "default_per_channel_qconfig"}' > %t.global.json
// RUN: not quant-opt %t.observed.mlir --qfx-apply-convert-mapping="qconfig-mapping=%t.global.json prepare-qconfig-mapping=%t.prepare.json backend=x86" \
// RUN:   2>&1 | FileCheck %s --check-prefix=GLOBAL
// GLOBAL: error: qfx-apply-convert-mapping: the global QConfigs of the prepare and convert QConfigMappings differ
// RUN: echo '{"": "default_qconfig", "module_name": [["fc1", null]]}' > %t.prepare-fc1.json
// RUN: not quant-opt %t.observed.mlir --qfx-apply-convert-mapping="qconfig-mapping=%t.fc2.json prepare-qconfig-mapping=%t.prepare-fc1.json backend=x86" \
// RUN:   2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: qfx-apply-convert-mapping: module_name 'fc1' of the prepare QConfigMapping is not in the convert one
// RUN: not quant-opt %t.observed.mlir --qfx-apply-convert-mapping="qconfig-mapping=%t.fc2.json" \
// RUN:   2>&1 | FileCheck %s --check-prefix=OPTIONS
// OPTIONS: error: qfx-apply-convert-mapping: give both qconfig-mapping (the convert one) and prepare-qconfig-mapping

func.func @mlp(%x: tensor<1x2x8xf32>) -> tensor<1x2x8xf32> {
  %w1 = "tosa.const"() <{values = dense<0.5> : tensor<1x8x8xf32>}> : () -> tensor<1x8x8xf32>
  %b1 = "tosa.const"() <{values = dense<0.1> : tensor<1x1x8xf32>}> : () -> tensor<1x1x8xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.matmul %x, %w1, %zp, %zp {qfx.origin = "torch.nn.Linear"} : (tensor<1x2x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x8xf32> loc("fc1")
  %1 = tosa.add %0, %b1 {qfx.origin = "torch.nn.Linear"} : (tensor<1x2x8xf32>, tensor<1x1x8xf32>) -> tensor<1x2x8xf32> loc("fc1")
  %2 = tosa.clamp %1 {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32, qfx.origin = "torch.nn.ReLU"} : (tensor<1x2x8xf32>) -> tensor<1x2x8xf32> loc("relu")
  %3 = tosa.matmul %2, %w1, %zp, %zp {qfx.origin = "torch.nn.Linear"} : (tensor<1x2x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x8xf32> loc("fc2")
  %4 = tosa.add %3, %b1 {qfx.origin = "torch.nn.Linear"} : (tensor<1x2x8xf32>, tensor<1x1x8xf32>) -> tensor<1x2x8xf32> loc("fc2")
  %5 = tosa.matmul %4, %w1, %zp, %zp {qfx.origin = "torch.nn.functional.linear"} : (tensor<1x2x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x8xf32> loc(""("linear"))
  %6 = tosa.clamp %5 {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32, qfx.origin = "torch.nn.functional.relu"} : (tensor<1x2x8xf32>) -> tensor<1x2x8xf32> loc(""("relu_1"))
  return %6 : tensor<1x2x8xf32>
}
