// 3-D average pooling composites lower to int32 window sums (a reshape and a
// tosa.reduce_sum per spatial axis) averaged as PyTorch's kernels do:
// AvgPool3d, and AdaptiveAvgPool3d of an operand PyTorch holds channels-last
// (`channels_last = true`), the sums of q - zp times float32 1/count,
// rounded half to even, plus the zero point; AdaptiveAvgPool3d of a
// contiguous operand the sums of the stored integers times float32
// ((1 / kd) / kh) / kw, rounded half to even. The output keeps the input's
// qparams, as PyTorch's kernels do (a table whose row observes the output
// apart: own-observer.mlir).
// RUN: quant-opt %s --qfx-lower --split-input-file --verify-diagnostics | FileCheck %s

!t = !quant.uniform<i8:f32, 0.5:3>

// CHECK-LABEL: func.func @avg_pool3d
// CHECK: tosa.cast {{.*}} -> tensor<1x4x2x2x3xi32>
// CHECK: tosa.reduce_sum {{.*}} {axis = 2 : i32} : (tensor<1x2x2x2x2x3xi32>) -> tensor<1x2x1x2x2x3xi32>
// CHECK: tosa.reduce_sum {{.*}} {axis = 3 : i32}
// CHECK: tosa.reduce_sum {{.*}} {axis = 4 : i32}
// CHECK: "tosa.const"() <{values = dense<24> : tensor<1x1x1x1x1xi32>}>
// CHECK: tosa.sub
// CHECK: "tosa.const"() <{values = dense<1.250000e-01> : tensor<1x1x1x1x1xf32>}>
// CHECK: tosa.mul
// CHECK: tosa.clamp %{{.*}} {max_val = 1.240000e+02 : f32, min_val = -1.310000e+02 : f32}
// CHECK: "tosa.const"() <{values = dense<3> : tensor<1x1x1x1x1xi32>}>
// CHECK: tosa.add
// CHECK: tosa.cast {{.*}} -> tensor<1x2x1x1x3xi8>
// CHECK-NOT: qfx.composite
func.func @avg_pool3d(%arg0: tensor<1x4x2x2x3x!t>) -> tensor<1x2x1x1x3x!t> {
  %x = quant.dcast %arg0 : tensor<1x4x2x2x3x!t> to tensor<1x4x2x2x3xf32>
  %y = qfx.composite "torch.nn.AvgPool3d" (%x) attributes {composite_attributes = {kernel = array<i64: 2, 2, 2>}} : (tensor<1x4x2x2x3xf32>) -> tensor<1x2x1x1x3xf32> {
  ^bb0(%v: tensor<1x4x2x2x3xf32>):
    // (The body is the float model's business; a stand-in here.)
    %start = tosa.const_shape {values = dense<0> : tensor<5xindex>} : () -> !tosa.shape<5>
    %size = tosa.const_shape {values = dense<[1, 2, 1, 1, 3]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %r = tosa.slice %v, %start, %size : (tensor<1x4x2x2x3xf32>, !tosa.shape<5>, !tosa.shape<5>) -> tensor<1x2x1x1x3xf32>
    qfx.yield %r : tensor<1x2x1x1x3xf32>
  }
  %q = quant.qcast %y : tensor<1x2x1x1x3xf32> to tensor<1x2x1x1x3x!t>
  return %q : tensor<1x2x1x1x3x!t>
}

// -----

!t = !quant.uniform<i8:f32, 0.5:3>

// A contiguous operand (no `channels_last`): the stored integers (an i8
// type: no offset), times ((1 / 2) / 2) / 2, no zero point added.
// CHECK-LABEL: func.func @adaptive_avg_pool3d
// CHECK-NOT: tosa.sub
// CHECK: "tosa.const"() <{values = dense<1.250000e-01> : tensor<1x1x1x1x1xf32>}>
// CHECK: tosa.mul
// CHECK: tosa.clamp %{{.*}} {max_val = 1.270000e+02 : f32, min_val = -1.280000e+02 : f32}
// CHECK-NEXT: tosa.cast {{.*}} -> tensor<1x2x1x1x3xi8>
func.func @adaptive_avg_pool3d(%arg0: tensor<1x4x2x2x3x!t>) -> tensor<1x2x1x1x3x!t> {
  %x = quant.dcast %arg0 : tensor<1x4x2x2x3x!t> to tensor<1x4x2x2x3xf32>
  %y = qfx.composite "torch.nn.AdaptiveAvgPool3d" (%x) attributes {composite_attributes = {kernel = array<i64: 2, 2, 2>}} : (tensor<1x4x2x2x3xf32>) -> tensor<1x2x1x1x3xf32> {
  ^bb0(%v: tensor<1x4x2x2x3xf32>):
    // (The body is the float model's business; a stand-in here.)
    %start = tosa.const_shape {values = dense<0> : tensor<5xindex>} : () -> !tosa.shape<5>
    %size = tosa.const_shape {values = dense<[1, 2, 1, 1, 3]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %r = tosa.slice %v, %start, %size : (tensor<1x4x2x2x3xf32>, !tosa.shape<5>, !tosa.shape<5>) -> tensor<1x2x1x1x3xf32>
    qfx.yield %r : tensor<1x2x1x1x3xf32>
  }
  %q = quant.qcast %y : tensor<1x2x1x1x3xf32> to tensor<1x2x1x1x3x!t>
  return %q : tensor<1x2x1x1x3x!t>
}

// -----

!t = !quant.uniform<i8:f32, 0.5:3>

// A channels-last operand: as AvgPool3d, the sums of q - zp.
// CHECK-LABEL: func.func @adaptive_avg_pool3d_channels_last
// CHECK: "tosa.const"() <{values = dense<24> : tensor<1x1x1x1x1xi32>}>
// CHECK: tosa.sub
// CHECK: "tosa.const"() <{values = dense<1.250000e-01> : tensor<1x1x1x1x1xf32>}>
// CHECK: tosa.mul
// CHECK: "tosa.const"() <{values = dense<3> : tensor<1x1x1x1x1xi32>}>
// CHECK: tosa.add
func.func @adaptive_avg_pool3d_channels_last(%arg0: tensor<1x4x2x2x3x!t>) -> tensor<1x2x1x1x3x!t> {
  %x = quant.dcast %arg0 : tensor<1x4x2x2x3x!t> to tensor<1x4x2x2x3xf32>
  %y = qfx.composite "torch.nn.AdaptiveAvgPool3d" (%x) attributes {composite_attributes = {kernel = array<i64: 2, 2, 2>, channels_last = true}} : (tensor<1x4x2x2x3xf32>) -> tensor<1x2x1x1x3xf32> {
  ^bb0(%v: tensor<1x4x2x2x3xf32>):
    // (The body is the float model's business; a stand-in here.)
    %start = tosa.const_shape {values = dense<0> : tensor<5xindex>} : () -> !tosa.shape<5>
    %size = tosa.const_shape {values = dense<[1, 2, 1, 1, 3]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %r = tosa.slice %v, %start, %size : (tensor<1x4x2x2x3xf32>, !tosa.shape<5>, !tosa.shape<5>) -> tensor<1x2x1x1x3xf32>
    qfx.yield %r : tensor<1x2x1x1x3xf32>
  }
  %q = quant.qcast %y : tensor<1x2x1x1x3xf32> to tensor<1x2x1x1x3x!t>
  return %q : tensor<1x2x1x1x3x!t>
}

// -----

!u = !quant.uniform<u8:f32, 0.5:131>

// A contiguous u8 operand: the stored integers are the int8 domain's plus
// 128 each (1024 for 8 of them); the result goes back to the int8 domain.
// CHECK-LABEL: func.func @adaptive_avg_pool3d_u8
// CHECK: "tosa.const"() <{values = dense<1024> : tensor<1x1x1x1x1xi32>}>
// CHECK: tosa.add
// CHECK: tosa.mul
// CHECK: tosa.clamp %{{.*}} {max_val = 2.550000e+02 : f32, min_val = 0.000000e+00 : f32}
// CHECK: "tosa.const"() <{values = dense<-128> : tensor<1x1x1x1x1xi32>}>
func.func @adaptive_avg_pool3d_u8(%arg0: tensor<1x4x2x2x3x!u>) -> tensor<1x2x1x1x3x!u> {
  %x = quant.dcast %arg0 : tensor<1x4x2x2x3x!u> to tensor<1x4x2x2x3xf32>
  %y = qfx.composite "torch.nn.AdaptiveAvgPool3d" (%x) attributes {composite_attributes = {kernel = array<i64: 2, 2, 2>, channels_last = false}} : (tensor<1x4x2x2x3xf32>) -> tensor<1x2x1x1x3xf32> {
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

// -----

!t = !quant.uniform<i8:f32, 0.5:3>
!u = !quant.uniform<i8:f32, 0.25:3>

// Where the observer's qparams differ (the pool configured None, the next
// pattern observing its output), PyTorch lowers the pool on the quantized
// input and drops the quantize: what follows dequantizes with the input's.
// CHECK-LABEL: func.func @other_qparams
// CHECK: %[[POOL:.*]] = quant.scast %{{.*}} : tensor<1x2x1x1x3xi8> to tensor<1x2x1x1x3x!quant.uniform<i8:f32, 5.000000e-01:3>>
// CHECK: quant.dcast %[[POOL]] : tensor<1x2x1x1x3x!quant.uniform<i8:f32, 5.000000e-01:3>>
// CHECK-NOT: qfx.composite
func.func @other_qparams(%arg0: tensor<1x4x2x2x3x!t>) -> tensor<1x2x1x1x3xf32> {
  %x = quant.dcast %arg0 : tensor<1x4x2x2x3x!t> to tensor<1x4x2x2x3xf32>
  %y = qfx.composite "torch.nn.AvgPool3d" (%x) attributes {composite_attributes = {kernel = array<i64: 2, 2, 2>}} : (tensor<1x4x2x2x3xf32>) -> tensor<1x2x1x1x3xf32> {
  ^bb0(%v: tensor<1x4x2x2x3xf32>):
    // (The body is the float model's business; a stand-in here.)
    %start = tosa.const_shape {values = dense<0> : tensor<5xindex>} : () -> !tosa.shape<5>
    %size = tosa.const_shape {values = dense<[1, 2, 1, 1, 3]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %r = tosa.slice %v, %start, %size : (tensor<1x4x2x2x3xf32>, !tosa.shape<5>, !tosa.shape<5>) -> tensor<1x2x1x1x3xf32>
    qfx.yield %r : tensor<1x2x1x1x3xf32>
  }
  %q = quant.qcast %y : tensor<1x2x1x1x3xf32> to tensor<1x2x1x1x3x!u>
  %d = quant.dcast %q : tensor<1x2x1x1x3x!u> to tensor<1x2x1x1x3xf32>
  return %d : tensor<1x2x1x1x3xf32>
}
