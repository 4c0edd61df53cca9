// RUN: quant-opt %s --qfx-lower --split-input-file 2>/dev/null | FileCheck %s
// RUN: quant-opt %s --qfx-lower --split-input-file 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=REMARK --implicit-check-not=remark

// An average pool of a channels-last operand (without qfx.torch_kernel), as
// PyTorch's kernel: the sums of q - zp over each window's elements inside
// the input, times float32 1/count, rounded half to even, plus the zero
// point. (Not the integer quotient with ties to even: on a tie of an even
// count the float product's rounding decides.) With padding (not counted)
// the counts differ by position: 4, 6 or 9 for 3x3 windows of stride 2 with
// one row and column of padding on a 5x5 input.
!s = !quant.uniform<i8:f32, 0.05:3>
// CHECK-LABEL: func.func @channels_last_padded
// CHECK-NOT: tosa.avg_pool2d
// CHECK: %[[SUM:.*]] = qfx.contract depthwise_conv2d %{{.*}}, %{{.*}} {dilation = array<i64: 1, 1>, input_zp = 3 : i64, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>}
// CHECK: %[[M:.*]] = "tosa.const"() <{values = dense<{{\[\[\[}}[2.500000e-01], [0.166666672], [2.500000e-01]], {{\[\[}}0.166666672], [0.111111112], [0.166666672]], {{\[\[}}2.500000e-01], [0.166666672], [2.500000e-01]]]]> : tensor<1x3x3x1xf32>}>
// CHECK: %[[F:.*]] = tosa.cast %[[SUM]]
// CHECK: %[[P:.*]] = tosa.mul %[[F]], %[[M]]
// CHECK: %[[C:.*]] = tosa.clamp %[[P]] {max_val = 1.240000e+02 : f32, min_val = -1.310000e+02 : f32}
// CHECK: %[[R:.*]] = tosa.cast %[[C]] : (tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xi32>
// CHECK: %[[ZP:.*]] = "tosa.const"() <{values = dense<3> : tensor<1x1x1x1xi32>}>
// CHECK: tosa.add %[[R]], %[[ZP]]
// CHECK-NOT: tosa.intdiv
// CHECK-NOT: tosa.avg_pool2d
// CHECK: return
func.func @channels_last_padded(%arg0: tensor<1x5x5x2x!s>) -> tensor<1x3x3x2xf32> {
  %x = quant.dcast %arg0 : tensor<1x5x5x2x!s> to tensor<1x5x5x2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %a = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x5x5x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x2xf32>
  %q = quant.qcast %a : tensor<1x3x3x2xf32> to tensor<1x3x3x2x!s>
  %d = quant.dcast %q : tensor<1x3x3x2x!s> to tensor<1x3x3x2xf32>
  return %d : tensor<1x3x3x2xf32>
}

// -----

// An average pool whose operand PyTorch's quantized model holds contiguous
// (NCHW) carries qfx.torch_kernel: qfx-lower computes PyTorch's kernel for
// that layout. avg_pool2d: the sums of q - zp, times float32 1/count, plus
// the zero point (PyTorch's, 117 for the u8 type) in float32, clamped to the
// storage's range, rounded half to even, back to the int8 domain.
!u = !quant.uniform<u8:f32, 0.05:117>
// CHECK-LABEL: func.func @avg_pool2d
// CHECK: %[[SUM:.*]] = qfx.contract depthwise_conv2d %{{.*}}, %{{.*}} {dilation = array<i64: 1, 1>, input_zp = -11 : i64, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<2x2x2x1xi8>) -> tensor<1x3x3x2xi32>
// CHECK: %[[M:.*]] = "tosa.const"() <{values = dense<2.500000e-01> : tensor<1x1x1x1xf32>}>
// CHECK: %[[F:.*]] = tosa.cast %[[SUM]] : (tensor<1x3x3x2xi32>) -> tensor<1x3x3x2xf32>
// CHECK: %[[P:.*]] = tosa.mul %[[F]], %[[M]]
// CHECK: %[[ZP:.*]] = "tosa.const"() <{values = dense<1.170000e+02> : tensor<1x1x1x1xf32>}>
// CHECK: %[[A:.*]] = tosa.add %[[P]], %[[ZP]]
// CHECK: %[[C:.*]] = tosa.clamp %[[A]] {max_val = 2.550000e+02 : f32, min_val = 0.000000e+00 : f32}
// CHECK: %[[R:.*]] = tosa.cast %[[C]] : (tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xi32>
// CHECK: %[[OFF:.*]] = "tosa.const"() <{values = dense<-128> : tensor<1x1x1x1xi32>}>
// CHECK: tosa.add %[[R]], %[[OFF]]
func.func @avg_pool2d(%arg0: tensor<1x4x4x2x!u>) -> tensor<1x3x3x2xf32> {
  %x = quant.dcast %arg0 : tensor<1x4x4x2x!u> to tensor<1x4x4x2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %a = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, qfx.torch_kernel = "avg_pool2d_contiguous"} : (tensor<1x4x4x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x2xf32>
  %q = quant.qcast %a : tensor<1x3x3x2xf32> to tensor<1x3x3x2x!u>
  %d = quant.dcast %q : tensor<1x3x3x2x!u> to tensor<1x3x3x2xf32>
  return %d : tensor<1x3x3x2xf32>
}

// -----

// With padding (not counted, as TOSA's pad), each position's 1/count: the
// 3x3 windows of stride 2 with one row and column of padding on a 5x5 input
// hold 4, 6 or 9 elements. An i8 type has no offset.
!s = !quant.uniform<i8:f32, 0.05:3>
// CHECK-LABEL: func.func @avg_pool2d_padded
// CHECK: qfx.contract depthwise_conv2d %{{.*}}, %{{.*}} {dilation = array<i64: 1, 1>, input_zp = 3 : i64, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>}
// CHECK: "tosa.const"() <{values = dense<{{\[\[\[}}[2.500000e-01], [0.166666672], [2.500000e-01]], {{\[\[}}0.166666672], [0.111111112], [0.166666672]], {{\[\[}}2.500000e-01], [0.166666672], [2.500000e-01]]]]> : tensor<1x3x3x1xf32>}>
// CHECK: "tosa.const"() <{values = dense<3.000000e+00> : tensor<1x1x1x1xf32>}>
// CHECK: tosa.clamp %{{.*}} {max_val = 1.270000e+02 : f32, min_val = -1.280000e+02 : f32}
// CHECK-NEXT: tosa.cast %{{.*}} : (tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xi8>
func.func @avg_pool2d_padded(%arg0: tensor<1x5x5x2x!s>) -> tensor<1x3x3x2xf32> {
  %x = quant.dcast %arg0 : tensor<1x5x5x2x!s> to tensor<1x5x5x2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %a = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>, qfx.torch_kernel = "avg_pool2d_contiguous"} : (tensor<1x5x5x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x2xf32>
  %q = quant.qcast %a : tensor<1x3x3x2xf32> to tensor<1x3x3x2x!s>
  %d = quant.dcast %q : tensor<1x3x3x2x!s> to tensor<1x3x3x2xf32>
  return %d : tensor<1x3x3x2xf32>
}

// -----

// adaptive_avg_pool2d: the sums of the stored integers (the int8 domain's
// plus 128 per u8 element), times PyTorch's float32 (1 / kh) / kw, rounded
// half to even; no zero point is added.
!u = !quant.uniform<u8:f32, 0.05:117>
// CHECK-LABEL: func.func @adaptive_avg_pool2d
// CHECK: %[[SUM:.*]] = qfx.contract depthwise_conv2d %{{.*}}, %{{.*}} {dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 3, 3>}
// CHECK: %[[OFF:.*]] = "tosa.const"() <{values = dense<1152> : tensor<1x1x1x1xi32>}>
// CHECK: %[[S:.*]] = tosa.add %[[SUM]], %[[OFF]]
// CHECK: "tosa.const"() <{values = dense<0.111111112> : tensor<1x1x1x1xf32>}>
// CHECK: tosa.cast %[[S]]
// CHECK: tosa.mul
// CHECK-NOT: tosa.add %{{.*}} : (tensor<1x1x1x2xf32>
// CHECK: tosa.clamp %{{.*}} {max_val = 2.550000e+02 : f32, min_val = 0.000000e+00 : f32}
func.func @adaptive_avg_pool2d(%arg0: tensor<1x3x3x2x!u>) -> tensor<1x1x1x2xf32> {
  %x = quant.dcast %arg0 : tensor<1x3x3x2x!u> to tensor<1x3x3x2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %a = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 3, 3>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 3, 3>, qfx.torch_kernel = "adaptive_avg_pool2d_contiguous"} : (tensor<1x3x3x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x2xf32>
  %q = quant.qcast %a : tensor<1x1x1x2xf32> to tensor<1x1x1x2x!u>
  %d = quant.dcast %q : tensor<1x1x1x2x!u> to tensor<1x1x1x2xf32>
  return %d : tensor<1x1x1x2xf32>
}

// -----

// PyTorch's qnnpack engine averages a quint8 pool it takes (qfx.qnnpack_pool:
// no ceil_mode) with qnnpack's kernel, whatever the layout: the sums of
// q - zp over the whole window (padding adds nothing but counts), times
// float32 scale / (scale * 9), rounded half to even, plus the zero point
// (the int8 domain's, -11), clamped.
!u = !quant.uniform<u8:f32, 0.05:117>
// CHECK-LABEL: func.func @qnnpack_pool
// CHECK: %[[SUM:.*]] = qfx.contract depthwise_conv2d %{{.*}}, %{{.*}} {dilation = array<i64: 1, 1>, input_zp = -11 : i64, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>}
// CHECK: %[[M:.*]] = "tosa.const"() <{values = dense<0.111111112> : tensor<1x1x1x1xf32>}>
// CHECK: %[[F:.*]] = tosa.cast %[[SUM]] : (tensor<1x3x3x2xi32>) -> tensor<1x3x3x2xf32>
// CHECK: %[[P:.*]] = tosa.mul %[[F]], %[[M]]
// CHECK: %[[C:.*]] = tosa.clamp %[[P]] {max_val = 1.380000e+02 : f32, min_val = -1.170000e+02 : f32}
// CHECK: %[[R:.*]] = tosa.cast %[[C]] : (tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xi32>
// CHECK: %[[ZP:.*]] = "tosa.const"() <{values = dense<-11> : tensor<1x1x1x1xi32>}>
// CHECK: tosa.add %[[R]], %[[ZP]]
module attributes {qfx.engine = "qnnpack"} {
func.func @qnnpack_pool(%arg0: tensor<1x5x5x2x!u>) -> tensor<1x3x3x2xf32> {
  %x = quant.dcast %arg0 : tensor<1x5x5x2x!u> to tensor<1x5x5x2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %a = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>, qfx.torch_kernel = "avg_pool2d_contiguous", qfx.qnnpack_pool} : (tensor<1x5x5x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x2xf32>
  %q = quant.qcast %a : tensor<1x3x3x2xf32> to tensor<1x3x3x2x!u>
  %d = quant.dcast %q : tensor<1x3x3x2x!u> to tensor<1x3x3x2xf32>
  return %d : tensor<1x3x3x2xf32>
}
}

// -----

// A pool the qnnpack engine does not take (a ceil-mode one: no
// qfx.qnnpack_pool) is PyTorch's kernel for its layout there too.
!u = !quant.uniform<u8:f32, 0.05:117>
// CHECK-LABEL: func.func @qnnpack_engine_other_pool
// CHECK: "tosa.const"() <{values = dense<2.500000e-01> : tensor<1x1x1x1xf32>}>
// CHECK: "tosa.const"() <{values = dense<1.170000e+02> : tensor<1x1x1x1xf32>}>
module attributes {qfx.engine = "qnnpack"} {
func.func @qnnpack_engine_other_pool(%arg0: tensor<1x4x4x2x!u>) -> tensor<1x3x3x2xf32> {
  %x = quant.dcast %arg0 : tensor<1x4x4x2x!u> to tensor<1x4x4x2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %a = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, qfx.torch_kernel = "avg_pool2d_contiguous"} : (tensor<1x4x4x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x2xf32>
  %q = quant.qcast %a : tensor<1x3x3x2xf32> to tensor<1x3x3x2x!u>
  %d = quant.dcast %q : tensor<1x3x3x2x!u> to tensor<1x3x3x2xf32>
  return %d : tensor<1x3x3x2xf32>
}
}

// -----

// The counts need a static height and width: else the pool stays float.
!s = !quant.uniform<i8:f32, 0.05:3>
// REMARK: remark: runs in float: an average pool needs a static height and width
// CHECK-LABEL: func.func @dynamic_height
// CHECK: tosa.avg_pool2d
func.func @dynamic_height(%arg0: tensor<1x?x5x2x!s>) -> tensor<1x3x3x2xf32> {
  %x = quant.dcast %arg0 : tensor<1x?x5x2x!s> to tensor<1x?x5x2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %a = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x?x5x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x2xf32>
  %q = quant.qcast %a : tensor<1x3x3x2xf32> to tensor<1x3x3x2x!s>
  %d = quant.dcast %q : tensor<1x3x3x2x!s> to tensor<1x3x3x2xf32>
  return %d : tensor<1x3x3x2xf32>
}

// -----

// An adaptive pool of uneven windows (3 rows to 2: rows [0, 2) and [1, 3))
// is one composite: its body on the integers, each window averaged as
// PyTorch's kernel for the layout (here channels-last: the sums of q - zp
// times float32 1/2), the window results concatenated as int8. The output
// keeps the input's qparams.
!s = !quant.uniform<i8:f32, 0.05:3>
// CHECK-LABEL: func.func @uneven_adaptive_pool
// CHECK-NOT: qfx.composite
// CHECK: %[[W0:.*]] = tosa.slice %{{.*}} : (tensor<1x3x1x2xi8>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x1x2xi8>
// CHECK: qfx.contract depthwise_conv2d %[[W0]], {{.*}} input_zp = 3
// CHECK: %[[W1:.*]] = tosa.slice %{{.*}} -> tensor<1x2x1x2xi8>
// CHECK: qfx.contract depthwise_conv2d %[[W1]], {{.*}} input_zp = 3
// CHECK: %[[C:.*]] = tosa.concat {{.*}} {axis = 1 : i32{{.*}}} : (tensor<1x1x1x2xi8>, tensor<1x1x1x2xi8>) -> tensor<1x2x1x2xi8>
// CHECK: quant.scast %[[C]] : tensor<1x2x1x2xi8> to tensor<1x2x1x2x!quant.uniform<i8:f32, 5.000000e-02:3>>
// REMARK-NOT: remark
func.func @uneven_adaptive_pool(%arg0: tensor<1x3x1x2x!s>) -> tensor<1x2x1x2xf32> {
  %x = quant.dcast %arg0 : tensor<1x3x1x2x!s> to tensor<1x3x1x2xf32>
  %y = qfx.composite "torch.nn.AdaptiveAvgPool2d" (%x) attributes {qfx.origin = "torch.nn.AdaptiveAvgPool2d"} : (tensor<1x3x1x2xf32>) -> tensor<1x2x1x2xf32> {
  ^bb0(%a: tensor<1x3x1x2xf32>):
    %size = tosa.const_shape {values = dense<[1, 2, 1, 2]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %s0 = tosa.const_shape {values = dense<0> : tensor<4xindex>} : () -> !tosa.shape<4>
    %w0 = tosa.slice %a, %s0, %size : (tensor<1x3x1x2xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x1x2xf32>
    %p0 = tosa.avg_pool2d %w0, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 1>} : (tensor<1x2x1x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x2xf32>
    %s1 = tosa.const_shape {values = dense<[0, 1, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %w1 = tosa.slice %a, %s1, %size : (tensor<1x3x1x2xf32>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x1x2xf32>
    %p1 = tosa.avg_pool2d %w1, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 1>} : (tensor<1x2x1x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x2xf32>
    %c = tosa.concat %p0, %p1 {axis = 1 : i32} : (tensor<1x1x1x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x2x1x2xf32>
    qfx.yield %c : tensor<1x2x1x2xf32>
  }
  %q = quant.qcast %y : tensor<1x2x1x2xf32> to tensor<1x2x1x2x!s>
  %d = quant.dcast %q : tensor<1x2x1x2x!s> to tensor<1x2x1x2xf32>
  return %d : tensor<1x2x1x2xf32>
}
