// RUN: quant-opt %s --qfx-module-names-from-locations --split-input-file \
// RUN:   --qfx-annotate-qconfig="qconfig-mapping=%S/Inputs/priority-mapping.json backend=x86" \
// RUN:   2>/dev/null | FileCheck %s
// RUN: quant-opt %s --qfx-module-names-from-locations --split-input-file \
// RUN:   --qfx-annotate-qconfig="qconfig-mapping=%S/Inputs/priority-mapping.json backend=x86" \
// RUN:   --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=REMARK --implicit-check-not=remark
// RUN: quant-opt %s --qfx-module-names-from-locations --split-input-file \
// RUN:   --qfx-annotate-qconfig="qconfig-mapping=%S/Inputs/regex-order-mapping.json backend=x86" \
// RUN:   2>/dev/null | FileCheck %s --check-prefix=REGEX

// Inputs/priority-mapping.json gives each key its own QConfig, told apart by
// the activation's quant_max: global 101; object_type tosa.clamp 102,
// torch.nn.ReLU6 103, tosa.tanh null; module_name_regex "features\.[0-9]"
// 104, then "features" 105; module_name features.3 106, head null;
// module_name_object_type_order (features.3, tosa.clamp, 1) 107,
// (features.3, torch.add, 0) 108, ("", torch.nn.Sigmoid, 1) 109.

// CHECK-LABEL: func.func @priority
// REGEX-LABEL: func.func @priority
func.func @priority(%x: tensor<4xf32>) -> tensor<4xf32> {
  // Global.
  // CHECK: tosa.sigmoid {{.*}}qfx.pattern = ["tosa.sigmoid"], qfx.qconfig = #qfx.qconfig<activation = #qfx.observer<minmax, quant_min = 0, quant_max = 101>, weight = #qfx.observer<minmax, dtype = qint8, qscheme = per_tensor_symmetric>>
  %0 = tosa.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32> loc("stem")
  // object_type by op name beats global.
  // CHECK: tosa.clamp {{.*}}quant_max = 102>
  %1 = tosa.clamp %0 {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<4xf32>) -> tensor<4xf32> loc("stem.act")
  // The origin comes after the op name in the chain: it wins.
  // CHECK: tosa.clamp {{.*}}quant_max = 103>
  %2 = tosa.clamp %1 {min_val = 0.0 : f32, max_val = 6.0 : f32, qfx.origin = "torch.nn.ReLU6"} : (tensor<4xf32>) -> tensor<4xf32> loc("stem.act6")
  // module_name_regex beats object_type; the first registered regex wins.
  // CHECK: tosa.clamp {{.*}}quant_max = 104>
  // REGEX: tosa.clamp {{.*}}quant_max = 105>
  %3 = tosa.clamp %2 {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<4xf32>) -> tensor<4xf32> loc("features.0")
  // "featuresX" only matches the second regex.
  // CHECK: tosa.sigmoid {{.*}}quant_max = 105>
  %4 = tosa.sigmoid %3 : (tensor<4xf32>) -> tensor<4xf32> loc("featuresX")
  // module_name of the parent beats regex and object_type.
  // CHECK: tosa.clamp {{.*}}quant_max = 106>
  %5 = tosa.clamp %4 {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<4xf32>) -> tensor<4xf32> loc("features.3.act")
  // module_name_object_type_order: the second clamp call site in features.3.
  // CHECK: tosa.clamp {{.*}}quant_max = 107>
  %6 = tosa.clamp %5 {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<4xf32>) -> tensor<4xf32> loc("features.3.act2")
  // Several ops of one module call are one call site: still index 1.
  // CHECK: tosa.clamp {{.*}}quant_max = 107>
  %7 = tosa.clamp %6 {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<4xf32>) -> tensor<4xf32> loc("features.3.act2")
  // A functional call is counted in its own module, by FX node.
  // CHECK: tosa.add {{.*}}quant_max = 108>
  %8 = tosa.add %7, %7 {qfx.origin = "torch.add"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("features.3"("add"))
  // CHECK: tosa.add {{.*}}quant_max = 106>
  %9 = tosa.add %8, %8 {qfx.origin = "torch.add"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("features.3"("add_1"))
  // Module calls at the top level are counted in "": the second Sigmoid.
  // CHECK: tosa.sigmoid {{.*}}quant_max = 101>
  %10 = tosa.sigmoid %9 {qfx.origin = "torch.nn.Sigmoid"} : (tensor<4xf32>) -> tensor<4xf32> loc("sig0")
  // CHECK: tosa.sigmoid {{.*}}quant_max = 109>
  %11 = tosa.sigmoid %10 {qfx.origin = "torch.nn.Sigmoid"} : (tensor<4xf32>) -> tensor<4xf32> loc("sig1")
  // The module name is the first NameLoc of a fused location.
  // CHECK: tosa.clamp {{.*}}quant_max = 104>
  %12 = tosa.clamp %11 {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<4xf32>) -> tensor<4xf32> loc(fused["model.py":3:4, "features.1", "stem"])
  // A null module_name on the parent.
  // CHECK: tosa.clamp {{.*}}qfx.qconfig = "none"
  // REMARK: remark: loc("head.act"): not quantized: its QConfig is null (module 'head.act', object types tosa.clamp #0 in 'head')
  %13 = tosa.clamp %12 {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<4xf32>) -> tensor<4xf32> loc("head.act")
  // A null object_type.
  // CHECK: tosa.tanh {{.*}}qfx.qconfig = "none"
  // REMARK: remark: loc("stem.t"): not quantized: its QConfig is null (module 'stem.t', object types tosa.tanh #0 in 'stem')
  %14 = tosa.tanh %13 : (tensor<4xf32>) -> tensor<4xf32> loc("stem.t")
  // No pattern: the QConfig is attached, no pattern.
  // CHECK: tosa.exp
  // CHECK-NOT: qfx.pattern
  // CHECK-SAME: quant_max = 101>
  // REMARK: remark: loc("stem.e"): not quantized: no pattern of backend 'x86' matches tosa.exp
  %15 = tosa.exp %14 : (tensor<4xf32>) -> tensor<4xf32> loc("stem.e")
  return %15 : tensor<4xf32>
}

// -----

// Every op of this function is quantized: no remark.

// Patterns: longest first, from the end; an intermediate result used twice
// ends the pattern.

// CHECK-LABEL: func.func @patterns
func.func @patterns(%x: tensor<1x4x4x2xf32>) -> (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) {
  %w = "tosa.const"() <{values = dense<0.5> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // CHECK: tosa.conv2d {{.*}}qfx.pattern = ["tosa.conv2d", "tosa.clamp"]
  // CHECK: tosa.clamp {{.*}}qfx.pattern = ["tosa.conv2d", "tosa.clamp"]
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32> loc("conv")
  %r = tosa.clamp %c {min_val = 0.0 : f32, max_val = 3.40282347e+38 : f32} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> loc("relu")
  // %c2 is used twice: conv2d alone, clamp alone.
  // CHECK: tosa.conv2d {{.*}}qfx.pattern = ["tosa.conv2d"]
  // CHECK: tosa.clamp {{.*}}qfx.pattern = ["tosa.clamp"]
  %c2 = tosa.conv2d %r, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32> loc("conv2")
  %r2 = tosa.clamp %c2 {min_val = 0.0 : f32, max_val = 3.40282347e+38 : f32} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> loc("relu2")
  // CHECK: tosa.add {{.*}}qfx.pattern = ["tosa.add", "tosa.clamp"]
  // CHECK: tosa.clamp {{.*}}qfx.pattern = ["tosa.add", "tosa.clamp"]
  %a = tosa.add %r2, %c2 : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> loc(""("add"))
  %r3 = tosa.clamp %a {min_val = 0.0 : f32, max_val = 3.40282347e+38 : f32} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> loc(""("relu_1"))
  // Constants are left alone.
  // CHECK-NOT: "tosa.const"() {{.*}}qfx.qconfig
  return %r3, %c2 : tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>
}

// -----

// A qfx.fused op is annotated as one op with its pattern and the QConfig of
// the pattern's root op (the conv, in features.0: 104); the ops of its body
// get their own QConfig (the clamp, in features.act: 105), without remarks.
// CHECK-LABEL: func.func @fused
// CHECK: qfx.fused "conv2d_relu"({{.*}}) attributes {qfx.pattern = ["tosa.conv2d", "tosa.clamp"], qfx.qconfig = #qfx.qconfig<activation = #qfx.observer<minmax, quant_min = 0, quant_max = 104>
// CHECK: tosa.conv2d {{.*}}qfx.qconfig = #qfx.qconfig<activation = #qfx.observer<minmax, quant_min = 0, quant_max = 104>
// CHECK: tosa.clamp {{.*}}qfx.qconfig = #qfx.qconfig<activation = #qfx.observer<minmax, quant_min = 0, quant_max = 105>
func.func @fused(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w = "tosa.const"() <{values = dense<0.5> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<0.1> : tensor<2xf32>}> : () -> tensor<2xf32>
  %r = qfx.fused "conv2d_relu" (%x, %w, %b) : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32> {
  ^bb0(%a: tensor<1x4x4x2xf32>, %k: tensor<2x1x1x2xf32>, %c: tensor<2xf32>):
    %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %0 = tosa.conv2d %a, %k, %c, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32> loc("features.0")
    %1 = tosa.clamp %0 {min_val = 0.0 : f32, max_val = 3.40282347e+38 : f32} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> loc("features.act")
    qfx.yield %1 : tensor<1x4x4x2xf32>
  } loc(fused["features.0", "features.act"])
  return %r : tensor<1x4x4x2xf32>
}

// -----

// A pattern whose last op is configured None (the clamp, in head.act) is not
// quantized, inputs included: PyTorch checks the pattern's output dtype (its
// last node's: float) against the backend's before it observes anything.
// CHECK-LABEL: func.func @fused_last_null
// CHECK: qfx.fused "conv2d_relu"({{.*}}) attributes {qfx.pattern = ["tosa.conv2d", "tosa.clamp"], qfx.qconfig = #qfx.qconfig<activation = #qfx.observer<minmax, quant_min = 0, quant_max = 104>
// CHECK: tosa.clamp {{.*}}qfx.qconfig = "none"
func.func @fused_last_null(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w = "tosa.const"() <{values = dense<0.5> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<0.1> : tensor<2xf32>}> : () -> tensor<2xf32>
  // REMARK: remark: loc(fused["features.0", "head.act"]): not quantized: the QConfig of its pattern's last op is null (module 'head.act', object types tosa.clamp #0 in 'head')
  %r = qfx.fused "conv2d_relu" (%x, %w, %b) : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32> {
  ^bb0(%a: tensor<1x4x4x2xf32>, %k: tensor<2x1x1x2xf32>, %c: tensor<2xf32>):
    %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %0 = tosa.conv2d %a, %k, %c, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32> loc("features.0")
    %1 = tosa.clamp %0 {min_val = 0.0 : f32, max_val = 3.40282347e+38 : f32} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> loc("head.act")
    qfx.yield %1 : tensor<1x4x4x2xf32>
  } loc(fused["features.0", "head.act"])
  return %r : tensor<1x4x4x2xf32>
}

// -----

// With an origin, a backend pattern matches only if PyTorch has the pattern
// (the table's torch -> TOSA correspondence): torch.flatten shares its
// input's observer, the nn.Flatten module is no pattern; an add that is part
// of a Hardswish is no add pattern. Without origin, the op name decides.
// CHECK-LABEL: func.func @origins
// CHECK: tosa.reshape {{.*}}qfx.origin = "torch.flatten", qfx.pattern = ["tosa.reshape"]
// CHECK: tosa.reshape
// CHECK-NOT: qfx.pattern
// CHECK-SAME: qfx.origin = "torch.nn.Flatten"
// CHECK: tosa.add
// CHECK-NOT: qfx.pattern
// CHECK-SAME: qfx.origin = "torch.nn.Hardswish"
// CHECK: tosa.add {{.*}}qfx.pattern = ["tosa.add"]
// REMARK: remark: loc("flat"): not quantized: no pattern of backend 'x86' matches tosa.reshape (torch.nn.Flatten)
// REMARK: remark: loc("hs"): not quantized: no pattern of backend 'x86' matches tosa.add (torch.nn.Hardswish)
func.func @origins(%x: tensor<2x4xf32>) -> tensor<8xf32> {
  %s = tosa.const_shape {values = dense<[8]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %0 = tosa.reshape %x, %s {qfx.origin = "torch.flatten"} : (tensor<2x4xf32>, !tosa.shape<1>) -> tensor<8xf32> loc(""("flatten"))
  %1 = tosa.reshape %x, %s {qfx.origin = "torch.nn.Flatten"} : (tensor<2x4xf32>, !tosa.shape<1>) -> tensor<8xf32> loc("flat")
  %2 = tosa.add %0, %1 {qfx.origin = "torch.nn.Hardswish"} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> loc("hs")
  %3 = tosa.add %2, %2 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> loc(""("add"))
  return %3 : tensor<8xf32>
}

// -----

// An op the exporter writes as a part of a PyTorch op (the concats joining an
// adaptive pool's uneven windows) takes that op's QConfig by its
// qfx.part_of, and matches backend patterns as the TOSA op it is.
// CHECK-LABEL: func.func @part_of
// CHECK: tosa.concat {{.*}}qfx.part_of = "torch.nn.ReLU6", qfx.pattern = ["tosa.concat"], qfx.qconfig = #qfx.qconfig<activation = #qfx.observer<minmax, quant_min = 0, quant_max = 103>
// CHECK: tosa.concat {{.*}}qfx.pattern = ["tosa.concat"], qfx.qconfig = #qfx.qconfig<activation = #qfx.observer<minmax, quant_min = 0, quant_max = 101>
func.func @part_of(%x: tensor<4xf32>) -> tensor<16xf32> {
  %0 = tosa.concat %x, %x {axis = 0 : i32, qfx.part_of = "torch.nn.ReLU6"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32> loc("pool")
  %1 = tosa.concat %0, %0 {axis = 0 : i32} : (tensor<8xf32>, tensor<8xf32>) -> tensor<16xf32> loc("pool2")
  return %1 : tensor<16xf32>
}
