// RUN: quant-opt %s --qfx-lower=emit-tosa=true --split-input-file --verify-diagnostics --mlir-print-elementsattrs-with-hex-if-larger=1000 | FileCheck %s
// RUN: quant-opt %s --qfx-lower="requantization=integer emit-tosa=true" --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=RESCALE
// RUN: quant-opt %s --qfx-lower="requantization=qnnpack emit-tosa=true" --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=QNN
// With requantization=integer, the result is TOSA's integer profile; with
// PyTorch's engines' requantization, the integer and float profiles:
// RUN: quant-opt %s --qfx-lower="requantization=integer emit-tosa=true" --split-input-file | quant-opt --split-input-file --tosa-attach-target=profiles=pro_int --tosa-validate -o /dev/null
// RUN: quant-opt %s --qfx-lower=emit-tosa=true --split-input-file | quant-opt --split-input-file --tosa-attach-target=profiles=pro_int,pro_fp --tosa-validate -o /dev/null
// RUN: not quant-opt %s --qfx-lower=requantization=fbgemm --split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: qfx-lower: requantization 'fbgemm' is none of onednn, qnnpack, integer

!in = !quant.uniform<u8:f32, 0.5:130>
!out = !quant.uniform<u8:f32, 1.0:10>
!w = !quant.uniform<i8:f32:0, {0.25, 0.5}>

// conv2d + ReLU with per-channel weights. The u8 input enters the int8
// domain (zero point 130 - 128 = 2; an i8 zero point constant of an
// unsigned input holds 130 as -126); the result leaves as u8.
//
// The default (x86: PyTorch's onednn engine) requantizes in float with
// ideep's reciprocal scales si = 1 / 0.5, sw = 1 / {0.25, 0.5}, so = 1 / 1.0:
// the bias in accumulator units, {1.0, -2.0} * si * sw = {8, -8}; the
// multiplier so / (si * sw) = {0.125, 0.25}; the u8 zero point 10 added
// before rounding; the ReLU clamps at it (10 .. 255); rounded half to even
// (tosa.cast); moved by -128 into the int8 domain.
// CHECK-LABEL: func.func @conv_relu
// CHECK-SAME: (%[[ARG:.*]]: tensor<1x4x4x3x!quant.uniform<u8:f32, 5.000000e-01:130>>)
// CHECK: %[[S:.*]] = quant.scast %[[ARG]] : {{.*}} to tensor<1x4x4x3xi8>
// CHECK-DAG: %[[IZP:.*]] = "tosa.const"() <{values = dense<-126> : tensor<1xi8>}>
// CHECK-DAG: %[[OZP:.*]] = "tosa.const"() <{values = dense<2> : tensor<1xi8>}>
// CHECK: %[[X:.*]] = tosa.rescale %[[S]], %{{.*}}, %{{.*}}, %[[IZP]], %[[OZP]] {input_unsigned = true, output_unsigned = false, per_channel = false
// CHECK-SAME: -> tensor<1x4x4x3xi8>
// CHECK: %[[W:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}1, 2, 3]]], {{\[\[\[}}-4, 5, -6]]]]> : tensor<2x1x1x3xi8>}>
// CHECK: %[[CZP:.*]] = "tosa.const"() <{values = dense<2> : tensor<1xi8>}>
// CHECK: %[[NOBIAS:.*]] = "tosa.const"() <{values = dense<0> : tensor<2xi32>}>
// CHECK: %[[ACC:.*]] = tosa.conv2d %[[X]], %[[W]], %[[NOBIAS]], %[[CZP]], %{{.*}} {acc_type = i32
// CHECK: %[[F:.*]] = tosa.cast %[[ACC]] : (tensor<1x4x4x2xi32>) -> tensor<1x4x4x2xf32>
// CHECK: %[[BIAS:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}8.000000e+00, -8.000000e+00]]]]> : tensor<1x1x1x2xf32>}>
// CHECK: %[[B:.*]] = tosa.add %[[F]], %[[BIAS]]
// CHECK: %[[MULT:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}1.250000e-01, 2.500000e-01]]]]> : tensor<1x1x1x2xf32>}>
// CHECK: %[[M:.*]] = tosa.mul %[[B]], %[[MULT]], %{{.*}} : (tensor<1x4x4x2xf32>, tensor<1x1x1x2xf32>, tensor<1xi8>)
// CHECK: %[[ZPF:.*]] = "tosa.const"() <{values = dense<1.000000e+01> : tensor<1x1x1x1xf32>}>
// CHECK: %[[Z:.*]] = tosa.add %[[M]], %[[ZPF]]
// CHECK: %[[CL:.*]] = tosa.clamp %[[Z]] {max_val = 2.550000e+02 : f32, min_val = 1.000000e+01 : f32}
// CHECK: %[[I:.*]] = tosa.cast %[[CL]] : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xi32>
// CHECK: %[[MINUS:.*]] = "tosa.const"() <{values = dense<-128> : tensor<1x1x1x1xi32>}>
// CHECK: %[[D:.*]] = tosa.add %[[I]], %[[MINUS]]
// CHECK: %[[C:.*]] = tosa.cast %[[D]] {qfx.quantized = !quant.uniform<i8:f32, 1.000000e+00:-118>} : (tensor<1x4x4x2xi32>) -> tensor<1x4x4x2xi8>
// CHECK: %[[U:.*]] = tosa.rescale %[[C]], {{.*}} output_unsigned = true
// CHECK: %[[Q:.*]] = quant.scast %[[U]] : tensor<1x4x4x2xi8> to tensor<1x4x4x2x!quant.uniform<u8:f32, 1.000000e+00:10>>
// CHECK: return %[[Q]]
//
// requantization=integer: the bias quantized with input_scale * weight_scale
// and 8 fractional bits (1.0 / (0.5 * 0.25) * 256 = 2048, -2.0 / (0.5 * 0.5)
// * 256 = -2048); a per-channel rescale (0.5 * 0.25 / 1.0 / 256 = 2^-11:
// multiplier 2^30, shift 41); the ReLU clamps at the output zero point
// (10 - 128).
// RESCALE-LABEL: func.func @conv_relu
// RESCALE: %[[ACC:.*]] = tosa.conv2d
// RESCALE: %[[FACTOR:.*]] = "tosa.const"() <{values = dense<256> : tensor<1x1x1x1xi32>}>
// RESCALE: %[[SCALED:.*]] = tosa.mul %[[ACC]], %[[FACTOR]]
// RESCALE: %[[BIAS:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}2048, -2048]]]]> : tensor<1x1x1x2xi32>}>
// RESCALE: %[[SUM:.*]] = tosa.add %[[SCALED]], %[[BIAS]]
// RESCALE: %[[M:.*]] = "tosa.const"() <{values = dense<1073741824> : tensor<2xi32>}>
// RESCALE: %[[SH:.*]] = "tosa.const"() <{values = dense<[41, 40]> : tensor<2xi8>}>
// RESCALE: %[[R:.*]] = tosa.rescale %[[SUM]], %[[M]], %[[SH]], {{.*}} per_channel = true, rounding_mode = SINGLE_ROUND, scale32 = true}
// RESCALE: %[[C:.*]] = tosa.clamp %[[R]] {max_val = 127 : i8, min_val = -118 : i8, qfx.quantized = !quant.uniform<i8:f32, 1.000000e+00:-118>}
// RESCALE: tosa.rescale %[[C]], {{.*}} output_unsigned = true
//
// requantization=qnnpack: the bias quantized to int32 with s_in * s_w
// (1.0 / 0.125 = 8, -2.0 / 0.25 = -8) in the convolution; the multiplier
// (s_w * s_in) * (1 / s_out); rounded; the int8-domain zero point -118 added after
// rounding (the clamp before it, 0 .. 245, is the ReLU's -118 .. 127).
// QNN-LABEL: func.func @conv_relu
// QNN: %[[QBIAS:.*]] = "tosa.const"() <{values = dense<[8, -8]> : tensor<2xi32>}>
// QNN: %[[ACC:.*]] = tosa.conv2d %{{.*}}, %{{.*}}, %[[QBIAS]]
// QNN: %[[F:.*]] = tosa.cast %[[ACC]]
// QNN-NOT: tosa.add
// QNN: %[[M:.*]] = tosa.mul %[[F]]
// QNN: %[[CL:.*]] = tosa.clamp %[[M]] {max_val = 2.450000e+02 : f32, min_val = 0.000000e+00 : f32}
// QNN: %[[I:.*]] = tosa.cast %[[CL]]
// QNN: "tosa.const"() <{values = dense<-118> : tensor<1x1x1x1xi32>}>
// QNN: tosa.add %[[I]]
func.func @conv_relu(%arg0: tensor<1x4x4x3x!in>) -> tensor<1x4x4x2x!out> {
  %x = quant.dcast %arg0 : tensor<1x4x4x3x!in> to tensor<1x4x4x3xf32>
  %wi = "tosa.const"() <{values = dense<[[[[1, 2, 3]]], [[[-4, 5, -6]]]]> : tensor<2x1x1x3xi8>}> : () -> tensor<2x1x1x3xi8>
  %ws = quant.scast %wi : tensor<2x1x1x3xi8> to tensor<2x1x1x3x!w>
  %w = quant.dcast %ws : tensor<2x1x1x3x!w> to tensor<2x1x1x3xf32>
  %b = "tosa.const"() <{values = dense<[1.0, -2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %y = qfx.fused "conv2d_relu"(%x, %w, %b) : (tensor<1x4x4x3xf32>, tensor<2x1x1x3xf32>, tensor<2xf32>) -> tensor<1x4x4x2xf32> {
  ^bb0(%a: tensor<1x4x4x3xf32>, %aw: tensor<2x1x1x3xf32>, %ab: tensor<2xf32>):
    %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %c = tosa.conv2d %a, %aw, %ab, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x3xf32>, tensor<2x1x1x3xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
    %r = tosa.clamp %c {max_val = 3.40282347E+38 : f32, min_val = 0.0 : f32} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
    qfx.yield %r : tensor<1x4x4x2xf32>
  }
  %q = quant.qcast %y : tensor<1x4x4x2xf32> to tensor<1x4x4x2x!out>
  return %q : tensor<1x4x4x2x!out>
}

// -----

!in = !quant.uniform<u8:f32, 0.5:130>
!out = !quant.uniform<u8:f32, 1.0:10>
!w = !quant.uniform<i8:f32, 0.25>

// conv3d is the int8 convolution of conv2d over its depth taps side by side
// (here one: the input's depths become the batch): int32 accumulator, bias,
// requantization, then the result reshaped to 5-D.
// CHECK-LABEL: func.func @conv3d
// CHECK: %[[STACKED:.*]] = tosa.reshape {{.*}} : (tensor<1x2x3x3x3xi8>, !tosa.shape<4>) -> tensor<2x3x3x3xi8>
// CHECK: %[[W:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}1, 2, 3]]], {{\[\[\[}}-4, 5, -6]]]]> : tensor<2x1x1x3xi8>}>
// CHECK: %[[ACC:.*]] = tosa.conv2d %[[STACKED]], %[[W]], {{.*}} {acc_type = i32{{.*}} -> tensor<2x3x3x2xi32>
// CHECK: tosa.cast %[[ACC]] : (tensor<2x3x3x2xi32>) -> tensor<2x3x3x2xf32>
// CHECK: tosa.reshape {{.*}} : (tensor<2x3x3x2xi8>, !tosa.shape<5>) -> tensor<1x2x3x3x2xi8>
// CHECK-NOT: tosa.conv3d
func.func @conv3d(%arg0: tensor<1x2x3x3x3x!in>) -> tensor<1x2x3x3x2x!out> {
  %x = quant.dcast %arg0 : tensor<1x2x3x3x3x!in> to tensor<1x2x3x3x3xf32>
  %wi = "tosa.const"() <{values = dense<[[[[[1, 2, 3]]]], [[[[-4, 5, -6]]]]]> : tensor<2x1x1x1x3xi8>}> : () -> tensor<2x1x1x1x3xi8>
  %ws = quant.scast %wi : tensor<2x1x1x1x3xi8> to tensor<2x1x1x1x3x!w>
  %w = quant.dcast %ws : tensor<2x1x1x1x3x!w> to tensor<2x1x1x1x3xf32>
  %b = "tosa.const"() <{values = dense<[1.0, -2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv3d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1, 1>, pad = array<i64: 0, 0, 0, 0, 0, 0>, stride = array<i64: 1, 1, 1>} : (tensor<1x2x3x3x3xf32>, tensor<2x1x1x1x3xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x3x3x2xf32>
  %q = quant.qcast %c : tensor<1x2x3x3x2xf32> to tensor<1x2x3x3x2x!out>
  return %q : tensor<1x2x3x3x2x!out>
}

// -----

!in = !quant.uniform<i8:f32, 0.5:-3>
!out = !quant.uniform<i8:f32, 0.25:4>
!w = !quant.uniform<i8:f32, 0.125>

// A Linear (matmul + bias add) with a per-tensor weight, after reshapes that
// are replayed on the integers; int8 throughout, so no unsigned rescales:
// the signed zero point 4 is added in float, and tosa.cast to i8 rounds and
// saturates (clamp -128 .. 127 first).
// CHECK-LABEL: func.func @linear
// CHECK: %[[S:.*]] = quant.scast %{{.*}} : tensor<2x4x!quant.uniform<i8:f32, 5.000000e-01:-3>> to tensor<2x4xi8>
// CHECK-NOT: input_unsigned = true
// CHECK: %[[X:.*]] = tosa.reshape %[[S]], %{{.*}} : (tensor<2x4xi8>, !tosa.shape<3>) -> tensor<1x2x4xi8>
// CHECK: %[[ACC:.*]] = tosa.matmul %[[X]], %{{.*}} : (tensor<1x2x4xi8>, tensor<1x4x3xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x3xi32>
// CHECK: %[[F:.*]] = tosa.cast %[[ACC]]
// CHECK: "tosa.const"() <{values = dense<{{\[\[\[}}8.000000e+00, 0.000000e+00, -8.000000e+00]]]> : tensor<1x1x3xf32>}>
// CHECK: %[[B:.*]] = tosa.add %[[F]]
// CHECK: "tosa.const"() <{values = dense<2.500000e-01> : tensor<1x1x1xf32>}>
// CHECK: %[[M:.*]] = tosa.mul %[[B]]
// CHECK: "tosa.const"() <{values = dense<4.000000e+00> : tensor<1x1x1xf32>}>
// CHECK: %[[Z:.*]] = tosa.add %[[M]]
// CHECK: %[[CL:.*]] = tosa.clamp %[[Z]] {max_val = 1.270000e+02 : f32, min_val = -1.280000e+02 : f32}
// CHECK: %[[R:.*]] = tosa.cast %[[CL]] {{.*}} -> tensor<1x2x3xi8>
// CHECK-NOT: tosa.rescale
// CHECK: quant.scast %[[R]] : tensor<1x2x3xi8> to tensor<1x2x3x!quant.uniform<i8:f32, 2.500000e-01:4>>
// RESCALE-LABEL: func.func @linear
// RESCALE: %[[ACC:.*]] = tosa.matmul
// RESCALE: tosa.mul %[[ACC]]
// RESCALE: tosa.add
// RESCALE: %[[R:.*]] = tosa.rescale {{.*}} per_channel = false
// RESCALE-SAME: -> tensor<1x2x3xi8>
// RESCALE-NOT: tosa.rescale
// RESCALE: quant.scast %[[R]] : tensor<1x2x3xi8> to tensor<1x2x3x!quant.uniform<i8:f32, 2.500000e-01:4>>
func.func @linear(%arg0: tensor<2x4x!in>) -> tensor<1x2x3x!out> {
  %x0 = quant.dcast %arg0 : tensor<2x4x!in> to tensor<2x4xf32>
  %shape = tosa.const_shape {values = dense<[1, 2, 4]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %x = tosa.reshape %x0, %shape : (tensor<2x4xf32>, !tosa.shape<3>) -> tensor<1x2x4xf32>
  %wi = "tosa.const"() <{values = dense<1> : tensor<1x4x3xi8>}> : () -> tensor<1x4x3xi8>
  %ws = quant.scast %wi : tensor<1x4x3xi8> to tensor<1x4x3x!w>
  %w = quant.dcast %ws : tensor<1x4x3x!w> to tensor<1x4x3xf32>
  %b = "tosa.const"() <{values = dense<[[[0.5, 0.0, -0.5]]]> : tensor<1x1x3xf32>}> : () -> tensor<1x1x3xf32>
  %y = qfx.fused "linear"(%x, %w, %b) : (tensor<1x2x4xf32>, tensor<1x4x3xf32>, tensor<1x1x3xf32>) -> tensor<1x2x3xf32> {
  ^bb0(%a: tensor<1x2x4xf32>, %aw: tensor<1x4x3xf32>, %ab: tensor<1x1x3xf32>):
    %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %m = tosa.matmul %a, %aw, %zp, %zp : (tensor<1x2x4xf32>, tensor<1x4x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x3xf32>
    %s = tosa.add %m, %ab : (tensor<1x2x3xf32>, tensor<1x1x3xf32>) -> tensor<1x2x3xf32>
    qfx.yield %s : tensor<1x2x3xf32>
  }
  %q = quant.qcast %y : tensor<1x2x3xf32> to tensor<1x2x3x!out>
  return %q : tensor<1x2x3x!out>
}

// -----

!a = !quant.uniform<i8:f32, 0.5:1>
!b = !quant.uniform<i8:f32, 0.25:-1>
!out = !quant.uniform<i8:f32, 1.0:-10>

// add + ReLU as PyTorch's x86 kernel: each input dequantized as its vector
// code does, fma(s, q, s * -z) (here exact: the scales 0.5 and 0.25 have one
// significand bit, so s * (q - z) is exact and no error term is needed), the
// sum times 1 / 1.0, clamped to the ReLU's range less the zero point
// (0 .. 137), rounded half to even, plus the zero point -10.
// CHECK-LABEL: func.func @add_relu
// CHECK: %[[A:.*]] = tosa.cast %{{.*}} : (tensor<4xi8>) -> tensor<4xf32>
// CHECK: %[[AZ:.*]] = "tosa.const"() <{values = dense<1.000000e+00> : tensor<1xf32>}>
// CHECK: %[[AK:.*]] = tosa.sub %[[A]], %[[AZ]]
// CHECK: %[[AS:.*]] = "tosa.const"() <{values = dense<5.000000e-01> : tensor<1xf32>}>
// CHECK: %[[DA:.*]] = tosa.mul %[[AK]], %[[AS]]
// CHECK: %[[B:.*]] = tosa.cast %{{.*}} : (tensor<4xi8>) -> tensor<4xf32>
// CHECK: %[[BZ:.*]] = "tosa.const"() <{values = dense<-1.000000e+00> : tensor<1xf32>}>
// CHECK: %[[BK:.*]] = tosa.sub %[[B]], %[[BZ]]
// CHECK: %[[DB:.*]] = tosa.mul %[[BK]]
// CHECK: %[[SUM:.*]] = tosa.add %[[DA]], %[[DB]]
// CHECK: %[[INV:.*]] = "tosa.const"() <{values = dense<1.000000e+00> : tensor<1xf32>}>
// CHECK: %[[Y:.*]] = tosa.mul %[[SUM]], %[[INV]]
// CHECK: %[[C:.*]] = tosa.clamp %[[Y]] {max_val = 1.370000e+02 : f32, min_val = 0.000000e+00 : f32}
// CHECK: %[[I:.*]] = tosa.cast %[[C]] : (tensor<4xf32>) -> tensor<4xi32>
// CHECK: "tosa.const"() <{values = dense<-10> : tensor<1xi32>}>
// CHECK: %[[Q:.*]] = tosa.add %[[I]]
// CHECK: tosa.cast %[[Q]] {qfx.quantized = !quant.uniform<i8:f32, 1.000000e+00:-10>} : (tensor<4xi32>) -> tensor<4xi8>
//
// requantization=integer: both inputs onto 2 * max(0.5, 0.25) = 1.0 with 20
// fractional bits (0.5 * 2^20: multiplier 2^30, shift 11; 0.25 * 2^20:
// shift 12), an int32 add, back by 2^-20 (shift 50), ReLU at the output
// zero point.
// RESCALE-LABEL: func.func @add_relu
// RESCALE-DAG: %[[S11:.*]] = "tosa.const"() <{values = dense<11> : tensor<1xi8>}>
// RESCALE-DAG: %[[S12:.*]] = "tosa.const"() <{values = dense<12> : tensor<1xi8>}>
// RESCALE-DAG: %[[L:.*]] = tosa.rescale %{{.*}}, %{{.*}}, %[[S11]], {{.*}} -> tensor<4xi32>
// RESCALE-DAG: %[[R:.*]] = tosa.rescale %{{.*}}, %{{.*}}, %[[S12]], {{.*}} -> tensor<4xi32>
// RESCALE: %[[SUM:.*]] = tosa.add %[[L]], %[[R]] : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
// RESCALE: %[[S50:.*]] = "tosa.const"() <{values = dense<50> : tensor<1xi8>}>
// RESCALE: %[[O:.*]] = tosa.rescale %[[SUM]], %{{.*}}, %[[S50]]
// RESCALE: tosa.clamp %[[O]] {max_val = 127 : i8, min_val = -10 : i8, qfx.quantized = !quant.uniform<i8:f32, 1.000000e+00:-10>}
func.func @add_relu(%arg0: tensor<4x!a>, %arg1: tensor<4x!b>) -> tensor<4x!out> {
  %x = quant.dcast %arg0 : tensor<4x!a> to tensor<4xf32>
  %y = quant.dcast %arg1 : tensor<4x!b> to tensor<4xf32>
  %s = qfx.fused "add_relu"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%p: tensor<4xf32>, %r: tensor<4xf32>):
    %0 = tosa.add %p, %r : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %1 = tosa.clamp %0 {max_val = 3.40282347E+38 : f32, min_val = 0.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
    qfx.yield %1 : tensor<4xf32>
  }
  %q = quant.qcast %s : tensor<4xf32> to tensor<4x!out>
  return %q : tensor<4x!out>
}

// -----

!a = !quant.uniform<i8:f32, 0.3:1>
!b = !quant.uniform<i8:f32, 0.7:-1>
!out = !quant.uniform<i8:f32, 1.0:-10>

// An add PyTorch runs in TensorIterator's scalar loop (its operands in two
// memory formats: qfx.torch_kernel = "add_scalar_loop") dequantizes each
// input as (q - z) * s, rounded once: no split of the scale into parts for
// an fma's error term.
// CHECK-LABEL: func.func @add_scalar_loop
// CHECK: %[[A:.*]] = tosa.cast %{{.*}} : (tensor<4xi8>) -> tensor<4xf32>
// CHECK: %[[AK:.*]] = tosa.sub %[[A]], %{{.*}}
// CHECK: %[[AS:.*]] = "tosa.const"() <{values = dense<3.000000e-01> : tensor<1xf32>}>
// CHECK: %[[DA:.*]] = tosa.mul %[[AK]], %[[AS]]
// CHECK-NOT: tosa.add %[[DA]]
// CHECK: %[[B:.*]] = tosa.cast %{{.*}} : (tensor<4xi8>) -> tensor<4xf32>
// CHECK: %[[BK:.*]] = tosa.sub %[[B]], %{{.*}}
// CHECK: %[[BS:.*]] = "tosa.const"() <{values = dense<0.699999988> : tensor<1xf32>}>
// CHECK: %[[DB:.*]] = tosa.mul %[[BK]], %[[BS]]
// CHECK-NEXT: %[[SUM:.*]] = tosa.add %[[DA]], %[[DB]]
func.func @add_scalar_loop(%arg0: tensor<4x!a>, %arg1: tensor<4x!b>) -> tensor<4x!out> {
  %x = quant.dcast %arg0 : tensor<4x!a> to tensor<4xf32>
  %y = quant.dcast %arg1 : tensor<4x!b> to tensor<4xf32>
  %s = tosa.add %x, %y {qfx.torch_kernel = "add_scalar_loop"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %q = quant.qcast %s : tensor<4xf32> to tensor<4x!out>
  return %q : tensor<4x!out>
}

// -----

!t = !quant.uniform<i8:f32, 0.5:3>

// Pools: max on the integers with no rescale (same qparams); a 2x2 average
// without padding sums q - zp with a depthwise convolution of ones, times
// float32 1/4 rounded half to even, plus the zero point (PyTorch's
// channels-last kernel). (Into other qparams: own-observer.mlir.)
// CHECK-LABEL: func.func @pools
// CHECK: %[[MAX:.*]] = tosa.max_pool2d %{{.*}} : (tensor<1x4x4x2xi8>) -> tensor<1x2x2x2xi8>
// CHECK-NOT: tosa.rescale %[[MAX]]
// CHECK: %[[ONES:.*]] = "tosa.const"() <{values = dense<1> : tensor<2x2x2x1xi8>}>
// CHECK: %[[SUM:.*]] = tosa.depthwise_conv2d %{{.*}}, %[[ONES]]
// CHECK: %[[M:.*]] = "tosa.const"() <{values = dense<2.500000e-01> : tensor<1x1x1x1xf32>}>
// CHECK: %[[F:.*]] = tosa.cast %[[SUM]]
// CHECK: tosa.mul %[[F]], %[[M]]
// CHECK: tosa.clamp %{{.*}} {max_val = 1.240000e+02 : f32, min_val = -1.310000e+02 : f32}
// CHECK: "tosa.const"() <{values = dense<3> : tensor<1x1x1x1xi32>}>
// CHECK-NOT: tosa.intdiv
func.func @pools(%arg0: tensor<1x4x4x2x!t>) -> (tensor<1x2x2x2x!t>, tensor<1x2x2x2x!t>) {
  %x = quant.dcast %arg0 : tensor<1x4x4x2x!t> to tensor<1x4x4x2xf32>
  %m = tosa.max_pool2d %x {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32>
  %qm = quant.qcast %m : tensor<1x2x2x2xf32> to tensor<1x2x2x2x!t>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %a = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x4x4x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x2xf32>
  %qa = quant.qcast %a : tensor<1x2x2x2xf32> to tensor<1x2x2x2x!t>
  return %qm, %qa : tensor<1x2x2x2x!t>, tensor<1x2x2x2x!t>
}

// -----

!t = !quant.uniform<u8:f32, 0.5:131>

// torch.mean (a composite) averages the stored integers and rounds ties to
// even, as PyTorch's quantized mean does, keeping the input's qparams: the
// int8 values (q - 128, an even offset) are widened, summed over the
// composite's axes (1 and 2: 6 elements), divided as (2 * sum + 257 * 6)
// over 12 with odd quotients stepping down on a tie, and the reduced axes
// dropped (keepdim = false).
// CHECK-LABEL: func.func @mean
// CHECK: %[[W:.*]] = tosa.cast %{{.*}} : (tensor<1x2x3x4xi8>) -> tensor<1x2x3x4xi32>
// CHECK: %[[S1:.*]] = tosa.reduce_sum %[[W]] {axis = 1 : i32} : (tensor<1x2x3x4xi32>) -> tensor<1x1x3x4xi32>
// CHECK: %[[S2:.*]] = tosa.reduce_sum %[[S1]] {axis = 2 : i32} : (tensor<1x1x3x4xi32>) -> tensor<1x1x1x4xi32>
// CHECK: %[[K:.*]] = "tosa.const"() <{values = dense<1542> : tensor<1x1x1x1xi32>}>
// CHECK: %[[NUM:.*]] = tosa.add %{{.*}}, %[[K]]
// CHECK: %[[D:.*]] = "tosa.const"() <{values = dense<12> : tensor<1x1x1x1xi32>}>
// CHECK: tosa.intdiv %[[NUM]], %[[D]]
// CHECK: tosa.reshape %{{.*}} : (tensor<1x1x1x4xi32>, !tosa.shape<2>) -> tensor<1x4xi32>
// CHECK-NOT: qfx.composite
// CHECK: return
func.func @mean(%arg0: tensor<1x2x3x4x!t>) -> tensor<1x4x!t> {
  %x = quant.dcast %arg0 : tensor<1x2x3x4x!t> to tensor<1x2x3x4xf32>
  %m = qfx.composite "torch.mean" (%x) attributes {composite_attributes = {axes = array<i64: 1, 2>, keepdim = false}} : (tensor<1x2x3x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%a: tensor<1x2x3x4xf32>):
    %s1 = tosa.reduce_sum %a {axis = 1 : i32} : (tensor<1x2x3x4xf32>) -> tensor<1x1x3x4xf32>
    %s2 = tosa.reduce_sum %s1 {axis = 2 : i32} : (tensor<1x1x3x4xf32>) -> tensor<1x1x1x4xf32>
    %k = "tosa.const"() <{values = dense<0.166666672> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32>
    %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %r = tosa.mul %s2, %k, %sh : (tensor<1x1x1x4xf32>, tensor<1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x1x1x4xf32>
    %shape = tosa.const_shape {values = dense<[1, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %o = tosa.reshape %r, %shape : (tensor<1x1x1x4xf32>, !tosa.shape<2>) -> tensor<1x4xf32>
    qfx.yield %o : tensor<1x4xf32>
  }
  %q = quant.qcast %m : tensor<1x4xf32> to tensor<1x4x!t>
  return %q : tensor<1x4x!t>
}

// -----

!a = !quant.uniform<i8:f32, 0.5:0>
!b = !quant.uniform<i8:f32, 0.25:0>

// concat requantizes the input whose qparams differ from the output's: with
// PyTorch's engines' requantization as its quantized cat does, dequantized
// ((q - z) * 0.25) and quantized again (times 1 / 0.5, ties to even, where
// tosa.rescale rounds them up: difffuzz 142097); with integer, by
// tosa.rescale.
// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.*]]: tensor<2x!quant.uniform<i8:f32, 5.000000e-01>>, %[[B:.*]]: tensor<2x!quant.uniform<i8:f32, 2.500000e-01>>)
// CHECK-DAG: %[[SA:.*]] = quant.scast %[[A]]
// CHECK-DAG: %[[SB:.*]] = quant.scast %[[B]]
// CHECK: tosa.cast %[[SB]] : (tensor<2xi8>) -> tensor<2xf32>
// CHECK: "tosa.const"() <{values = dense<2.000000e+00> : tensor<1xf32>}>
// CHECK: %[[RB:.*]] = tosa.cast %{{.*}} : (tensor<2xf32>) -> tensor<2xi8>
// CHECK: tosa.concat %[[SA]], %[[RB]] {axis = 0 : i32, qfx.quantized = !quant.uniform<i8:f32, 5.000000e-01>} : (tensor<2xi8>, tensor<2xi8>) -> tensor<4xi8>
// RESCALE-LABEL: func.func @concat
// RESCALE: %[[RB:.*]] = tosa.rescale
// RESCALE: tosa.concat %{{.*}}, %[[RB]]
func.func @concat(%arg0: tensor<2x!a>, %arg1: tensor<2x!b>) -> tensor<4x!a> {
  %x = quant.dcast %arg0 : tensor<2x!a> to tensor<2xf32>
  %y = quant.dcast %arg1 : tensor<2x!b> to tensor<2xf32>
  %c = tosa.concat %x, %y {axis = 0 : i32} : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  %q = quant.qcast %c : tensor<4xf32> to tensor<4x!a>
  return %q : tensor<4x!a>
}

// -----

!u = !quant.uniform<u8:f32, 0.5:130>

// Float zeros in a concat (the exporter's padding of an average pool that
// counts it, which PyTorch never observes) are the output's zero point: 130
// in u8, 2 in the int8 domain.
// CHECK-LABEL: func.func @concat_zero_padding
// CHECK: %[[Z0:.*]] = "tosa.const"() <{values = dense<2> : tensor<1x2xi8>}>
// CHECK: %[[Z1:.*]] = "tosa.const"() <{values = dense<2> : tensor<1x2xi8>}>
// CHECK: tosa.concat %[[Z0]], %{{.*}}, %[[Z1]] {axis = 0 : i32
func.func @concat_zero_padding(%arg0: tensor<3x2x!u>) -> tensor<5x2x!u> {
  %x = quant.dcast %arg0 : tensor<3x2x!u> to tensor<3x2xf32>
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1x2xf32>}> : () -> tensor<1x2xf32>
  %c = tosa.concat %z, %x, %z {axis = 0 : i32} : (tensor<1x2xf32>, tensor<3x2xf32>, tensor<1x2xf32>) -> tensor<5x2xf32>
  %q = quant.qcast %c : tensor<5x2xf32> to tensor<5x2x!u>
  return %q : tensor<5x2x!u>
}

// -----

!in = !quant.uniform<i8:f32, 0.0625:0>
!out = !quant.uniform<u8:f32, 0.00390625>

// sigmoid with PyTorch's fixed output qparams (1/256, u8 zero point 0) is a
// 256-entry table in the int8 domain: input -128 is -8.0, sigmoid 0.000335,
// 0 steps, stored as -128; input 0 is 0.5, 128 steps, stored as 0; input 127
// is 7.9375, 0.99964, 256 steps clamped to 255, stored as 127.
// CHECK-LABEL: func.func @sigmoid
// CHECK: %[[T:.*]] = "tosa.const"() <{values = dense<[-128, {{.*}}, 127]> : tensor<256xi8>}>
// CHECK: %[[R:.*]] = tosa.table %{{.*}}, %[[T]] {qfx.quantized = !quant.uniform<i8:f32, 3.906250e-03:-128>} : (tensor<4xi8>, tensor<256xi8>) -> tensor<4xi8>
// CHECK: tosa.rescale %[[R]], {{.*}} output_unsigned = true
func.func @sigmoid(%arg0: tensor<4x!in>) -> tensor<4x!out> {
  %x = quant.dcast %arg0 : tensor<4x!in> to tensor<4xf32>
  %s = tosa.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
  %q = quant.qcast %s : tensor<4xf32> to tensor<4x!out>
  return %q : tensor<4x!out>
}

// -----

!w = !quant.uniform<i8:f32:2, {0.5, 0.25}>

// A dynamically quantized Linear: the u8 run-time quantization (its zero
// point added before rounding, as oneDNN does) moved into i8 (its top bit
// flipped: v - 128) with the zero point - 128; an integer matmul; the
// zero-point term
// z * sum_k w (column sums 1 + 2 = 3 and -1 + 4 = 3) subtracted; then the
// engine's float epilogue and the ReLU. oneDNN (the default here): its
// scales are reciprocals, p = float(1 / s) * float(1 / ws) (the run-time
// scale an f64, PyTorch's double: 1 / s in double, rounded), and the bias
// enters the accumulator's domain: (float(acc) + bias * p) * (1 / p).
// CHECK-LABEL: func.func @dynamic_linear
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x2xf32>)
// CHECK: %[[S:.*]], %[[Z:.*]] = qfx.choose_qparams %[[X]] range [0, 255]
// CHECK: %[[U:.*]] = qfx.quantize %[[X]], %[[S]], %[[Z]] : (tensor<1x2x2xf32>, tensor<f64>, tensor<i32>) -> tensor<1x2x2xui8>
// CHECK: %[[K128:.*]] = "tosa.const"() <{values = dense<128> : tensor<i32>}>
// CHECK: %[[Z8:.*]] = tosa.sub %[[Z]], %[[K128]] : (tensor<i32>, tensor<i32>) -> tensor<i32>
// CHECK: %[[BITS:.*]] = tensor.bitcast %[[U]] : tensor<1x2x2xui8> to tensor<1x2x2xi8>
// CHECK: %[[TOP:.*]] = "tosa.const"() <{values = dense<-128> : tensor<1x1x1xi8>}>
// CHECK: %[[Q:.*]] = tosa.bitwise_xor %[[BITS]], %[[TOP]]
// CHECK: %[[W:.*]] = "tosa.const"() <{values = dense<{{\[\[\[}}1, -1], [2, 4]]]> : tensor<1x2x2xi8>}>
// CHECK: %[[ACC:.*]] = tosa.matmul %[[Q]], %[[W]], {{.*}} -> tensor<1x2x2xi32>
// CHECK: %[[SUMS:.*]] = "tosa.const"() <{values = dense<3> : tensor<1x1x2xi32>}>
// CHECK: %[[ZR:.*]] = tosa.reshape %[[Z8]]
// CHECK: %[[CORR:.*]] = tosa.mul %[[ZR]], %[[SUMS]]
// CHECK: %[[INT:.*]] = tosa.sub %[[ACC]], %[[CORR]]
// CHECK: %[[F:.*]] = tosa.cast %[[INT]] : (tensor<1x2x2xi32>) -> tensor<1x2x2xf32>
// CHECK: %[[SV:.*]] = tensor.extract %[[S]][] : tensor<f64>
// CHECK: %[[INV64:.*]] = arith.divf %{{.*}}, %[[SV]] : f64
// CHECK: %[[INV:.*]] = arith.truncf %[[INV64]] : f64 to f32
// CHECK: %[[INVT:.*]] = tensor.from_elements %[[INV]] : tensor<1x1x1xf32>
// CHECK: %[[WINV:.*]] = "tosa.const"() <{values = dense<[{{\[\[}}2.000000e+00, 4.000000e+00]]]> : tensor<1x1x2xf32>}>
// CHECK: %[[P:.*]] = tosa.mul %[[INVT]], %[[WINV]]
// CHECK: %[[BIAS:.*]] = "tosa.const"() <{values = dense<[{{\[\[}}5.000000e-01, -5.000000e-01]]]> : tensor<1x1x2xf32>}>
// CHECK: %[[BP:.*]] = tosa.mul %[[BIAS]], %[[P]]
// CHECK: %[[SUM:.*]] = tosa.add %[[F]], %[[BP]]
// CHECK: %[[RP:.*]] = tosa.reciprocal %[[P]]
// CHECK: %[[Y:.*]] = tosa.mul %[[SUM]], %[[RP]]
// CHECK: %[[R:.*]] = tosa.clamp %[[Y]] {max_val = 3.40282347E+38 : f32, min_val = 0.000000e+00 : f32}
// CHECK: return %[[R]]
// qnnpack: float(acc) * (float(s) * ws) + bias.
// QNN-LABEL: func.func @dynamic_linear
// QNN: %[[F:.*]] = tosa.cast %{{.*}} : (tensor<1x2x2xi32>) -> tensor<1x2x2xf32>
// QNN: %[[SV:.*]] = tensor.extract %{{.*}}[] : tensor<f64>
// QNN: %[[S32:.*]] = arith.truncf %[[SV]] : f64 to f32
// QNN: %[[ST:.*]] = tensor.from_elements %[[S32]] : tensor<1x1x1xf32>
// QNN: %[[WS:.*]] = "tosa.const"() <{values = dense<[{{\[\[}}5.000000e-01, 2.500000e-01]]]> : tensor<1x1x2xf32>}>
// QNN: %[[SCALES:.*]] = tosa.mul %[[ST]], %[[WS]]
// QNN: %[[Y:.*]] = tosa.mul %[[F]], %[[SCALES]]
// QNN: %[[B:.*]] = tosa.add %[[Y]], %{{.*}} : (tensor<1x2x2xf32>, tensor<1x1x2xf32>) -> tensor<1x2x2xf32>
// QNN: tosa.clamp %[[B]]
func.func @dynamic_linear(%x: tensor<1x2x2xf32>) -> tensor<1x2x2xf32> {
  %s, %z = qfx.choose_qparams %x range [0, 255] : tensor<1x2x2xf32> -> tensor<f64>, tensor<i32>
  %q = qfx.quantize %x, %s, %z : (tensor<1x2x2xf32>, tensor<f64>, tensor<i32>) -> tensor<1x2x2xui8>
  %d = qfx.dequantize %q, %s, %z : (tensor<1x2x2xui8>, tensor<f64>, tensor<i32>) -> tensor<1x2x2xf32>
  %wi = "tosa.const"() <{values = dense<[[[1, -1], [2, 4]]]> : tensor<1x2x2xi8>}> : () -> tensor<1x2x2xi8>
  %ws = quant.scast %wi : tensor<1x2x2xi8> to tensor<1x2x2x!w>
  %w = quant.dcast %ws : tensor<1x2x2x!w> to tensor<1x2x2xf32>
  %b = "tosa.const"() <{values = dense<[[[0.5, -0.5]]]> : tensor<1x1x2xf32>}> : () -> tensor<1x1x2xf32>
  %y = qfx.fused "linear_relu"(%d, %w, %b) : (tensor<1x2x2xf32>, tensor<1x2x2xf32>, tensor<1x1x2xf32>) -> tensor<1x2x2xf32> {
  ^bb0(%a: tensor<1x2x2xf32>, %aw: tensor<1x2x2xf32>, %ab: tensor<1x1x2xf32>):
    %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %m = tosa.matmul %a, %aw, %zp, %zp : (tensor<1x2x2xf32>, tensor<1x2x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2xf32>
    %r = tosa.add %m, %ab : (tensor<1x2x2xf32>, tensor<1x1x2xf32>) -> tensor<1x2x2xf32>
    %c = tosa.clamp %r {max_val = 3.40282347E+38 : f32, min_val = 0.0 : f32} : (tensor<1x2x2xf32>) -> tensor<1x2x2xf32>
    qfx.yield %c : tensor<1x2x2xf32>
  }
  return %y : tensor<1x2x2xf32>
}

// -----

!w4 = !quant.uniform<u4:f32:1, {0.5:8, 0.25:7, 1.0:0, 2.0:1, 0.125:15}>

// Weight-only: a matmul with a float input and a dequantized weight stays
// float, without a remark. 4-bit weights are stored two per byte (even
// element in the low nibble: 1 | 2 << 4 = 33, 3 | 15 << 4 = -13, 0) and
// unpacked by bit operations into int8 values of a [0, 15] type with the
// same qparams.
// CHECK-LABEL: func.func @weight_only_4bit
// CHECK: %[[P:.*]] = "tosa.const"() <{values = dense<{{\[}}[33], [-13], [0]]> : tensor<3x1xi8>}>
// CHECK: %[[LO:.*]] = tosa.bitwise_and %[[P]]
// CHECK: %[[SH:.*]] = tosa.logical_right_shift %[[P]]
// CHECK: %[[HI:.*]] = tosa.bitwise_and %[[SH]]
// CHECK: %[[PAIRS:.*]] = tosa.concat %[[LO]], %[[HI]] {axis = 1 : i32} : (tensor<3x1xi8>, tensor<3x1xi8>) -> tensor<3x2xi8>
// CHECK: %[[FLAT:.*]] = tosa.reshape %[[PAIRS]], %{{.*}} -> tensor<6xi8>
// CHECK: %[[FIVE:.*]] = tosa.slice %[[FLAT]], {{.*}} -> tensor<5xi8>
// CHECK: %[[W:.*]] = tosa.reshape %[[FIVE]], %{{.*}} -> tensor<1x5xi8>
// CHECK: %[[S:.*]] = quant.scast %[[W]] : tensor<1x5xi8> to tensor<1x5x!quant.uniform<u8<0:15>:f32:1, {5.000000e-01:8,2.500000e-01:7,1.000000e+00,2.000000e+00:1,1.250000e-01:15}>>
// CHECK: %[[D:.*]] = quant.dcast %[[S]]
// CHECK: tosa.matmul %{{.*}}, %{{.*}} : (tensor<1x2x1xf32>, tensor<1x1x5xf32>
func.func @weight_only_4bit(%x: tensor<1x2x1xf32>) -> tensor<1x2x5xf32> {
  %wi = "tosa.const"() <{values = dense<[[1, 2, 3, 15, 0]]> : tensor<1x5xi4>}> : () -> tensor<1x5xi4>
  %ws = quant.scast %wi : tensor<1x5xi4> to tensor<1x5x!w4>
  %w = quant.dcast %ws : tensor<1x5x!w4> to tensor<1x5xf32>
  %shape = tosa.const_shape {values = dense<[1, 1, 5]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %w3 = tosa.reshape %w, %shape : (tensor<1x5xf32>, !tosa.shape<3>) -> tensor<1x1x5xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.matmul %x, %w3, %zp, %zp : (tensor<1x2x1xf32>, tensor<1x1x5xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x5xf32>
  return %y : tensor<1x2x5xf32>
}

// -----

// float16: a weight's round trip through f16 is stored as an f16 constant
// (0.1 rounds to 0.0999755859), computed in f32.
// CHECK-LABEL: func.func @half_weight
// CHECK: %[[H:.*]] = "tosa.const"() <{values = dense<[9.997550e-02, -2.000000e+00]> : tensor<2xf16>}>
// CHECK: %[[F:.*]] = tosa.cast %[[H]] : (tensor<2xf16>) -> tensor<2xf32>
// CHECK: tosa.add %{{.*}}, %[[F]]
func.func @half_weight(%x: tensor<2xf32>) -> tensor<2xf32> {
  %w = "tosa.const"() <{values = dense<[0.1, -2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %h = tosa.cast %w : (tensor<2xf32>) -> tensor<2xf16>
  %f = tosa.cast %h : (tensor<2xf16>) -> tensor<2xf32>
  %y = tosa.add %x, %f : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %y : tensor<2xf32>
}

// -----

!t = !quant.uniform<i8:f32, 0.5>

// A batch norm on its own with a fused ReLU: per channel (axis 3), 256
// outputs computed as quantized::batch_norm + ReLU. Channel 0 is the
// identity (alpha 1, beta 0): q; channel 1 has alpha = rsqrt(4) * 2 = 1 and
// beta = (0.5 - 1 * 0.5 * 2) / 0.5 = -1: q - 1, and the ReLU clamps both at
// the zero point 0. Each channel's table is a line, so the lookup is integer
// arithmetic: clamp((q * M + B) >> 20, lo, hi) with M = 2^20 - 1 and
// B = 127 (channel 0: q * (2^20 - 1) + 127 = q * 2^20 + (127 - q)) and
// -2^20 + 127 (channel 1), between 0 and the channels' largest outputs 127
// and 126.
// CHECK-LABEL: func.func @batch_norm_relu
// CHECK: %[[WIDE:.*]] = tosa.cast %{{.*}} : (tensor<1x2x2x2xi8>) -> tensor<1x2x2x2xi32>
// CHECK: %[[M:.*]] = "tosa.const"() <{values = dense<1048575> : tensor<1x1x1x2xi32>}>
// CHECK: %[[MUL:.*]] = tosa.mul %[[WIDE]], %[[M]]
// CHECK: %[[B:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}127, -1048449]]]]> : tensor<1x1x1x2xi32>}>
// CHECK: %[[ADD:.*]] = tosa.add %[[MUL]], %[[B]]
// CHECK: %[[S:.*]] = "tosa.const"() <{values = dense<20> : tensor<1x1x1x1xi32>}>
// CHECK: %[[SHIFTED:.*]] = tosa.arithmetic_right_shift %[[ADD]], %[[S]] {round = false}
// CHECK: %[[LO:.*]] = "tosa.const"() <{values = dense<0> : tensor<1x1x1x2xi32>}>
// CHECK: %[[MAX:.*]] = tosa.maximum %[[SHIFTED]], %[[LO]]
// CHECK: %[[HI:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}127, 126]]]]> : tensor<1x1x1x2xi32>}>
// CHECK: %[[MIN:.*]] = tosa.minimum %[[MAX]], %[[HI]]
// CHECK: tosa.cast %[[MIN]] {{.*}} : (tensor<1x2x2x2xi32>) -> tensor<1x2x2x2xi8>
// CHECK-NOT: tosa.gather
// CHECK-NOT: qfx.fused
func.func @batch_norm_relu(%arg0: tensor<1x2x2x2x!t>) -> tensor<1x2x2x2x!t> {
  %x = quant.dcast %arg0 : tensor<1x2x2x2x!t> to tensor<1x2x2x2xf32>
  %r = qfx.fused "bn_relu2d" (%x) : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  ^bb0(%in: tensor<1x2x2x2xf32>):
    %bn = qfx.composite "torch.nn.BatchNorm2d" (%in) attributes {composite_attributes = {axis = 3 : i64, eps = 0.0 : f32, running_mean = dense<[0.0, 1.0]> : tensor<2xf32>, running_var = dense<[1.0, 4.0]> : tensor<2xf32>, weight = dense<[1.0, 2.0]> : tensor<2xf32>, bias = dense<[0.0, 0.5]> : tensor<2xf32>}} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
    ^bb0(%a: tensor<1x2x2x2xf32>):
      %s = "tosa.const"() <{values = dense<[[[[1.0, 1.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
      %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
      %m = tosa.mul %a, %s, %sh : (tensor<1x2x2x2xf32>, tensor<1x1x1x2xf32>, tensor<1xi8>) -> tensor<1x2x2x2xf32>
      %t = "tosa.const"() <{values = dense<[[[[0.0, -0.5]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
      %y = tosa.add %m, %t : (tensor<1x2x2x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x2x2x2xf32>
      qfx.yield %y : tensor<1x2x2x2xf32>
    }
    %c = tosa.clamp %bn {min_val = 0.0 : f32, max_val = 3.40282347e+38 : f32} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
    qfx.yield %c : tensor<1x2x2x2xf32>
  }
  %q = quant.qcast %r : tensor<1x2x2x2xf32> to tensor<1x2x2x2x!t>
  return %q : tensor<1x2x2x2x!t>
}

// -----

!t = !quant.uniform<i8:f32, 0.5>

// Steep channels still make lines. Channel 0 multiplies by 5 (alpha 5, beta
// 0: 5q, clamped at 0 and 127), channel 1 is the identity: M = 5 * 2^20 - 1
// needs multipliers beyond 2^22 (4 steps an input step), which the fit
// allows up to 2^23 with a shift of 20.
// CHECK-LABEL: func.func @batch_norm_relu_steep
// CHECK: %[[M:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}5242879, 1048575]]]]> : tensor<1x1x1x2xi32>}>
// CHECK: tosa.mul %{{.*}}, %[[M]]
// CHECK: %[[S:.*]] = "tosa.const"() <{values = dense<20> : tensor<1x1x1x1xi32>}>
// CHECK: tosa.arithmetic_right_shift %{{.*}}, %[[S]] {round = false}
// CHECK-NOT: tosa.gather
func.func @batch_norm_relu_steep(%arg0: tensor<1x2x2x2x!t>) -> tensor<1x2x2x2x!t> {
  %x = quant.dcast %arg0 : tensor<1x2x2x2x!t> to tensor<1x2x2x2xf32>
  %r = qfx.fused "bn_relu2d" (%x) : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  ^bb0(%in: tensor<1x2x2x2xf32>):
    %bn = qfx.composite "torch.nn.BatchNorm2d" (%in) attributes {composite_attributes = {axis = 3 : i64, eps = 0.0 : f32, running_mean = dense<[0.0, 0.0]> : tensor<2xf32>, running_var = dense<[1.0, 1.0]> : tensor<2xf32>, weight = dense<[5.0, 1.0]> : tensor<2xf32>, bias = dense<[0.0, 0.0]> : tensor<2xf32>}} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
    ^bb0(%a: tensor<1x2x2x2xf32>):
      %s = "tosa.const"() <{values = dense<[[[[5.0, 1.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
      %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
      %m = tosa.mul %a, %s, %sh : (tensor<1x2x2x2xf32>, tensor<1x1x1x2xf32>, tensor<1xi8>) -> tensor<1x2x2x2xf32>
      qfx.yield %m : tensor<1x2x2x2xf32>
    }
    %c = tosa.clamp %bn {min_val = 0.0 : f32, max_val = 3.40282347e+38 : f32} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
    qfx.yield %c : tensor<1x2x2x2xf32>
  }
  %q = quant.qcast %r : tensor<1x2x2x2xf32> to tensor<1x2x2x2x!t>
  return %q : tensor<1x2x2x2x!t>
}

// -----

!t = !quant.uniform<i8:f32, 0.5>

// Channel 0 multiplies by 20, beyond the slopes a shift of 20 allows (8):
// both channels' lines take the next shift, 16 (M = 20 * 2^16 - 1 and
// 2^16 - 1), not a lookup.
// CHECK-LABEL: func.func @batch_norm_relu_steeper
// CHECK: %[[M:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}1310719, 65535]]]]> : tensor<1x1x1x2xi32>}>
// CHECK: tosa.mul %{{.*}}, %[[M]]
// CHECK: %[[S:.*]] = "tosa.const"() <{values = dense<16> : tensor<1x1x1x1xi32>}>
// CHECK: tosa.arithmetic_right_shift %{{.*}}, %[[S]] {round = false}
// CHECK-NOT: tosa.gather
func.func @batch_norm_relu_steeper(%arg0: tensor<1x2x2x2x!t>) -> tensor<1x2x2x2x!t> {
  %x = quant.dcast %arg0 : tensor<1x2x2x2x!t> to tensor<1x2x2x2xf32>
  %r = qfx.fused "bn_relu2d" (%x) : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  ^bb0(%in: tensor<1x2x2x2xf32>):
    %bn = qfx.composite "torch.nn.BatchNorm2d" (%in) attributes {composite_attributes = {axis = 3 : i64, eps = 0.0 : f32, running_mean = dense<[0.0, 0.0]> : tensor<2xf32>, running_var = dense<[1.0, 1.0]> : tensor<2xf32>, weight = dense<[20.0, 1.0]> : tensor<2xf32>, bias = dense<[0.0, 0.0]> : tensor<2xf32>}} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
    ^bb0(%a: tensor<1x2x2x2xf32>):
      %s = "tosa.const"() <{values = dense<[[[[20.0, 1.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
      %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
      %m = tosa.mul %a, %s, %sh : (tensor<1x2x2x2xf32>, tensor<1x1x1x2xf32>, tensor<1xi8>) -> tensor<1x2x2x2xf32>
      qfx.yield %m : tensor<1x2x2x2xf32>
    }
    %c = tosa.clamp %bn {min_val = 0.0 : f32, max_val = 3.40282347e+38 : f32} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
    qfx.yield %c : tensor<1x2x2x2xf32>
  }
  %q = quant.qcast %r : tensor<1x2x2x2xf32> to tensor<1x2x2x2x!t>
  return %q : tensor<1x2x2x2x!t>
}

// -----

!t = !quant.uniform<i8:f32, 0.5>

// A composite whose body is elementwise with one constant per channel (a
// PReLU's slopes 0.5 and 2 along axis 2) lowers to one table per channel,
// looked up with tosa.gather at 256 * c + q + 128 (two slopes: not a line):
// channel 0 halves negative inputs (ties to even), channel 1 doubles them
// (saturating at -128).
// CHECK-LABEL: func.func @per_channel_table
// CHECK: %[[OFF:.*]] = "tosa.const"() <{values = dense<{{\[\[\[}}128, 384]]]> : tensor<1x1x2xi32>}>
// CHECK: %[[WIDE:.*]] = tosa.cast %{{.*}} : (tensor<1x3x2xi8>) -> tensor<1x3x2xi32>
// CHECK: %[[IDX:.*]] = tosa.add %[[WIDE]], %[[OFF]]
// CHECK: %[[FLAT:.*]] = tosa.reshape %[[IDX]], %{{.*}} -> tensor<1x6xi32>
// CHECK: %[[TABLE:.*]] = "tosa.const"() <{values = dense<{{\[\[}}[-64], [-64], [-63], [-62], [-62], [-62], [-61], [-60], [-60], [-60], [-59], [-58], [-58], [-58], [-57], [-56], [-56], [-56], [-55], [-54], [-54], [-54], [-53], [-52], [-52], [-52], [-51], [-50], [-50], [-50], [-49], [-48], [-48], [-48], [-47], [-46], [-46], [-46], [-45], [-44], [-44], [-44], [-43], [-42], [-42], [-42], [-41], [-40], [-40], [-40], [-39], [-38], [-38], [-38], [-37], [-36], [-36], [-36], [-35], [-34], [-34], [-34], [-33], [-32], [-32], [-32], [-31], [-30], [-30], [-30], [-29], [-28], [-28], [-28], [-27], [-26], [-26], [-26], [-25], [-24], [-24], [-24], [-23], [-22], [-22], [-22], [-21], [-20], [-20], [-20], [-19], [-18], [-18], [-18], [-17], [-16], [-16], [-16], [-15], [-14], [-14], [-14], [-13], [-12], [-12], [-12], [-11], [-10], [-10], [-10], [-9], [-8], [-8], [-8], [-7], [-6], [-6], [-6], [-5], [-4], [-4], [-4], [-3], [-2], [-2], [-2], [-1], [0], [0], [1], [2], [3], [4], [5], [6], [7], [8], [9], [10], [11], [12], [13], [14], [15], [16], [17], [18], [19], [20], [21], [22], [23], [24], [25], [26], [27], [28], [29], [30], [31], [32], [33], [34], [35], [36], [37], [38], [39], [40], [41], [42], [43], [44], [45], [46], [47], [48], [49], [50], [51], [52], [53], [54], [55], [56], [57], [58], [59], [60], [61], [62], [63], [64], [65], [66], [67], [68], [69], [70], [71], [72], [73], [74], [75], [76], [77], [78], [79], [80], [81], [82], [83], [84], [85], [86], [87], [88], [89], [90], [91], [92], [93], [94], [95], [96], [97], [98], [99], [100], [101], [102], [103], [104], [105], [106], [107], [108], [109], [110], [111], [112], [113], [114], [115], [116], [117], [118], [119], [120], [121], [122], [123], [124], [125], [126], [127], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-128], [-126], [-124], [-122], [-120], [-118], [-116], [-114], [-112], [-110], [-108], [-106], [-104], [-102], [-100], [-98], [-96], [-94], [-92], [-90], [-88], [-86], [-84], [-82], [-80], [-78], [-76], [-74], [-72], [-70], [-68], [-66], [-64], [-62], [-60], [-58], [-56], [-54], [-52], [-50], [-48], [-46], [-44], [-42], [-40], [-38], [-36], [-34], [-32], [-30], [-28], [-26], [-24], [-22], [-20], [-18], [-16], [-14], [-12], [-10], [-8], [-6], [-4], [-2], [0], [1], [2], [3], [4], [5], [6], [7], [8], [9], [10], [11], [12], [13], [14], [15], [16], [17], [18], [19], [20], [21], [22], [23], [24], [25], [26], [27], [28], [29], [30], [31], [32], [33], [34], [35], [36], [37], [38], [39], [40], [41], [42], [43], [44], [45], [46], [47], [48], [49], [50], [51], [52], [53], [54], [55], [56], [57], [58], [59], [60], [61], [62], [63], [64], [65], [66], [67], [68], [69], [70], [71], [72], [73], [74], [75], [76], [77], [78], [79], [80], [81], [82], [83], [84], [85], [86], [87], [88], [89], [90], [91], [92], [93], [94], [95], [96], [97], [98], [99], [100], [101], [102], [103], [104], [105], [106], [107], [108], [109], [110], [111], [112], [113], [114], [115], [116], [117], [118], [119], [120], [121], [122], [123], [124], [125], [126], [127]]]> : tensor<1x512x1xi8>}>
// CHECK: %[[G:.*]] = tosa.gather %[[TABLE]], %[[FLAT]]
// CHECK: tosa.reshape %[[G]], %{{.*}} -> tensor<1x3x2xi8>
// CHECK-NOT: qfx.composite
func.func @per_channel_table(%arg0: tensor<1x3x2x!t>) -> tensor<1x3x2x!t> {
  %x = quant.dcast %arg0 : tensor<1x3x2x!t> to tensor<1x3x2xf32>
  %p = qfx.composite "torch.nn.PReLU" (%x) : (tensor<1x3x2xf32>) -> tensor<1x3x2xf32> {
  ^bb0(%a: tensor<1x3x2xf32>):
    %zero = "tosa.const"() <{values = dense<0.0> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
    %pos = tosa.greater %a, %zero : (tensor<1x3x2xf32>, tensor<1x1x1xf32>) -> tensor<1x3x2xi1>
    %w = "tosa.const"() <{values = dense<[[[0.5, 2.0]]]> : tensor<1x1x2xf32>}> : () -> tensor<1x1x2xf32>
    %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %neg = tosa.mul %a, %w, %sh : (tensor<1x3x2xf32>, tensor<1x1x2xf32>, tensor<1xi8>) -> tensor<1x3x2xf32>
    %y = tosa.select %pos, %a, %neg : (tensor<1x3x2xi1>, tensor<1x3x2xf32>, tensor<1x3x2xf32>) -> tensor<1x3x2xf32>
    qfx.yield %y : tensor<1x3x2xf32>
  }
  %q = quant.qcast %p : tensor<1x3x2xf32> to tensor<1x3x2x!t>
  return %q : tensor<1x3x2x!t>
}

// -----

!t = !quant.uniform<u8:f32, 0.5:130>

// add of a scalar, as quantized::add.Scalar: c_q = round(2 / 0.5) = 4 moves
// the zero point to 126 and leaves the integers as they are; the result
// carries the kernel's qparams, not the observer's, to its dequantize.
// CHECK-LABEL: func.func @add_scalar
// CHECK-NOT: tosa.add
// CHECK-NOT: tosa.table
// CHECK: %[[Q:.*]] = quant.scast %{{.*}} : tensor<4xi8> to tensor<4x!quant.uniform<u8:f32, 5.000000e-01:126>>
// CHECK: quant.dcast %[[Q]] : tensor<4x!quant.uniform<u8:f32, 5.000000e-01:126>> to tensor<4xf32>
func.func @add_scalar(%arg0: tensor<4x!t>) -> tensor<4xf32> {
  %x = quant.dcast %arg0 : tensor<4x!t> to tensor<4xf32>
  %c = "tosa.const"() <{values = dense<2.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.add %x, %c : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  %q = quant.qcast %y : tensor<4xf32> to tensor<4x!t>
  %d = quant.dcast %q : tensor<4x!t> to tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

!t = !quant.uniform<i8:f32, 0.5>

// mul by a negative scalar, as quantized::mul.Scalar: scale |c| * s = 1,
// zero point 127 - 128 - 0 = -1, and each integer reflected,
// q' = 127 + (-128) - q = -1 - q: a table.
// CHECK-LABEL: func.func @mul_negative_scalar
// CHECK: tosa.table
// CHECK: quant.scast %{{.*}} : tensor<4xi8> to tensor<4x!quant.uniform<i8:f32, 1.000000e+00:-1>>
func.func @mul_negative_scalar(%arg0: tensor<4x!t>) -> tensor<4xf32> {
  %x = quant.dcast %arg0 : tensor<4x!t> to tensor<4xf32>
  %c = "tosa.const"() <{values = dense<-2.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %y = tosa.mul %x, %c, %sh : (tensor<4xf32>, tensor<1xf32>, tensor<1xi8>) -> tensor<4xf32>
  %q = quant.qcast %y : tensor<4xf32> to tensor<4x!t>
  %d = quant.dcast %q : tensor<4x!t> to tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

!s = !quant.uniform<i8:f32, 0.5>
!o = !quant.uniform<i8:f32, 0.00390625:-128>

// An add of a scalar after another pattern: c_q = round(-0.0078125 /
// 0.00390625) = -2 moves the zero point to -126 and passes the sigmoid's
// integers on, whose op keeps its own mark for quant-run --compare.
// CHECK-LABEL: func.func @add_scalar_after_a_pattern
// CHECK: tosa.table {{.*}}qfx.quantized = !quant.uniform<i8:f32, 3.906250e-03:-128>
// CHECK-NOT: tosa.table
// CHECK: quant.scast %{{.*}} : tensor<4xi8> to tensor<4x!quant.uniform<i8:f32, 3.906250e-03:-126>>
func.func @add_scalar_after_a_pattern(%arg0: tensor<4x!s>) -> tensor<4xf32> {
  %x = quant.dcast %arg0 : tensor<4x!s> to tensor<4xf32>
  %y = tosa.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
  %q = quant.qcast %y : tensor<4xf32> to tensor<4x!o>
  %d = quant.dcast %q : tensor<4x!o> to tensor<4xf32>
  %c = "tosa.const"() <{values = dense<-0.0078125> : tensor<1xf32>}> : () -> tensor<1xf32>
  %a = tosa.add %d, %c : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  %qa = quant.qcast %a : tensor<4xf32> to tensor<4x!o>
  %da = quant.dcast %qa : tensor<4x!o> to tensor<4xf32>
  return %da : tensor<4xf32>
}

// -----

!t = !quant.uniform<i8:f32, 0.5:3>
!s = !quant.uniform<i8:f32, 0.25:-1>
!o = !quant.uniform<i8:f32, 0.1:0>

// PyTorch lowers a pattern whose row shares the input's observer or fixes
// the output's on the quantized input and drops the quantize after it: the
// output has the kernel's qparams, not the observer's, where they differ
// (the op configured None, the next pattern observing its output). An
// average pool and a ReLU6 keep their input's, a cat its first input's (the
// second requantized into them), a sigmoid has its fixed 1/256 and -128.
// CHECK-LABEL: func.func @kernel_qparams
// CHECK: %[[X:.*]] = quant.scast %arg0
// CHECK: %[[Y:.*]] = quant.scast %arg1
// CHECK: quant.scast %{{.*}} : tensor<1x2x2x2xi8> to tensor<1x2x2x2x!quant.uniform<i8:f32, 5.000000e-01:3>>
// CHECK: quant.scast %{{.*}} : tensor<1x4x4x2xi8> to tensor<1x4x4x2x!quant.uniform<i8:f32, 5.000000e-01:3>>
// CHECK: quant.scast %{{.*}} : tensor<1x4x4x2xi8> to tensor<1x4x4x2x!quant.uniform<i8:f32, 3.906250e-03:-128>>
// CHECK: tosa.cast %[[Y]] : (tensor<1x4x4x2xi8>) -> tensor<1x4x4x2xf32>
// CHECK: %[[YQ:.*]] = tosa.cast %{{.*}} : (tensor<1x4x4x2xi32>) -> tensor<1x4x4x2xi8>
// CHECK: %[[CAT:.*]] = tosa.concat %[[X]], %[[YQ]]
// CHECK: quant.scast %[[CAT]] : tensor<1x8x4x2xi8> to tensor<1x8x4x2x!quant.uniform<i8:f32, 5.000000e-01:3>>
func.func @kernel_qparams(%arg0: tensor<1x4x4x2x!t>, %arg1: tensor<1x4x4x2x!s>) -> (tensor<1x2x2x2xf32>, tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>, tensor<1x8x4x2xf32>) {
  %x = quant.dcast %arg0 : tensor<1x4x4x2x!t> to tensor<1x4x4x2xf32>
  %y = quant.dcast %arg1 : tensor<1x4x4x2x!s> to tensor<1x4x4x2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %a = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x4x4x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x2xf32>
  %qa = quant.qcast %a : tensor<1x2x2x2xf32> to tensor<1x2x2x2x!o>
  %da = quant.dcast %qa : tensor<1x2x2x2x!o> to tensor<1x2x2x2xf32>
  %r = tosa.clamp %x {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %qr = quant.qcast %r : tensor<1x4x4x2xf32> to tensor<1x4x4x2x!o>
  %dr = quant.dcast %qr : tensor<1x4x4x2x!o> to tensor<1x4x4x2xf32>
  %g = tosa.sigmoid %x : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %qg = quant.qcast %g : tensor<1x4x4x2xf32> to tensor<1x4x4x2x!o>
  %dg = quant.dcast %qg : tensor<1x4x4x2x!o> to tensor<1x4x4x2xf32>
  %c = tosa.concat %x, %y {axis = 1 : i32} : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x8x4x2xf32>
  %qc = quant.qcast %c : tensor<1x8x4x2xf32> to tensor<1x8x4x2x!o>
  %dc = quant.dcast %qc : tensor<1x8x4x2x!o> to tensor<1x8x4x2xf32>
  return %da, %dr, %dg, %dc : tensor<1x2x2x2xf32>, tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>, tensor<1x8x4x2xf32>
}

// -----

!t = !quant.uniform<i8:f32, 0.5:3>
!o = !quant.uniform<i8:f32, 0.1:0>

// PyTorch keeps the kernel's qparams only for an op that reads a dequantize
// itself: a transpose after a reshape (x.flatten(2).transpose(1, 2)) runs in
// float and is quantized with the observer's qparams, as PyTorch computes
// it: (q - 3) * 0.5 in float32, times 1 / 0.1, rounded half to even (a
// rescale rounds ties otherwise: difffuzz 101964); with
// requantization=integer, a tosa.rescale.
// CHECK-LABEL: func.func @kernel_qparams_after_data_movement
// CHECK-NOT: tosa.rescale
// CHECK: "tosa.const"() <{values = dense<5.000000e-01> : tensor<1x1x1xf32>}>
// CHECK: tosa.mul
// CHECK: "tosa.const"() <{values = dense<1.000000e+01> : tensor<1x1x1xf32>}>
// CHECK: tosa.mul
// CHECK: tosa.clamp
// CHECK: quant.scast %{{.*}} : tensor<1x8x2xi8> to tensor<1x8x2x!quant.uniform<i8:f32, 1.000000e-01>>
// RESCALE-LABEL: func.func @kernel_qparams_after_data_movement
// RESCALE: tosa.rescale
// RESCALE-NOT: tosa.mul
// RESCALE: quant.scast
func.func @kernel_qparams_after_data_movement(%arg0: tensor<1x2x2x4x!t>) -> tensor<1x8x2xf32> {
  %x = quant.dcast %arg0 : tensor<1x2x2x4x!t> to tensor<1x2x2x4xf32>
  %s = tosa.const_shape {values = dense<[1, 2, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %r = tosa.reshape %x, %s {qfx.origin = "torch.flatten"} : (tensor<1x2x2x4xf32>, !tosa.shape<3>) -> tensor<1x2x8xf32>
  %t = tosa.transpose %r {perms = array<i32: 0, 2, 1>} : (tensor<1x2x8xf32>) -> tensor<1x8x2xf32>
  %q = quant.qcast %t : tensor<1x8x2xf32> to tensor<1x8x2x!o>
  %d = quant.dcast %q : tensor<1x8x2x!o> to tensor<1x8x2xf32>
  return %d : tensor<1x8x2xf32>
}

// -----

!t = !quant.uniform<i8:f32, 0.5:3>
!o = !quant.uniform<i8:f32, 0.1:0>

// The exporter's zero padding of an average pool that counts it (an
// origin-less concat of the input and zero constants, part of the pool) is
// data movement: replayed on the integers with the zero point, so a pool
// configured None between quantized ops runs on its input's integers and
// keeps their qparams, as PyTorch's kernel does (difffuzz seeds 50121,
// 60086).
// CHECK-LABEL: func.func @padding_concat_is_data_movement
// CHECK: %[[ZP:.*]] = "tosa.const"() <{values = dense<3> : tensor<1x1x4x1xi8>}>
// CHECK: tosa.concat %[[ZP]], %{{.*}}, %[[ZP]] {axis = 1 : i32, qfx.part_of = "torch.nn.AvgPool2d"} : (tensor<1x1x4x1xi8>, tensor<1x4x4x1xi8>, tensor<1x1x4x1xi8>) -> tensor<1x6x4x1xi8>
// CHECK-NOT: 1.000000e-01
// CHECK: quant.scast %{{.*}} : tensor<1x3x2x1xi8> to tensor<1x3x2x1x!quant.uniform<i8:f32, 5.000000e-01:3>>
func.func @padding_concat_is_data_movement(%arg0: tensor<1x4x4x1x!t>) -> tensor<1x3x2x1xf32> {
  %x = quant.dcast %arg0 : tensor<1x4x4x1x!t> to tensor<1x4x4x1xf32>
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1x1x4x1xf32>}> : () -> tensor<1x1x4x1xf32>
  %c = tosa.concat %z, %x, %z {axis = 1 : i32, qfx.part_of = "torch.nn.AvgPool2d"} : (tensor<1x1x4x1xf32>, tensor<1x4x4x1xf32>, tensor<1x1x4x1xf32>) -> tensor<1x6x4x1xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %a = tosa.avg_pool2d %c, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>, qfx.origin = "torch.nn.AvgPool2d"} : (tensor<1x6x4x1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x2x1xf32>
  %q = quant.qcast %a : tensor<1x3x2x1xf32> to tensor<1x3x2x1x!o>
  %d = quant.dcast %q : tensor<1x3x2x1x!o> to tensor<1x3x2x1xf32>
  return %d : tensor<1x3x2x1xf32>
}

// -----

!t = !quant.uniform<i8:f32, 0.5:3>
!o = !quant.uniform<i8:f32, 0.1:0>

// The reshapes and tiles one PyTorch op became (a nearest interpolate: the
// same origin, module and node) are that op: the last reads the dequantize
// through the others and keeps its kernel's qparams (difffuzz seed 50315).
// CHECK-LABEL: func.func @kernel_qparams_through_one_ops_data_movement
// CHECK-NOT: tosa.rescale
// CHECK: quant.scast %{{.*}} : tensor<1x2x4x1xi8> to tensor<1x2x4x1x!quant.uniform<i8:f32, 5.000000e-01:3>>
func.func @kernel_qparams_through_one_ops_data_movement(%arg0: tensor<1x2x2x1x!t>) -> tensor<1x2x4x1xf32> {
  %x = quant.dcast %arg0 : tensor<1x2x2x1x!t> to tensor<1x2x2x1xf32>
  %s = tosa.const_shape {values = dense<[1, 2, 2, 1, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %r = tosa.reshape %x, %s {qfx.origin = "torch.nn.functional.interpolate", qfx.module_name = "", qfx.node_name = "interpolate"} : (tensor<1x2x2x1xf32>, !tosa.shape<5>) -> tensor<1x2x2x1x1xf32>
  %m = tosa.const_shape {values = dense<[1, 1, 1, 1, 2]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %t = tosa.tile %r, %m {qfx.origin = "torch.nn.functional.interpolate", qfx.module_name = "", qfx.node_name = "interpolate"} : (tensor<1x2x2x1x1xf32>, !tosa.shape<5>) -> tensor<1x2x2x1x2xf32>
  %s2 = tosa.const_shape {values = dense<[1, 2, 4, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %r2 = tosa.reshape %t, %s2 {qfx.origin = "torch.nn.functional.interpolate", qfx.module_name = "", qfx.node_name = "interpolate"} : (tensor<1x2x2x1x2xf32>, !tosa.shape<4>) -> tensor<1x2x4x1xf32>
  %q = quant.qcast %r2 : tensor<1x2x4x1xf32> to tensor<1x2x4x1x!o>
  %d = quant.dcast %q : tensor<1x2x4x1x!o> to tensor<1x2x4x1xf32>
  return %d : tensor<1x2x4x1xf32>
}

// -----

!t = !quant.uniform<i8:f32, 0.5:3>
!o = !quant.uniform<i8:f32, 0.1:0>

// qfx's own layout changes (no qfx.origin) are not PyTorch's ops: a flatten
// of a tensor held NHWC reads the dequantize through the transpose to
// PyTorch's order and keeps its kernel's qparams.
// CHECK-LABEL: func.func @kernel_qparams_through_layout_change
// CHECK-NOT: tosa.rescale
// CHECK: quant.scast %{{.*}} : tensor<1x16xi8> to tensor<1x16x!quant.uniform<i8:f32, 5.000000e-01:3>>
func.func @kernel_qparams_through_layout_change(%arg0: tensor<1x2x2x4x!t>) -> tensor<1x16xf32> {
  %x = quant.dcast %arg0 : tensor<1x2x2x4x!t> to tensor<1x2x2x4xf32>
  %t = tosa.transpose %x {perms = array<i32: 0, 3, 1, 2>} : (tensor<1x2x2x4xf32>) -> tensor<1x4x2x2xf32>
  %s = tosa.const_shape {values = dense<[1, 16]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %t, %s {qfx.origin = "torch.flatten"} : (tensor<1x4x2x2xf32>, !tosa.shape<2>) -> tensor<1x16xf32>
  %q = quant.qcast %r : tensor<1x16xf32> to tensor<1x16x!o>
  %d = quant.dcast %q : tensor<1x16x!o> to tensor<1x16xf32>
  return %d : tensor<1x16xf32>
}

// -----

!in = !quant.uniform<u8:f32, 0.5:130>
!out = !quant.uniform<u8:f32, 1.0:10>
!w = !quant.uniform<i8:f32, 0.1>

// qnnpack quantizes the bias as quantize_per_tensor to qint32 does: 0.775
// times the float32 reciprocal of s_in * s_w = 0.05 is 15.5, rounded half
// to even 16 (0.775 / 0.05 in float32 is 15.499999: 15).
// QNN-LABEL: func.func @qnnpack_bias_rounding
// QNN: "tosa.const"() <{values = dense<16> : tensor<1xi32>}>
// QNN: tosa.conv2d
func.func @qnnpack_bias_rounding(%arg0: tensor<1x2x2x1x!in>) -> tensor<1x2x2x1x!out> {
  %x = quant.dcast %arg0 : tensor<1x2x2x1x!in> to tensor<1x2x2x1xf32>
  %wi = "tosa.const"() <{values = dense<3> : tensor<1x1x1x1xi8>}> : () -> tensor<1x1x1x1xi8>
  %ws = quant.scast %wi : tensor<1x1x1x1xi8> to tensor<1x1x1x1x!w>
  %w = quant.dcast %ws : tensor<1x1x1x1x!w> to tensor<1x1x1x1xf32>
  %b = "tosa.const"() <{values = dense<0.775> : tensor<1xf32>}> : () -> tensor<1xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x2x2x1xf32>, tensor<1x1x1x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x1xf32>
  %q = quant.qcast %c : tensor<1x2x2x1xf32> to tensor<1x2x2x1x!out>
  return %q : tensor<1x2x2x1x!out>
}
