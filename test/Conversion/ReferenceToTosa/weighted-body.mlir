// A composite whose body is data movement around one weighted op (the
// exporter's torch.nn.ConvTranspose3d: a conv3d over the zero-spread input,
// its kernel reversed) lowers as that op: the padding replayed on the
// integers with the input's zero point (0.0 exactly), the kernel reversed in
// the int8 constant, the conv3d requantized with the composite's output
// qparams. A body with other float arithmetic stays float.
// RUN: quant-opt %s --qfx-lower=emit-tosa=true --split-input-file --verify-diagnostics | FileCheck %s

!t = !quant.uniform<i8:f32, 0.5:3>
!w = !quant.uniform<i8:f32, 0.25>
!o = !quant.uniform<i8:f32, 0.125:-2>

// CHECK-LABEL: func.func @conv_transpose3d
// CHECK: %[[X:.*]] = quant.scast %arg0 {{.*}} to tensor<1x1x1x2x1xi8>
// CHECK: %[[V1:.*]] = tosa.reshape %[[X]]
// CHECK: %[[ZP:.*]] = "tosa.const"() <{values = dense<3> : tensor<1xi8>}>
// CHECK: tosa.pad %[[V1]], %{{.*}}, %[[ZP]] : (tensor<2x1x1xi8>, !tosa.shape<6>, tensor<1xi8>) -> tensor<2x2x1xi8>
// CHECK: tosa.slice {{.*}} -> tensor<1x1x1x3x1xi8>
// CHECK: %[[ZP2:.*]] = "tosa.const"() <{values = dense<3> : tensor<1xi8>}>
// CHECK: tosa.pad %{{.*}}, %{{.*}}, %[[ZP2]] : (tensor<1x3x1xi8>, !tosa.shape<6>, tensor<1xi8>) -> tensor<1x5x1xi8>
// The conv3d, as a conv2d (its one depth tap: qfx-lower.mlir).
// CHECK: %[[IN:.*]] = tosa.reshape {{.*}} -> tensor<1x1x5x1xi8>
// Weights [0.5, -0.25] and [1, 0.75] over 0.25, reversed along KW.
// CHECK: %[[W:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}-1], [2]]], {{\[\[\[}}3], [4]]]]> : tensor<2x1x2x1xi8>}>
// CHECK: %[[ACC:.*]] = tosa.conv2d %[[IN]], %[[W]], {{.*}} -> tensor<1x1x4x2xi32>
// CHECK: tosa.cast %[[ACC]]
// CHECK: tosa.cast {{.*}} : (tensor<1x1x4x2xf32>) -> tensor<1x1x4x2xi8>
// CHECK: tosa.reshape {{.*}} {qfx.quantized = !quant.uniform<i8:f32, 1.250000e-01:-2>} : (tensor<1x1x4x2xi8>, !tosa.shape<5>) -> tensor<1x1x1x4x2xi8>
// CHECK-NOT: qfx.composite
// CHECK-NOT: -> tensor<1x1x1x5x1xf32>
func.func @conv_transpose3d(%arg0: tensor<1x1x1x2x1x!t>) -> tensor<1x1x1x4x2x!o> {
  %x = quant.dcast %arg0 : tensor<1x1x1x2x1x!t> to tensor<1x1x1x2x1xf32>
  %wf = "tosa.const"() <{values = dense<[[[[[0.5], [-0.25]]]], [[[[1.0], [0.75]]]]]> : tensor<2x1x1x2x1xf32>}> : () -> tensor<2x1x1x2x1xf32>
  %wq = quant.qcast %wf : tensor<2x1x1x2x1xf32> to tensor<2x1x1x2x1x!w>
  %w = quant.dcast %wq : tensor<2x1x1x2x1x!w> to tensor<2x1x1x2x1xf32>
  %b = "tosa.const"() <{values = dense<[0.1, -0.2]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %y = qfx.composite "torch.nn.ConvTranspose3d"(%x, %w, %b) attributes {composite_attributes = {output_padding = array<i64: 0, 0, 0>, padding = array<i64: 0, 0, 0>, stride = array<i64: 1, 1, 2>}} : (tensor<1x1x1x2x1xf32>, tensor<2x1x1x2x1xf32>, tensor<2xf32>) -> tensor<1x1x1x4x2xf32> {
  ^bb0(%in: tensor<1x1x1x2x1xf32>, %kernel: tensor<2x1x1x2x1xf32>, %bias: tensor<2xf32>):
    // Stride 2 along W: a zero after each element (the last one sliced off),
    // then kernel - 1 = 1 zero at each end.
    %s1 = tosa.const_shape {values = dense<[2, 1, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %v1 = tosa.reshape %in, %s1 : (tensor<1x1x1x2x1xf32>, !tosa.shape<3>) -> tensor<2x1x1xf32>
    %p1 = tosa.const_shape {values = dense<[0, 0, 0, 1, 0, 0]> : tensor<6xindex>} : () -> !tosa.shape<6>
    %zero = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %spread = tosa.pad %v1, %p1, %zero : (tensor<2x1x1xf32>, !tosa.shape<6>, tensor<1xf32>) -> tensor<2x2x1xf32>
    %s2 = tosa.const_shape {values = dense<[1, 1, 1, 4, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %v2 = tosa.reshape %spread, %s2 : (tensor<2x2x1xf32>, !tosa.shape<5>) -> tensor<1x1x1x4x1xf32>
    %start = tosa.const_shape {values = dense<0> : tensor<5xindex>} : () -> !tosa.shape<5>
    %size = tosa.const_shape {values = dense<[1, 1, 1, 3, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %cut = tosa.slice %v2, %start, %size : (tensor<1x1x1x4x1xf32>, !tosa.shape<5>, !tosa.shape<5>) -> tensor<1x1x1x3x1xf32>
    %s3 = tosa.const_shape {values = dense<[1, 3, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %v3 = tosa.reshape %cut, %s3 : (tensor<1x1x1x3x1xf32>, !tosa.shape<3>) -> tensor<1x3x1xf32>
    %p2 = tosa.const_shape {values = dense<[0, 0, 1, 1, 0, 0]> : tensor<6xindex>} : () -> !tosa.shape<6>
    %edges = tosa.pad %v3, %p2, %zero : (tensor<1x3x1xf32>, !tosa.shape<6>, tensor<1xf32>) -> tensor<1x5x1xf32>
    %s4 = tosa.const_shape {values = dense<[1, 1, 1, 5, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %v4 = tosa.reshape %edges, %s4 : (tensor<1x5x1xf32>, !tosa.shape<5>) -> tensor<1x1x1x5x1xf32>
    %flipped = tosa.reverse %kernel {axis = 3 : i32} : (tensor<2x1x1x2x1xf32>) -> tensor<2x1x1x2x1xf32>
    %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %r = tosa.conv3d %v4, %flipped, %bias, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1, 1>, pad = array<i64: 0, 0, 0, 0, 0, 0>, stride = array<i64: 1, 1, 1>} : (tensor<1x1x1x5x1xf32>, tensor<2x1x1x2x1xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x4x2xf32>
    qfx.yield %r : tensor<1x1x1x4x2xf32>
  }
  %q = quant.qcast %y : tensor<1x1x1x4x2xf32> to tensor<1x1x1x4x2x!o>
  return %q : tensor<1x1x1x4x2x!o>
}

// -----

!t = !quant.uniform<i8:f32, 0.5:3>
!w = !quant.uniform<i8:f32, 0.25>
!o = !quant.uniform<i8:f32, 0.125:-2>

// A padding with 1.0 is not data movement on integers: it stays float.
// CHECK-LABEL: func.func @not_data_movement
// CHECK: qfx.composite "torch.nn.ConvTranspose3d"
func.func @not_data_movement(%arg0: tensor<1x1x1x2x1x!t>) -> tensor<1x1x1x4x2x!o> {
  %x = quant.dcast %arg0 : tensor<1x1x1x2x1x!t> to tensor<1x1x1x2x1xf32>
  %wf = "tosa.const"() <{values = dense<[[[[[0.5], [-0.25]]]], [[[[1.0], [0.75]]]]]> : tensor<2x1x1x2x1xf32>}> : () -> tensor<2x1x1x2x1xf32>
  %wq = quant.qcast %wf : tensor<2x1x1x2x1xf32> to tensor<2x1x1x2x1x!w>
  %w = quant.dcast %wq : tensor<2x1x1x2x1x!w> to tensor<2x1x1x2x1xf32>
  %b = "tosa.const"() <{values = dense<[0.1, -0.2]> : tensor<2xf32>}> : () -> tensor<2xf32>
  // expected-remark @+1 {{runs in float: the body of 'qfx.composite "torch.nn.ConvTranspose3d"' is not data movement around one weighted op}}
  %y = qfx.composite "torch.nn.ConvTranspose3d"(%x, %w, %b) attributes {composite_attributes = {output_padding = array<i64: 0, 0, 0>, padding = array<i64: 0, 0, 0>, stride = array<i64: 1, 1, 2>}} : (tensor<1x1x1x2x1xf32>, tensor<2x1x1x2x1xf32>, tensor<2xf32>) -> tensor<1x1x1x4x2xf32> {
  ^bb0(%in: tensor<1x1x1x2x1xf32>, %kernel: tensor<2x1x1x2x1xf32>, %bias: tensor<2xf32>):
    // Stride 2 along W: a zero after each element (the last one sliced off),
    // then kernel - 1 = 1 zero at each end.
    %s1 = tosa.const_shape {values = dense<[2, 1, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %v1 = tosa.reshape %in, %s1 : (tensor<1x1x1x2x1xf32>, !tosa.shape<3>) -> tensor<2x1x1xf32>
    %p1 = tosa.const_shape {values = dense<[0, 0, 0, 1, 0, 0]> : tensor<6xindex>} : () -> !tosa.shape<6>
    %zero = "tosa.const"() <{values = dense<1.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %spread = tosa.pad %v1, %p1, %zero : (tensor<2x1x1xf32>, !tosa.shape<6>, tensor<1xf32>) -> tensor<2x2x1xf32>
    %s2 = tosa.const_shape {values = dense<[1, 1, 1, 4, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %v2 = tosa.reshape %spread, %s2 : (tensor<2x2x1xf32>, !tosa.shape<5>) -> tensor<1x1x1x4x1xf32>
    %start = tosa.const_shape {values = dense<0> : tensor<5xindex>} : () -> !tosa.shape<5>
    %size = tosa.const_shape {values = dense<[1, 1, 1, 3, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %cut = tosa.slice %v2, %start, %size : (tensor<1x1x1x4x1xf32>, !tosa.shape<5>, !tosa.shape<5>) -> tensor<1x1x1x3x1xf32>
    %s3 = tosa.const_shape {values = dense<[1, 3, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
    %v3 = tosa.reshape %cut, %s3 : (tensor<1x1x1x3x1xf32>, !tosa.shape<3>) -> tensor<1x3x1xf32>
    %p2 = tosa.const_shape {values = dense<[0, 0, 1, 1, 0, 0]> : tensor<6xindex>} : () -> !tosa.shape<6>
    %edges = tosa.pad %v3, %p2, %zero : (tensor<1x3x1xf32>, !tosa.shape<6>, tensor<1xf32>) -> tensor<1x5x1xf32>
    %s4 = tosa.const_shape {values = dense<[1, 1, 1, 5, 1]> : tensor<5xindex>} : () -> !tosa.shape<5>
    %v4 = tosa.reshape %edges, %s4 : (tensor<1x5x1xf32>, !tosa.shape<5>) -> tensor<1x1x1x5x1xf32>
    %flipped = tosa.reverse %kernel {axis = 3 : i32} : (tensor<2x1x1x2x1xf32>) -> tensor<2x1x1x2x1xf32>
    %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %r = tosa.conv3d %v4, %flipped, %bias, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1, 1>, pad = array<i64: 0, 0, 0, 0, 0, 0>, stride = array<i64: 1, 1, 1>} : (tensor<1x1x1x5x1xf32>, tensor<2x1x1x2x1xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x1x4x2xf32>
    qfx.yield %r : tensor<1x1x1x4x2xf32>
  }
  %q = quant.qcast %y : tensor<1x1x1x4x2xf32> to tensor<1x1x1x4x2x!o>
  return %q : tensor<1x1x1x4x2x!o>
}
