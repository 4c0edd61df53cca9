// RUN: quant-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(qfx-float-island-tables))" | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t && %python %S/Inputs/float-island-tables.py write %t
// RUN: quant-run %t/table.mlir --input=%t/x.npy -o %t/table.npy
// RUN: quant-run %t/float.mlir --input=%t/x.npy -o %t/float.npy
// RUN: quant-run %t/gelu-table.mlir --input=%t/x.npy -o %t/gelu-table.npy
// RUN: quant-run %t/gelu-float.mlir --input=%t/x.npy -o %t/gelu-float.npy
// RUN: %python %S/Inputs/float-island-tables.py check %t | FileCheck %s --check-prefix=SAME

// In quant-run's pipeline, a SiLU between an int8 per-tensor dequantization
// and quantization (a table) gives the same bytes as the same SiLU kept in
// float (per-axis input qparams, equal on every channel), on every int8
// value; so does a GELU, whose table qfx-lower-gelu computes as it computes
// the activation kept in float (PyTorch's kernel).
// SAME: {{^}}equal, {{[0-9]+}} distinct outputs
// SAME: gelu-equal, {{[0-9]+}} distinct outputs

// The SiLU becomes the lookup of the activation's bytes in the composite's
// values on the 256 int8 values, computed as a [1, 1, 1, 256] tensor (the
// composite and its body retyped to it).
// CHECK-LABEL: func.func @silu
// CHECK:      %[[IN:.*]] = quant.scast %arg0
// CHECK:      %[[LEVELS:.*]] = "tosa.const"() <{values = dense<"0x808182{{[0-9A-F]*}}7D7E7F"> : tensor<1x1x1x256xi8>}>
// CHECK-NEXT: %[[LQ:.*]] = quant.scast %[[LEVELS]] : tensor<1x1x1x256xi8> to tensor<1x1x1x256x!quant.uniform<u8:f32, 3.000000e-02:63>>
// CHECK-NEXT: %[[LF:.*]] = quant.dcast %[[LQ]] : {{.*}} to tensor<1x1x1x256xf32>
// CHECK-NEXT: %[[C:.*]] = qfx.composite "torch.nn.SiLU"(%[[LF]]) {{.*}}: (tensor<1x1x1x256xf32>) -> tensor<1x1x1x256xf32> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<1x1x1x256xf32>):
// CHECK-NEXT: %[[SIG:.*]] = tosa.sigmoid %[[A]] : (tensor<1x1x1x256xf32>) -> tensor<1x1x1x256xf32>
// CHECK-NEXT: %[[SHIFT:.*]] = "tosa.const"
// CHECK-NEXT: %[[MUL:.*]] = tosa.mul %[[A]], %[[SIG]], %[[SHIFT]] : {{.*}} -> tensor<1x1x1x256xf32>
// CHECK-NEXT: qfx.yield %[[MUL]] : tensor<1x1x1x256xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[OQ:.*]] = quant.qcast %[[C]] : tensor<1x1x1x256xf32> to tensor<1x1x1x256x!quant.uniform<u8:f32, 1.700000e-02:16>>
// CHECK-NEXT: %[[OB:.*]] = quant.scast %[[OQ]] : {{.*}} to tensor<1x1x1x256xi8>
// CHECK:      %[[TABLE:.*]] = tosa.reshape %[[OB]], {{.*}} -> tensor<256xi8>
// CHECK-NEXT: %[[BYTES:.*]] = quant.scast %[[IN]] : {{.*}} to tensor<1x8x8x64xi8>
// CHECK-NEXT: %[[LOOKED:.*]] = tosa.table %[[BYTES]], %[[TABLE]]
// CHECK-NEXT: quant.scast %[[LOOKED]] : tensor<1x8x8x64xi8> to tensor<1x8x8x64x!quant.uniform<u8:f32, 1.700000e-02:16>>
// CHECK-NOT:  qfx.composite
func.func @silu(%x: tensor<1x8x8x64xi8>) -> tensor<1x8x8x64xi8> {
  %q = quant.scast %x : tensor<1x8x8x64xi8> to tensor<1x8x8x64x!quant.uniform<u8:f32, 0.03:63>>
  %d = quant.dcast %q : tensor<1x8x8x64x!quant.uniform<u8:f32, 0.03:63>> to tensor<1x8x8x64xf32>
  %s = qfx.composite "torch.nn.SiLU"(%d) attributes {qfx.origin = "torch.nn.SiLU"} : (tensor<1x8x8x64xf32>) -> tensor<1x8x8x64xf32> {
  ^bb0(%a: tensor<1x8x8x64xf32>):
    %g = tosa.sigmoid %a : (tensor<1x8x8x64xf32>) -> tensor<1x8x8x64xf32>
    %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %m = tosa.mul %a, %g, %shift : (tensor<1x8x8x64xf32>, tensor<1x8x8x64xf32>, tensor<1xi8>) -> tensor<1x8x8x64xf32>
    qfx.yield %m : tensor<1x8x8x64xf32>
  }
  %o = quant.qcast %s : tensor<1x8x8x64xf32> to tensor<1x8x8x64x!quant.uniform<u8:f32, 0.017:16>>
  %r = quant.scast %o : tensor<1x8x8x64x!quant.uniform<u8:f32, 0.017:16>> to tensor<1x8x8x64xi8>
  return %r : tensor<1x8x8x64xi8>
}

// -----

// Left in float: the float result has another user; a constant operand of
// more than one element (per channel); fewer than 4096 elements.
// CHECK-LABEL: func.func @two_users
// CHECK: qfx.composite
// CHECK-LABEL: func.func @per_channel_constant
// CHECK: qfx.composite
// CHECK-LABEL: func.func @small
// CHECK: qfx.composite
// CHECK-NOT: tosa.table
func.func @two_users(%x: tensor<1x8x8x64x!quant.uniform<u8:f32, 0.03:63>>) -> (tensor<1x8x8x64x!quant.uniform<u8:f32, 0.017:16>>, tensor<1x8x8x64xf32>) {
  %d = quant.dcast %x : tensor<1x8x8x64x!quant.uniform<u8:f32, 0.03:63>> to tensor<1x8x8x64xf32>
  %s = qfx.composite "torch.nn.Sigmoid"(%d) attributes {qfx.origin = "torch.nn.Sigmoid"} : (tensor<1x8x8x64xf32>) -> tensor<1x8x8x64xf32> {
  ^bb0(%a: tensor<1x8x8x64xf32>):
    %g = tosa.sigmoid %a : (tensor<1x8x8x64xf32>) -> tensor<1x8x8x64xf32>
    qfx.yield %g : tensor<1x8x8x64xf32>
  }
  %o = quant.qcast %s : tensor<1x8x8x64xf32> to tensor<1x8x8x64x!quant.uniform<u8:f32, 0.017:16>>
  return %o, %s : tensor<1x8x8x64x!quant.uniform<u8:f32, 0.017:16>>, tensor<1x8x8x64xf32>
}
func.func @per_channel_constant(%x: tensor<1x8x8x64x!quant.uniform<u8:f32, 0.03:63>>) -> tensor<1x8x8x64x!quant.uniform<u8:f32, 0.017:16>> {
  %d = quant.dcast %x : tensor<1x8x8x64x!quant.uniform<u8:f32, 0.03:63>> to tensor<1x8x8x64xf32>
  %s = qfx.composite "torch.nn.PReLU"(%d) attributes {qfx.origin = "torch.nn.PReLU"} : (tensor<1x8x8x64xf32>) -> tensor<1x8x8x64xf32> {
  ^bb0(%a: tensor<1x8x8x64xf32>):
    %w = "tosa.const"() <{values = dense<0.5> : tensor<1x1x1x64xf32>}> : () -> tensor<1x1x1x64xf32>
    %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %m = tosa.mul %a, %w, %shift : (tensor<1x8x8x64xf32>, tensor<1x1x1x64xf32>, tensor<1xi8>) -> tensor<1x8x8x64xf32>
    qfx.yield %m : tensor<1x8x8x64xf32>
  }
  %o = quant.qcast %s : tensor<1x8x8x64xf32> to tensor<1x8x8x64x!quant.uniform<u8:f32, 0.017:16>>
  return %o : tensor<1x8x8x64x!quant.uniform<u8:f32, 0.017:16>>
}
func.func @small(%x: tensor<1x4x4x64x!quant.uniform<u8:f32, 0.03:63>>) -> tensor<1x4x4x64x!quant.uniform<u8:f32, 0.017:16>> {
  %d = quant.dcast %x : tensor<1x4x4x64x!quant.uniform<u8:f32, 0.03:63>> to tensor<1x4x4x64xf32>
  %s = qfx.composite "torch.nn.Sigmoid"(%d) attributes {qfx.origin = "torch.nn.Sigmoid"} : (tensor<1x4x4x64xf32>) -> tensor<1x4x4x64xf32> {
  ^bb0(%a: tensor<1x4x4x64xf32>):
    %g = tosa.sigmoid %a : (tensor<1x4x4x64xf32>) -> tensor<1x4x4x64xf32>
    qfx.yield %g : tensor<1x4x4x64xf32>
  }
  %o = quant.qcast %s : tensor<1x4x4x64xf32> to tensor<1x4x4x64x!quant.uniform<u8:f32, 0.017:16>>
  return %o : tensor<1x4x4x64x!quant.uniform<u8:f32, 0.017:16>>
}
