// A backend table whose rows for avg_pool2d, clamp and AvgPool3d observe
// their output apart from their input (PyTorch's tables share the input's
// observer, and their kernels keep the input's qparams: qfx-lower.mlir
// @kernel_qparams): the pattern requantizes into the observer's qparams.
// RUN: quant-opt %s --qfx-lower=backend=%S/Inputs/own-observer-backend.json --split-input-file --verify-diagnostics | FileCheck %s
// RUN: quant-opt %s --qfx-lower="backend=%S/Inputs/own-observer-backend.json emit-tosa=true" --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=TOSA

!t = !quant.uniform<i8:f32, 0.5:3>
!t2 = !quant.uniform<i8:f32, 0.25:3>

// A 2x2 average into another scale: the window sums (a depthwise
// contraction of ones) requantized by 0.5 / (4 * 0.25).
// CHECK-LABEL: func.func @avg_pool
// CHECK: qfx.contract depthwise_conv2d {{.*}}epilogue = #qfx.rescale<fraction_bits = 0, bias = [], multipliers = [1073741824], shifts = [31], output_zp = 3, min = -128, max = 127>{{.*}} -> tensor<1x2x2x2xi8>
// TOSA-LABEL: func.func @avg_pool
// TOSA: %[[SUM:.*]] = tosa.depthwise_conv2d
// TOSA: %[[M:.*]] = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}>
// TOSA: %[[SH:.*]] = "tosa.const"() <{values = dense<31> : tensor<1xi8>}>
// TOSA: tosa.rescale %[[SUM]], %[[M]], %[[SH]]
func.func @avg_pool(%arg0: tensor<1x4x4x2x!t>) -> tensor<1x2x2x2x!t2> {
  %x = quant.dcast %arg0 : tensor<1x4x4x2x!t> to tensor<1x4x4x2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %a = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x4x4x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x2xf32>
  %q = quant.qcast %a : tensor<1x2x2x2xf32> to tensor<1x2x2x2x!t2>
  return %q : tensor<1x2x2x2x!t2>
}

// -----

!in = !quant.uniform<i8:f32, 0.05:-10>
!out = !quant.uniform<i8:f32, 0.025:-128>

// A ReLU6 with its own qparams: its table, 2q - 108 clamped to
// [-128, 112] (6.0 is 240 steps above the output zero point), is a line, so
// it is integer arithmetic that vectorizes, not a tosa.table:
// clamp((q * (2^21 - 1) + B) >> 20, -128, 112) with B just above -108 * 2^20.
// TOSA-LABEL: func.func @relu6_line
// TOSA-NOT: tosa.table
// TOSA: %[[WIDE:.*]] = tosa.cast %{{.*}} : (tensor<4xi8>) -> tensor<4xi32>
// TOSA: %[[M:.*]] = "tosa.const"() <{values = dense<2097151> : tensor<1xi32>}>
// TOSA: %[[MUL:.*]] = tosa.mul %[[WIDE]], %[[M]]
// TOSA: %[[B:.*]] = "tosa.const"() <{values = dense<-113246098> : tensor<1xi32>}>
// TOSA: %[[ADD:.*]] = tosa.add %[[MUL]], %[[B]]
// TOSA: %[[SHIFTED:.*]] = tosa.arithmetic_right_shift %[[ADD]], %{{.*}} {round = false}
// TOSA: %[[LO:.*]] = "tosa.const"() <{values = dense<-128> : tensor<1xi32>}>
// TOSA: %[[MAX:.*]] = tosa.maximum %[[SHIFTED]], %[[LO]]
// TOSA: %[[HI:.*]] = "tosa.const"() <{values = dense<112> : tensor<1xi32>}>
// TOSA: %[[MIN:.*]] = tosa.minimum %[[MAX]], %[[HI]]
// TOSA: tosa.cast %[[MIN]] {{.*}} -> tensor<4xi8>
// TOSA-NOT: tosa.table
func.func @relu6_line(%arg0: tensor<4x!in>) -> tensor<4x!out> {
  %x = quant.dcast %arg0 : tensor<4x!in> to tensor<4xf32>
  %s = tosa.clamp %x {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %q = quant.qcast %s : tensor<4xf32> to tensor<4x!out>
  return %q : tensor<4x!out>
}

// -----

!t = !quant.uniform<i8:f32, 0.5:3>
!u = !quant.uniform<i8:f32, 0.25:3>

// A 3-D pool is lowered only into its input's qparams.
func.func @avg_pool3d(%arg0: tensor<1x4x2x2x3x!t>) -> tensor<1x2x1x1x3x!u> {
  %x = quant.dcast %arg0 : tensor<1x4x2x2x3x!t> to tensor<1x4x2x2x3xf32>
  // expected-remark @+1 {{runs in float: torch.nn.AvgPool3d keeps its input's qparams; the output has others}}
  %y = qfx.composite "torch.nn.AvgPool3d" (%x) attributes {composite_attributes = {kernel = array<i64: 2, 2, 2>}} : (tensor<1x4x2x2x3xf32>) -> tensor<1x2x1x1x3xf32> {
  ^bb0(%v: tensor<1x4x2x2x3xf32>):
    // (The body is the float model's business; a stand-in here.)
    %start = tosa.const_shape {values = dense<0> : tensor<5xindex>} : () -> !tosa.shape<5>
    %size = tosa.const_shape {values = dense<[1, 2, 1, 1, 3]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %r = tosa.slice %v, %start, %size : (tensor<1x4x2x2x3xf32>, !tosa.shape<5>, !tosa.shape<5>) -> tensor<1x2x1x1x3xf32>
    qfx.yield %r : tensor<1x2x1x1x3xf32>
  }
  %q = quant.qcast %y : tensor<1x2x1x1x3xf32> to tensor<1x2x1x1x3x!u>
  return %q : tensor<1x2x1x1x3x!u>
}
