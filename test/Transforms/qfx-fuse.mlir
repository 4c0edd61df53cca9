// RUN: quant-opt %s --split-input-file --qfx-fuse --mlir-print-debuginfo \
// RUN:   --mlir-print-local-scope | FileCheck %s
// RUN: quant-opt %s --split-input-file --qfx-fuse="fold-batch-norm=false" \
// RUN:   | FileCheck %s --check-prefix=NOFOLD
// Fusing again changes nothing.
// RUN: quant-opt %s --split-input-file --qfx-fuse > %t.once.mlir
// RUN: quant-opt %t.once.mlir --split-input-file --qfx-fuse > %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir
// RUN: not quant-opt %s --qfx-fuse="backend=%t.missing.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ERROR

// ERROR: error: backend: {{.*}}missing.json: cannot read the backend config

// Without folding, batch norm stays: conv2d + clamp is no longer a chain, but
// the batch norm's add + clamp is an add_relu.
// NOFOLD-LABEL: func.func @conv_bn_relu
// NOFOLD: tosa.conv2d
// NOFOLD-NEXT: "tosa.const"
// NOFOLD-NEXT: "tosa.const"
// NOFOLD-NEXT: tosa.mul
// NOFOLD: qfx.fused "add_relu"
// NOFOLD: tosa.add
// NOFOLD-NEXT: tosa.clamp

// Batch norm (mul by scale s, add of shift t) folds into the conv:
// w' = w * s per output channel (OHWI axis 0), b' = b * s + t; then
// conv + clamp is one conv2d_relu region holding the conv's zero points,
// located at the conv, the batch norm it now computes, and the ReLU.
// CHECK-LABEL: func.func @conv_bn_relu
// CHECK-DAG: %[[W:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}2.000000e+00, 4.000000e+00]]], {{\[\[\[}}3.000000e+01, 4.000000e+01]]]]> : tensor<2x1x1x2xf32>}>
// CHECK-DAG: %[[B:.*]] = "tosa.const"() <{values = dense<[2.000000e+00, -1.000000e+01]> : tensor<2xf32>}>
// CHECK: %[[R:.*]] = qfx.fused "conv2d_relu"(%arg0, %[[W]], %[[B]]) : (tensor<1x3x3x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>) -> tensor<1x3x3x2xf32> {
// CHECK-NEXT: ^bb0(%[[X:arg[0-9]+]]: tensor<1x3x3x2xf32>{{.*}}, %[[KW:arg[0-9]+]]: tensor<2x1x1x2xf32>{{.*}}, %[[KB:arg[0-9]+]]: tensor<2xf32>
// CHECK-NEXT: %[[ZP:.*]] = "tosa.const"()
// CHECK-NEXT: %[[C:.*]] = tosa.conv2d %[[X]], %[[KW]], %[[KB]], %[[ZP]], %[[ZP]]
// CHECK-NEXT: %[[CL:.*]] = tosa.clamp %[[C]]
// CHECK-NEXT: qfx.yield %[[CL]]
// CHECK-NEXT: } loc(fused["conv", "bn", "relu"])
// CHECK-NOT: tosa.mul
// CHECK: return %[[R]]
func.func @conv_bn_relu(%x: tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32> loc("conv")
  %b = "tosa.const"() <{values = dense<[0.5, -1.0]> : tensor<2xf32>}> : () -> tensor<2xf32> loc("conv")
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32> loc("conv")
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, qfx.origin = "torch.nn.Conv2d"} : (tensor<1x3x3x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x2xf32> loc("conv")
  %s = "tosa.const"() <{values = dense<[[[[2.0, 10.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32> loc("bn")
  %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8> loc("bn")
  %m = tosa.mul %c, %s, %sh {qfx.origin = "torch.nn.BatchNorm2d"} : (tensor<1x3x3x2xf32>, tensor<1x1x1x2xf32>, tensor<1xi8>) -> tensor<1x3x3x2xf32> loc("bn")
  %t = "tosa.const"() <{values = dense<[[[[1.0, 0.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32> loc("bn")
  %a = tosa.add %m, %t {qfx.origin = "torch.nn.BatchNorm2d"} : (tensor<1x3x3x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x3x3x2xf32> loc("bn")
  %r = tosa.clamp %a {min_val = 0.0 : f32, max_val = 3.40282347e+38 : f32, qfx.origin = "torch.nn.ReLU"} : (tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> loc("relu")
  return %r : tensor<1x3x3x2xf32>
}

// -----

// Depthwise HWCM: output channel c * M + m, so scale [1, 2, 3, 4] multiplies
// the innermost two axes in order.
// CHECK-LABEL: func.func @depthwise_multiplier
// CHECK-DAG: %[[W:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}1.000000e+00, 4.000000e+00], [9.000000e+00, 1.600000e+01]]]]> : tensor<1x1x2x2xf32>}>
// CHECK-DAG: %[[B:.*]] = "tosa.const"() <{values = dense<1.000000e+00> : tensor<4xf32>}>
// CHECK: %[[D:.*]] = tosa.depthwise_conv2d %arg0, %[[W]], %[[B]]
// CHECK-NEXT: return %[[D]]
func.func @depthwise_multiplier(%x: tensor<1x3x3x2xf32>) -> tensor<1x3x3x4xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1.0, 2.0], [3.0, 4.0]]]]> : tensor<1x1x2x2xf32>}> : () -> tensor<1x1x2x2xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<4xf32>}> : () -> tensor<4xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.depthwise_conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x3x2xf32>, tensor<1x1x2x2xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x4xf32>
  %s = "tosa.const"() <{values = dense<[[[[1.0, 2.0, 3.0, 4.0]]]]> : tensor<1x1x1x4xf32>}> : () -> tensor<1x1x1x4xf32>
  %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = tosa.mul %c, %s, %sh : (tensor<1x3x3x4xf32>, tensor<1x1x1x4xf32>, tensor<1xi8>) -> tensor<1x3x3x4xf32>
  %t = "tosa.const"() <{values = dense<1.0> : tensor<1x1x1x4xf32>}> : () -> tensor<1x1x1x4xf32>
  %a = tosa.add %m, %t : (tensor<1x3x3x4xf32>, tensor<1x1x1x4xf32>) -> tensor<1x3x3x4xf32>
  return %a : tensor<1x3x3x4xf32>
}

// -----

// A matmul without bias gets the folded shift as its bias add, and the three
// ops become one linear_relu region (the bias is an operand, [1, 1, OUT]).
// CHECK-LABEL: func.func @matmul_bn
// CHECK-DAG: %[[W:.*]] = "tosa.const"() <{values = dense<{{\[\[\[}}2.000000e+00, 6.000000e+00], [6.000000e+00, 1.200000e+01]]]> : tensor<1x2x2xf32>}>
// CHECK-DAG: %[[B:.*]] = "tosa.const"() <{values = dense<{{\[\[\[}}5.000000e+00, 6.000000e+00]]]> : tensor<1x1x2xf32>}>
// CHECK: qfx.fused "linear_relu"(%arg0, %[[W]], %[[B]])
// CHECK: tosa.matmul
// CHECK-NEXT: tosa.add {{.*}}{qfx.origin = "torch.nn.Linear"}
// CHECK-NEXT: tosa.clamp
// CHECK: } loc(fused["fc", "bn", "relu"])
func.func @matmul_bn(%x: tensor<1x3x2xf32>) -> tensor<1x3x2xf32> {
  %w = "tosa.const"() <{values = dense<[[[1.0, 2.0], [3.0, 4.0]]]> : tensor<1x2x2xf32>}> : () -> tensor<1x2x2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %mm = tosa.matmul %x, %w, %zp, %zp {qfx.origin = "torch.nn.Linear"} : (tensor<1x3x2xf32>, tensor<1x2x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x2xf32> loc("fc")
  %s = "tosa.const"() <{values = dense<[[[2.0, 3.0]]]> : tensor<1x1x2xf32>}> : () -> tensor<1x1x2xf32>
  %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = tosa.mul %mm, %s, %sh : (tensor<1x3x2xf32>, tensor<1x1x2xf32>, tensor<1xi8>) -> tensor<1x3x2xf32> loc("bn")
  %t = "tosa.const"() <{values = dense<[[[5.0, 6.0]]]> : tensor<1x1x2xf32>}> : () -> tensor<1x1x2xf32>
  %a = tosa.add %m, %t : (tensor<1x3x2xf32>, tensor<1x1x2xf32>) -> tensor<1x3x2xf32> loc("bn")
  %r = tosa.clamp %a {min_val = 0.0 : f32, max_val = 3.40282347e+38 : f32} : (tensor<1x3x2xf32>) -> tensor<1x3x2xf32> loc("relu")
  return %r : tensor<1x3x2xf32>
}

// -----

// Not folded: the multiplier varies along more than the channel axis. Not
// fused: the conv's result is also returned, so conv + clamp is no pattern.
// CHECK-LABEL: func.func @no_fusion
// CHECK-NOT: qfx.fused
// CHECK: tosa.conv2d
// CHECK: tosa.mul
// CHECK: tosa.conv2d
// CHECK: tosa.clamp
// CHECK-NOT: qfx.fused
// CHECK: return
func.func @no_fusion(%x: tensor<1x3x3x2xf32>) -> (tensor<1x3x3x2xf32>, tensor<1x3x3x2xf32>) {
  %w = "tosa.const"() <{values = dense<1.0> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x3x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x2xf32>
  %s = "tosa.const"() <{values = dense<2.0> : tensor<1x3x3x2xf32>}> : () -> tensor<1x3x3x2xf32>
  %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = tosa.mul %c, %s, %sh : (tensor<1x3x3x2xf32>, tensor<1x3x3x2xf32>, tensor<1xi8>) -> tensor<1x3x3x2xf32>
  %c2 = tosa.conv2d %m, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x3x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x2xf32>
  %r = tosa.clamp %c2 {min_val = 0.0 : f32, max_val = 3.40282347e+38 : f32} : (tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
  return %r, %c2 : tensor<1x3x3x2xf32>, tensor<1x3x3x2xf32>
}

// -----

// Only a ReLU ends a fused pattern: clamp(0, 6) after a conv stays apart.
// CHECK-LABEL: func.func @relu6
// CHECK-NOT: qfx.fused
// CHECK: tosa.conv2d
// CHECK-NEXT: tosa.clamp
func.func @relu6(%x: tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  %w = "tosa.const"() <{values = dense<1.0> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x3x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x2xf32>
  %r = tosa.clamp %c {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
  return %r : tensor<1x3x3x2xf32>
}

// -----

// The exporter reshapes a Linear's result back before the ReLU; the clamp
// moves above the reshape so that Linear + ReLU fuse, as in PyTorch.
// CHECK-LABEL: func.func @linear_reshape_relu
// CHECK: %[[F:.*]] = qfx.fused "linear_relu"
// CHECK: tosa.clamp {{.*}} -> tensor<1x3x2xf32>
// CHECK: %[[R:.*]] = tosa.reshape %[[F]], %{{.*}} : (tensor<1x3x2xf32>, !tosa.shape<2>) -> tensor<3x2xf32>
// CHECK-NEXT: return %[[R]]
func.func @linear_reshape_relu(%x: tensor<1x3x2xf32>) -> tensor<3x2xf32> {
  %w = "tosa.const"() <{values = dense<1.0> : tensor<1x2x2xf32>}> : () -> tensor<1x2x2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %mm = tosa.matmul %x, %w, %zp, %zp : (tensor<1x3x2xf32>, tensor<1x2x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x2xf32>
  %bias = "tosa.const"() <{values = dense<0.5> : tensor<1x1x2xf32>}> : () -> tensor<1x1x2xf32>
  %a = tosa.add %mm, %bias : (tensor<1x3x2xf32>, tensor<1x1x2xf32>) -> tensor<1x3x2xf32>
  %s = tosa.const_shape {values = dense<[3, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %a, %s : (tensor<1x3x2xf32>, !tosa.shape<2>) -> tensor<3x2xf32>
  %c = tosa.clamp %r {min_val = 0.0 : f32, max_val = 3.40282347e+38 : f32} : (tensor<3x2xf32>) -> tensor<3x2xf32>
  return %c : tensor<3x2xf32>
}

// -----

// PyTorch's observer of the Linear's output, recorded on that reshape, stays
// with the Linear's values when the clamp moves above the reshape: on the
// op producing them, not on the reshape of the clamp's result.
// CHECK-LABEL: func.func @linear_reshape_clamp_keeps_torch_observer
// CHECK: tosa.add {{.*}}qfx.torch_observer = {name = "activation_post_process_3", type = "HistogramObserver"}
// CHECK: tosa.clamp
// CHECK-NOT: qfx.torch_observer
// CHECK: return
func.func @linear_reshape_clamp_keeps_torch_observer(%x: tensor<1x3x2xf32>) -> tensor<3x2xf32> {
  %w = "tosa.const"() <{values = dense<1.0> : tensor<1x2x2xf32>}> : () -> tensor<1x2x2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %mm = tosa.matmul %x, %w, %zp, %zp : (tensor<1x3x2xf32>, tensor<1x2x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x2xf32>
  %bias = "tosa.const"() <{values = dense<0.5> : tensor<1x1x2xf32>}> : () -> tensor<1x1x2xf32>
  %a = tosa.add %mm, %bias : (tensor<1x3x2xf32>, tensor<1x1x2xf32>) -> tensor<1x3x2xf32>
  %s = tosa.const_shape {values = dense<[3, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %a, %s {qfx.torch_observer = {name = "activation_post_process_3", type = "HistogramObserver"}} : (tensor<1x3x2xf32>, !tosa.shape<2>) -> tensor<3x2xf32>
  %c = tosa.clamp %r {min_val = -1.0 : f32, max_val = 1.0 : f32} : (tensor<3x2xf32>) -> tensor<3x2xf32>
  return %c : tensor<3x2xf32>
}

// -----

// A flatten of the model (a reshape with qfx.origin) between an add and a
// clamp is an op of PyTorch's graph: the clamp stays after it (PyTorch
// observes the flatten's output, and a clamp configured None reads it).
// CHECK-LABEL: func.func @model_flatten_keeps_its_clamp
// CHECK: %[[A:.*]] = tosa.add %arg0, %arg0
// CHECK: %[[R:.*]] = tosa.reshape %[[A]]
// CHECK: %[[C:.*]] = tosa.clamp %[[R]]
// CHECK-NEXT: return %[[C]]
func.func @model_flatten_keeps_its_clamp(%x: tensor<2x3x2xf32>) -> tensor<2x6xf32> {
  %a = tosa.add %x, %x {qfx.origin = "operator.add"} : (tensor<2x3x2xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  %s = tosa.const_shape {values = dense<[2, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %a, %s {qfx.origin = "torch.flatten"} : (tensor<2x3x2xf32>, !tosa.shape<2>) -> tensor<2x6xf32>
  %c = tosa.clamp %r {min_val = -1.0 : f32, max_val = 2.0 : f32, qfx.origin = "torch.clamp"} : (tensor<2x6xf32>) -> tensor<2x6xf32>
  return %c : tensor<2x6xf32>
}

// -----

// Batch norm in its sub/rsqrt form, (x - mean) * rsqrt(var + eps) * gamma +
// beta, with the parameters as constants: scale [1, 2], shift [-1, 3], so
// w' = [[1, 2]], [[6, 8]] and b' = b * scale + shift = [-0.5, 1]. The
// constants and the rsqrt are gone.
// CHECK-LABEL: func.func @conv_bn_rsqrt
// CHECK-NOT: tosa.rsqrt
// CHECK-DAG: %[[W:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00]]], {{\[\[\[}}6.000000e+00, 8.000000e+00]]]]> : tensor<2x1x1x2xf32>}>
// CHECK-DAG: %[[B:.*]] = "tosa.const"() <{values = dense<[-5.000000e-01, 1.000000e+00]> : tensor<2xf32>}>
// CHECK: %[[C:.*]] = tosa.conv2d %arg0, %[[W]], %[[B]]
// CHECK-NEXT: return %[[C]]
func.func @conv_bn_rsqrt(%x: tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<[0.5, -1.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x3x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x2xf32>
  %mean = "tosa.const"() <{values = dense<[[[[1.0, 0.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
  %var = "tosa.const"() <{values = dense<[[[[3.75, 0.125]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
  %eps = "tosa.const"() <{values = dense<[[[[0.25, 0.125]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
  %gamma = "tosa.const"() <{values = dense<[[[[2.0, 1.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
  %beta = "tosa.const"() <{values = dense<[[[[0.0, 3.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
  %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %ve = tosa.add %var, %eps : (tensor<1x1x1x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32>
  %inv = tosa.rsqrt %ve : (tensor<1x1x1x2xf32>) -> tensor<1x1x1x2xf32>
  %0 = tosa.sub %c, %mean : (tensor<1x3x3x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x3x3x2xf32>
  %1 = tosa.mul %0, %inv, %sh : (tensor<1x3x3x2xf32>, tensor<1x1x1x2xf32>, tensor<1xi8>) -> tensor<1x3x3x2xf32>
  %2 = tosa.mul %1, %gamma, %sh : (tensor<1x3x3x2xf32>, tensor<1x1x1x2xf32>, tensor<1xi8>) -> tensor<1x3x3x2xf32>
  %3 = tosa.add %2, %beta : (tensor<1x3x3x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x3x3x2xf32>
  return %3 : tensor<1x3x3x2xf32>
}

// -----

// A lone add of a per-channel constant, or a multiplication by a scalar,
// after a conv is an op of the model: not folded.
// CHECK-LABEL: func.func @not_batch_norm
// CHECK: tosa.conv2d
// CHECK-NEXT: "tosa.const"
// CHECK-NEXT: tosa.add
// CHECK: tosa.mul
func.func @not_batch_norm(%x: tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  %w = "tosa.const"() <{values = dense<1.0> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x3x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x2xf32>
  %t = "tosa.const"() <{values = dense<[[[[1.0, 2.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
  %a = tosa.add %c, %t : (tensor<1x3x3x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x3x3x2xf32>
  %c2 = tosa.conv2d %a, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x3x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x2xf32>
  %two = "tosa.const"() <{values = dense<2.0> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
  %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = tosa.mul %c2, %two, %sh : (tensor<1x3x3x2xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x3x3x2xf32>
  return %m : tensor<1x3x3x2xf32>
}

// -----

// The exporter's batch norm is a composite whose body scales and shifts each
// channel: after a conv it folds as the loose ops do (same w', b' as
// @conv_bn_relu) and disappears; with folding off it stays, and with the
// ReLU it is a bn_relu2d region, as PyTorch fuses BatchNorm2d + ReLU.
// CHECK-LABEL: func.func @conv_bn_composite_relu
// CHECK-DAG: %[[W:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}2.000000e+00, 4.000000e+00]]], {{\[\[\[}}3.000000e+01, 4.000000e+01]]]]> : tensor<2x1x1x2xf32>}>
// CHECK-DAG: %[[B:.*]] = "tosa.const"() <{values = dense<[2.000000e+00, -1.000000e+01]> : tensor<2xf32>}>
// CHECK: qfx.fused "conv2d_relu"(%arg0, %[[W]], %[[B]])
// CHECK-NOT: qfx.composite
// CHECK: return
// NOFOLD-LABEL: func.func @conv_bn_composite_relu
// NOFOLD: tosa.conv2d
// NOFOLD: qfx.fused "bn_relu2d"
// NOFOLD-NEXT: ^bb0
// NOFOLD-NEXT: qfx.composite "torch.nn.BatchNorm2d"
// NOFOLD: tosa.clamp
func.func @conv_bn_composite_relu(%x: tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<[0.5, -1.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, qfx.origin = "torch.nn.Conv2d"} : (tensor<1x3x3x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x2xf32>
  %bn = qfx.composite "torch.nn.BatchNorm2d" (%c) attributes {composite_attributes = {axis = 3 : i64, eps = 0.0 : f32, running_mean = dense<0.0> : tensor<2xf32>, running_var = dense<1.0> : tensor<2xf32>}, qfx.origin = "torch.nn.BatchNorm2d"} : (tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  ^bb0(%a: tensor<1x3x3x2xf32>):
    %s = "tosa.const"() <{values = dense<[[[[2.0, 10.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
    %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %m = tosa.mul %a, %s, %sh : (tensor<1x3x3x2xf32>, tensor<1x1x1x2xf32>, tensor<1xi8>) -> tensor<1x3x3x2xf32>
    %t = "tosa.const"() <{values = dense<[[[[1.0, 0.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
    %y = tosa.add %m, %t : (tensor<1x3x3x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x3x3x2xf32>
    qfx.yield %y : tensor<1x3x3x2xf32>
  }
  %r = tosa.clamp %bn {min_val = 0.0 : f32, max_val = 3.40282347e+38 : f32, qfx.origin = "torch.nn.ReLU"} : (tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
  return %r : tensor<1x3x3x2xf32>
}

// -----

// After a transposed conv the batch norm stays for the ReLU: PyTorch 1.13
// has no transposed conv + batch norm + ReLU pattern, and its batch norm +
// ReLU match wins (bn_relu2d). Without the ReLU it folds.
// CHECK-LABEL: func.func @transpose_conv_bn_relu
// CHECK: tosa.transpose_conv2d
// CHECK: qfx.fused "bn_relu2d"
// CHECK-NEXT: ^bb0
// CHECK-NEXT: qfx.composite "torch.nn.BatchNorm2d"
func.func @transpose_conv_bn_relu(%x: tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<[0.5, -1.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.transpose_conv2d %x, %w, %b, %zp, %zp {acc_type = f32, out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, qfx.origin = "torch.nn.ConvTranspose2d"} : (tensor<1x3x3x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x2xf32>
  %bn = qfx.composite "torch.nn.BatchNorm2d" (%c) attributes {composite_attributes = {axis = 3 : i64, eps = 0.0 : f32, running_mean = dense<0.0> : tensor<2xf32>, running_var = dense<1.0> : tensor<2xf32>}, qfx.origin = "torch.nn.BatchNorm2d"} : (tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  ^bb0(%a: tensor<1x3x3x2xf32>):
    %s = "tosa.const"() <{values = dense<[[[[2.0, 10.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
    %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %m = tosa.mul %a, %s, %sh : (tensor<1x3x3x2xf32>, tensor<1x1x1x2xf32>, tensor<1xi8>) -> tensor<1x3x3x2xf32>
    qfx.yield %m : tensor<1x3x3x2xf32>
  }
  %r = tosa.clamp %bn {min_val = 0.0 : f32, max_val = 3.40282347e+38 : f32, qfx.origin = "torch.nn.ReLU"} : (tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
  return %r : tensor<1x3x3x2xf32>
}

// -----

// PyTorch's fuser folds one batch norm into a conv; a second one is its
// prepare's conv + batch norm pattern: the folded conv and that batch norm
// in one conv2d_bn region (the first batch norm's w', b' as in
// @conv_bn_composite_relu). Without folding, the conv and the first batch
// norm are that pattern and the second stays alone.
// CHECK-LABEL: func.func @conv_bn_bn
// CHECK-DAG: %[[W:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}2.000000e+00, 4.000000e+00]]], {{\[\[\[}}3.000000e+01, 4.000000e+01]]]]> : tensor<2x1x1x2xf32>}>
// CHECK-DAG: %[[B:.*]] = "tosa.const"() <{values = dense<[2.000000e+00, -1.000000e+01]> : tensor<2xf32>}>
// CHECK: %[[F:.*]] = qfx.fused "conv2d_bn"(%arg0, %[[W]], %[[B]])
// CHECK: tosa.conv2d
// CHECK: qfx.composite "torch.nn.BatchNorm2d"
// CHECK: return %[[F]]
// NOFOLD-LABEL: func.func @conv_bn_bn
// NOFOLD: %[[F:.*]] = qfx.fused "conv2d_bn"
// NOFOLD: %[[BN:.*]] = qfx.composite "torch.nn.BatchNorm2d"(%[[F]])
// NOFOLD: return %[[BN]]
func.func @conv_bn_bn(%x: tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<[0.5, -1.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, qfx.origin = "torch.nn.Conv2d"} : (tensor<1x3x3x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x2xf32>
  %bn = qfx.composite "torch.nn.BatchNorm2d" (%c) attributes {composite_attributes = {axis = 3 : i64, eps = 0.0 : f32, running_mean = dense<0.0> : tensor<2xf32>, running_var = dense<1.0> : tensor<2xf32>}, qfx.origin = "torch.nn.BatchNorm2d"} : (tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  ^bb0(%a: tensor<1x3x3x2xf32>):
    %s = "tosa.const"() <{values = dense<[[[[2.0, 10.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
    %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %m = tosa.mul %a, %s, %sh : (tensor<1x3x3x2xf32>, tensor<1x1x1x2xf32>, tensor<1xi8>) -> tensor<1x3x3x2xf32>
    %t = "tosa.const"() <{values = dense<[[[[1.0, 0.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
    %y = tosa.add %m, %t : (tensor<1x3x3x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x3x3x2xf32>
    qfx.yield %y : tensor<1x3x3x2xf32>
  }
  %bn2 = qfx.composite "torch.nn.BatchNorm2d" (%bn) attributes {composite_attributes = {axis = 3 : i64, eps = 0.0 : f32, running_mean = dense<0.0> : tensor<2xf32>, running_var = dense<1.0> : tensor<2xf32>}, qfx.origin = "torch.nn.BatchNorm2d"} : (tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  ^bb0(%a: tensor<1x3x3x2xf32>):
    %s = "tosa.const"() <{values = dense<[[[[3.0, 3.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
    %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %m = tosa.mul %a, %s, %sh : (tensor<1x3x3x2xf32>, tensor<1x1x1x2xf32>, tensor<1xi8>) -> tensor<1x3x3x2xf32>
    qfx.yield %m : tensor<1x3x3x2xf32>
  }
  return %bn2 : tensor<1x3x3x2xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_conv_bn
// CHECK: tosa.transpose_conv2d
// CHECK-NOT: qfx.composite
// CHECK: return
func.func @transpose_conv_bn(%x: tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<[0.5, -1.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.transpose_conv2d %x, %w, %b, %zp, %zp {acc_type = f32, out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, qfx.origin = "torch.nn.ConvTranspose2d"} : (tensor<1x3x3x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x2xf32>
  %bn = qfx.composite "torch.nn.BatchNorm2d" (%c) attributes {composite_attributes = {axis = 3 : i64, eps = 0.0 : f32, running_mean = dense<0.0> : tensor<2xf32>, running_var = dense<1.0> : tensor<2xf32>}, qfx.origin = "torch.nn.BatchNorm2d"} : (tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  ^bb0(%a: tensor<1x3x3x2xf32>):
    %s = "tosa.const"() <{values = dense<[[[[2.0, 10.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
    %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %m = tosa.mul %a, %s, %sh : (tensor<1x3x3x2xf32>, tensor<1x1x1x2xf32>, tensor<1xi8>) -> tensor<1x3x3x2xf32>
    qfx.yield %m : tensor<1x3x3x2xf32>
  }
  return %bn : tensor<1x3x3x2xf32>
}

// -----

// A 3-D transposed conv is a composite that names its weight and bias
// (QuantizableOpInterface): the batch norm folds into them per output
// channel (the weight's axis 0).
// CHECK-LABEL: func.func @transpose_conv3d_bn
// CHECK: %[[W:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[\[}}2.000000e+00]]]], {{\[\[\[\[}}2.000000e+01]]]]]> : tensor<2x1x1x1x1xf32>}>
// CHECK: %[[B:.*]] = "tosa.const"() <{values = dense<[1.000000e+00, -1.000000e+01]> : tensor<2xf32>}>
// CHECK: qfx.composite "torch.nn.ConvTranspose3d"(%{{.*}}, %[[W]], %[[B]])
// CHECK-NOT: BatchNorm3d
func.func @transpose_conv3d_bn(%x: tensor<1x1x1x1x1xf32>) -> tensor<1x1x1x1x2xf32> {
  %w = "tosa.const"() <{values = dense<[[[[[1.0]]]], [[[[2.0]]]]]> : tensor<2x1x1x1x1xf32>}> : () -> tensor<2x1x1x1x1xf32>
  %b = "tosa.const"() <{values = dense<[0.5, -1.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %c = qfx.composite "torch.nn.ConvTranspose3d" (%x, %w, %b) attributes {qfx.origin = "torch.nn.ConvTranspose3d"} : (tensor<1x1x1x1x1xf32>, tensor<2x1x1x1x1xf32>, tensor<2xf32>) -> tensor<1x1x1x1x2xf32> {
  ^bb0(%in: tensor<1x1x1x1x1xf32>, %kernel: tensor<2x1x1x1x1xf32>, %bias: tensor<2xf32>):
    %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %r = tosa.conv3d %in, %kernel, %bias, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1, 1>, pad = array<i64: 0, 0, 0, 0, 0, 0>, stride = array<i64: 1, 1, 1>} : (tensor<1x1x1x1x1xf32>, tensor<2x1x1x1x1xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x1x2xf32>
    qfx.yield %r : tensor<1x1x1x1x2xf32>
  }
  %bn = qfx.composite "torch.nn.BatchNorm3d" (%c) attributes {composite_attributes = {axis = 4 : i64, eps = 0.0 : f32, running_mean = dense<0.0> : tensor<2xf32>, running_var = dense<1.0> : tensor<2xf32>}, qfx.origin = "torch.nn.BatchNorm3d"} : (tensor<1x1x1x1x2xf32>) -> tensor<1x1x1x1x2xf32> {
  ^bb0(%a: tensor<1x1x1x1x2xf32>):
    %s = "tosa.const"() <{values = dense<[[[[[2.0, 10.0]]]]]> : tensor<1x1x1x1x2xf32>}> : () -> tensor<1x1x1x1x2xf32>
    %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %m = tosa.mul %a, %s, %sh : (tensor<1x1x1x1x2xf32>, tensor<1x1x1x1x2xf32>, tensor<1xi8>) -> tensor<1x1x1x1x2xf32>
    qfx.yield %m : tensor<1x1x1x1x2xf32>
  }
  return %bn : tensor<1x1x1x1x2xf32>
}

// -----

// After a concat (DenseNet) the batch norm does not fold: with its ReLU it
// is a bn_relu2d region.
// CHECK-LABEL: func.func @concat_bn_composite_relu
// CHECK: tosa.concat
// CHECK: qfx.fused "bn_relu2d"
// CHECK-NEXT: ^bb0
// CHECK-NEXT: qfx.composite "torch.nn.BatchNorm2d"
// CHECK: tosa.clamp
func.func @concat_bn_composite_relu(%x: tensor<1x3x3x1xf32>, %y: tensor<1x3x3x1xf32>) -> tensor<1x3x3x2xf32> {
  %c = tosa.concat %x, %y {axis = 3 : i32} : (tensor<1x3x3x1xf32>, tensor<1x3x3x1xf32>) -> tensor<1x3x3x2xf32>
  %bn = qfx.composite "torch.nn.BatchNorm2d" (%c) attributes {composite_attributes = {axis = 3 : i64, eps = 0.0 : f32, running_mean = dense<0.0> : tensor<2xf32>, running_var = dense<1.0> : tensor<2xf32>}} : (tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  ^bb0(%a: tensor<1x3x3x2xf32>):
    %s = "tosa.const"() <{values = dense<[[[[2.0, 10.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
    %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %m = tosa.mul %a, %s, %sh : (tensor<1x3x3x2xf32>, tensor<1x1x1x2xf32>, tensor<1xi8>) -> tensor<1x3x3x2xf32>
    qfx.yield %m : tensor<1x3x3x2xf32>
  }
  %r = tosa.clamp %bn {min_val = 0.0 : f32, max_val = 3.40282347e+38 : f32} : (tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
  return %r : tensor<1x3x3x2xf32>
}

// -----

// A Linear on a rank-2 input is reshaped back before its BatchNorm1d: the
// batch norm folds through the reshape (the channels stay last), and a
// matmul without bias gets the folded shift as its bias add, before the
// reshape (weights as in @matmul_bn).
// CHECK-LABEL: func.func @matmul_reshape_bn
// CHECK-DAG: %[[W:.*]] = "tosa.const"() <{values = dense<{{\[\[\[}}2.000000e+00, 6.000000e+00], [6.000000e+00, 1.200000e+01]]]> : tensor<1x2x2xf32>}>
// CHECK-DAG: %[[B:.*]] = "tosa.const"() <{values = dense<{{\[\[\[}}5.000000e+00, 6.000000e+00]]]> : tensor<1x1x2xf32>}>
// CHECK: %[[F:.*]] = qfx.fused "linear"(%arg0, %[[W]], %[[B]])
// CHECK: %[[R:.*]] = tosa.reshape %[[F]], %{{.*}} -> tensor<3x2xf32>
// CHECK-NOT: qfx.composite
// CHECK: return %[[R]]
func.func @matmul_reshape_bn(%x: tensor<1x3x2xf32>) -> tensor<3x2xf32> {
  %w = "tosa.const"() <{values = dense<[[[1.0, 2.0], [3.0, 4.0]]]> : tensor<1x2x2xf32>}> : () -> tensor<1x2x2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %mm = tosa.matmul %x, %w, %zp, %zp {qfx.origin = "torch.nn.Linear"} : (tensor<1x3x2xf32>, tensor<1x2x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x2xf32>
  %s = tosa.const_shape {values = dense<[3, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %mm, %s : (tensor<1x3x2xf32>, !tosa.shape<2>) -> tensor<3x2xf32>
  %bn = qfx.composite "torch.nn.BatchNorm1d" (%r) attributes {composite_attributes = {axis = 1 : i64, eps = 0.0 : f32, running_mean = dense<0.0> : tensor<2xf32>, running_var = dense<1.0> : tensor<2xf32>}} : (tensor<3x2xf32>) -> tensor<3x2xf32> {
  ^bb0(%a: tensor<3x2xf32>):
    %k = "tosa.const"() <{values = dense<[[2.0, 3.0]]> : tensor<1x2xf32>}> : () -> tensor<1x2xf32>
    %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %m = tosa.mul %a, %k, %sh : (tensor<3x2xf32>, tensor<1x2xf32>, tensor<1xi8>) -> tensor<3x2xf32>
    %t = "tosa.const"() <{values = dense<[[5.0, 6.0]]> : tensor<1x2xf32>}> : () -> tensor<1x2xf32>
    %y = tosa.add %m, %t : (tensor<3x2xf32>, tensor<1x2xf32>) -> tensor<3x2xf32>
    qfx.yield %y : tensor<3x2xf32>
  }
  return %bn : tensor<3x2xf32>
}

// -----

// A Conv1d is a conv2d over [N, 1, L, C] reshaped back to [N, L, C]; its
// ReLU moves above that reshape so that conv2d + clamp is one region.
// CHECK-LABEL: func.func @conv1d_reshape_relu
// CHECK: %[[F:.*]] = qfx.fused "conv2d_relu"
// CHECK: tosa.clamp {{.*}} -> tensor<1x1x3x2xf32>
// CHECK: %[[R:.*]] = tosa.reshape %[[F]], %{{.*}} -> tensor<1x3x2xf32>
// CHECK-NEXT: return %[[R]]
func.func @conv1d_reshape_relu(%x: tensor<1x1x3x2xf32>) -> tensor<1x3x2xf32> {
  %w = "tosa.const"() <{values = dense<1.0> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<0.5> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, qfx.origin = "torch.nn.Conv1d"} : (tensor<1x1x3x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x3x2xf32>
  %s = tosa.const_shape {values = dense<[1, 3, 2]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %r = tosa.reshape %c, %s : (tensor<1x1x3x2xf32>, !tosa.shape<3>) -> tensor<1x3x2xf32>
  %relu = tosa.clamp %r {min_val = 0.0 : f32, max_val = 3.40282347e+38 : f32, qfx.origin = "torch.nn.ReLU"} : (tensor<1x3x2xf32>) -> tensor<1x3x2xf32>
  return %relu : tensor<1x3x2xf32>
}

// -----

// The same for every contraction QuantizableOpInterface names (here a
// ConvTranspose1d: a transpose_conv2d and its reshape). PyTorch 1.13 fuses
// no ReLU with a transposed convolution: the clamp moves, nothing fuses.
// CHECK-LABEL: func.func @conv_transpose1d_reshape_relu
// CHECK: %[[C:.*]] = tosa.transpose_conv2d
// CHECK: %[[F:.*]] = tosa.clamp %[[C]] {{.*}} -> tensor<1x1x3x2xf32>
// CHECK: %[[R:.*]] = tosa.reshape %[[F]], %{{.*}} -> tensor<1x3x2xf32>
// CHECK-NEXT: return %[[R]]
func.func @conv_transpose1d_reshape_relu(%x: tensor<1x1x3x2xf32>) -> tensor<1x3x2xf32> {
  %w = "tosa.const"() <{values = dense<1.0> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<0.5> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.transpose_conv2d %x, %w, %b, %zp, %zp {acc_type = f32, out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, qfx.origin = "torch.nn.ConvTranspose1d"} : (tensor<1x1x3x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x3x2xf32>
  %s = tosa.const_shape {values = dense<[1, 3, 2]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %r = tosa.reshape %c, %s : (tensor<1x1x3x2xf32>, !tosa.shape<3>) -> tensor<1x3x2xf32>
  %relu = tosa.clamp %r {min_val = 0.0 : f32, max_val = 3.40282347e+38 : f32, qfx.origin = "torch.nn.ReLU"} : (tensor<1x3x2xf32>) -> tensor<1x3x2xf32>
  return %relu : tensor<1x3x2xf32>
}
