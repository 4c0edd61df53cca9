// PyTorch 1.13's fuse_fx turns a Linear, Conv or BatchNorm module followed by
// a ReLU (module or F.relu) into one fused module (torch.nn.intrinsic) before
// QConfigs are resolved: the qfx.fused op of such modules is resolved as that
// module (object type torch.nn.intrinsic.LinearReLU at its first module's
// name, counted for module_name_object_type_order as that module's type),
// after update_qconfig_for_fusion gave the fused type its modules' common
// object_type entry. Functional patterns (F.linear + F.relu) stay per node.
// QConfigs are told apart by their weight observer: default_qconfig's is
// per-tensor minmax, default_per_channel_qconfig's per_channel_minmax.

// Modules whose object types are null take the global QConfig when fused;
// the unfused Linear takes its null entry.
// RUN: echo '{"": "default_qconfig", "object_type": [["torch.nn.Linear", null]]}' > %t.null.json
// RUN: quant-opt %s --qfx-module-names-from-locations --qfx-fuse=backend=x86 \
// RUN:   --qfx-annotate-qconfig="qconfig-mapping=%t.null.json backend=x86" 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=NULL
// NULL: qfx.fused "linear_relu"{{.*}}qfx.qconfig = #qfx.qconfig<{{.*}}weight = #qfx.observer<minmax,
// NULL: qfx.fused "linear"{{.*}}qfx.qconfig = "none"

// The modules' entries replace the fused type's own.
// RUN: echo '{"": "default_qconfig", "object_type": [["torch.nn.intrinsic.LinearReLU", null], ["torch.nn.Linear", "default_per_channel_qconfig"], ["torch.nn.ReLU", "default_per_channel_qconfig"]]}' > %t.parts.json
// RUN: quant-opt %s --qfx-module-names-from-locations --qfx-fuse=backend=x86 \
// RUN:   --qfx-annotate-qconfig="qconfig-mapping=%t.parts.json backend=x86" 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=PARTS
// PARTS: qfx.fused "linear_relu"{{.*}}per_channel_minmax
// PARTS: qfx.fused "linear"{{.*}}per_channel_minmax

// Without entries for its modules, the fused type's entry applies.
// RUN: echo '{"": "default_qconfig", "object_type": [["torch.nn.intrinsic.LinearReLU", "default_per_channel_qconfig"]]}' > %t.fused.json
// RUN: quant-opt %s --qfx-module-names-from-locations --qfx-fuse=backend=x86 \
// RUN:   --qfx-annotate-qconfig="qconfig-mapping=%t.fused.json backend=x86" 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=FUSED
// FUSED: qfx.fused "linear_relu"{{.*}}per_channel_minmax
// FUSED: qfx.fused "linear"{{.*}}weight = #qfx.observer<minmax,

// The fused module counts as Linear #0, so fc2 is Linear #1; the ReLU module
// is gone: neither its name nor its order entry applies.
// RUN: echo '{"": "default_qconfig", "module_name": [["relu", null]], "module_name_object_type_order": [["", "torch.nn.Linear", 1, null], ["", "torch.nn.ReLU", 0, null]]}' > %t.order.json
// RUN: quant-opt %s --qfx-module-names-from-locations --qfx-fuse=backend=x86 \
// RUN:   --qfx-annotate-qconfig="qconfig-mapping=%t.order.json backend=x86" 2>&1 \
// RUN:   --mlir-print-op-on-diagnostic=false | FileCheck %s --check-prefix=ORDER
// ORDER: remark: loc("fc2"): not quantized: its QConfig is null (module 'fc2', object types tosa.matmul #0 in '', torch.nn.Linear #1 in '')
// ORDER: qfx.fused "linear_relu"{{.*}}qfx.qconfig = #qfx.qconfig<
// ORDER: qfx.fused "linear"{{.*}}qfx.qconfig = "none"

// A functional ReLU after F.linear is a node of its own: its null entry
// leaves the pattern float, as before fusion existed.
// RUN: echo '{"": "default_qconfig", "object_type": [["torch.nn.functional.relu", null]]}' > %t.functional.json
// RUN: quant-opt %s --qfx-module-names-from-locations --qfx-fuse=backend=x86 \
// RUN:   --qfx-annotate-qconfig="qconfig-mapping=%t.functional.json backend=x86" 2>&1 \
// RUN:   --mlir-print-op-on-diagnostic=false | FileCheck %s --check-prefix=FUNCTIONAL
// FUNCTIONAL: remark: loc(fused[""("linear"), ""("relu_1")]): not quantized: the QConfig of its pattern's last op is null
// FUNCTIONAL: qfx.fused "linear_relu"{{.*}}qfx.qconfig = #qfx.qconfig<

// Entries that differ between the fused modules are an error, as PyTorch's
// LookupError; an absent entry is none.
// RUN: echo '{"object_type": [["torch.nn.Linear", "default_qconfig"]]}' > %t.differ.json
// RUN: not quant-opt %s --qfx-module-names-from-locations --qfx-fuse=backend=x86 \
// RUN:   --qfx-annotate-qconfig="qconfig-mapping=%t.differ.json backend=x86" \
// RUN:   --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=DIFFER
// DIFFER: error: loc(fused["fc1", "relu"]): the modules fused into torch.nn.intrinsic.LinearReLU need the same object type QConfig, but torch.nn.Linear has a QConfig and torch.nn.ReLU has none (PyTorch 1.13's prepare_fx raises LookupError)
// RUN: echo '{"object_type": [["torch.nn.Linear", "default_qconfig"], ["torch.nn.ReLU", "default_per_channel_qconfig"]]}' > %t.another.json
// RUN: not quant-opt %s --qfx-module-names-from-locations --qfx-fuse=backend=x86 \
// RUN:   --qfx-prepare="qconfig-mapping=%t.another.json backend=x86" \
// RUN:   --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=ANOTHER
// ANOTHER: error: {{.*}}torch.nn.Linear has a QConfig and torch.nn.ReLU has another

func.func @mlp(%x: tensor<1x2x8xf32>) -> tensor<1x2x8xf32> {
  %w = "tosa.const"() <{values = dense<0.5> : tensor<1x8x8xf32>}> : () -> tensor<1x8x8xf32>
  %b = "tosa.const"() <{values = dense<0.1> : tensor<1x1x8xf32>}> : () -> tensor<1x1x8xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.matmul %x, %w, %zp, %zp {qfx.origin = "torch.nn.Linear"} : (tensor<1x2x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x8xf32> loc("fc1")
  %1 = tosa.add %0, %b {qfx.origin = "torch.nn.Linear"} : (tensor<1x2x8xf32>, tensor<1x1x8xf32>) -> tensor<1x2x8xf32> loc("fc1")
  %2 = tosa.clamp %1 {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32, qfx.origin = "torch.nn.ReLU"} : (tensor<1x2x8xf32>) -> tensor<1x2x8xf32> loc("relu")
  %3 = tosa.matmul %2, %w, %zp, %zp {qfx.origin = "torch.nn.Linear"} : (tensor<1x2x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x8xf32> loc("fc2")
  %4 = tosa.add %3, %b {qfx.origin = "torch.nn.Linear"} : (tensor<1x2x8xf32>, tensor<1x1x8xf32>) -> tensor<1x2x8xf32> loc("fc2")
  %5 = tosa.matmul %4, %w, %zp, %zp {qfx.origin = "torch.nn.functional.linear"} : (tensor<1x2x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x8xf32> loc(""("linear"))
  %6 = tosa.clamp %5 {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32, qfx.origin = "torch.nn.functional.relu"} : (tensor<1x2x8xf32>) -> tensor<1x2x8xf32> loc(""("relu_1"))
  return %6 : tensor<1x2x8xf32>
}
