// RUN: quant-opt %s --qfx-lower-gelu --split-input-file | FileCheck %s
// RUN: quant-opt %s --qfx-lower-gelu --split-input-file | quant-opt --split-input-file -o /dev/null

// A GELU composite becomes one linalg.generic with oneDNN's gelu_erf (the
// kernel PyTorch runs): x = s / sqrt(2); t = 1 / fma(p, |x|, 1); exp(-x^2)
// with oneDNN's range reduction and polynomial; erf = fma(-exp * t,
// poly(t), 1) with x's sign; fma(erf, s / 2, s / 2). 13 fmas, one
// division, no erf.
// CHECK-LABEL: func.func @gelu
// CHECK-SAME: (%[[ARG:.*]]: tensor<2x8xf32>)
// CHECK-NOT: qfx.composite
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<2x8xf32>
// CHECK: %[[G:.*]] = linalg.generic {{{.*}}iterator_types = ["parallel", "parallel"]} ins(%[[ARG]] : tensor<2x8xf32>) outs(%[[INIT]] : tensor<2x8xf32>)
// CHECK: ^bb0(%[[S:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[X:.*]] = arith.mulf %[[S]], %{{.*}} : f32
// CHECK: %[[ABS:.*]] = math.absf %[[X]] : f32
// CHECK: math.fma %{{.*}}, %[[ABS]], %{{.*}} : f32
// CHECK: arith.divf
// CHECK: math.floor
// CHECK-COUNT-11: math.fma
// CHECK-NOT: math.erf
// CHECK: arith.xori
// CHECK: %[[HALF:.*]] = arith.mulf %[[S]], %{{.*}} : f32
// CHECK: %[[R:.*]] = math.fma %{{.*}}, %[[HALF]], %[[HALF]] : f32
// CHECK: linalg.yield %[[R]] : f32
// CHECK: return %[[G]]
func.func @gelu(%arg0: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = qfx.composite "torch.nn.GELU" (%arg0) : (tensor<2x8xf32>) -> tensor<2x8xf32> {
  ^bb0(%x: tensor<2x8xf32>):
    %c = "tosa.const"() <{values = dense<0.707106769> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
    %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %a = tosa.mul %x, %c, %sh : (tensor<2x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<2x8xf32>
    %e = tosa.erf %a : (tensor<2x8xf32>) -> tensor<2x8xf32>
    %one = "tosa.const"() <{values = dense<1.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
    %p = tosa.add %e, %one : (tensor<2x8xf32>, tensor<1x1xf32>) -> tensor<2x8xf32>
    %half = "tosa.const"() <{values = dense<0.5> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
    %h = tosa.mul %p, %half, %sh : (tensor<2x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<2x8xf32>
    %y = tosa.mul %x, %h, %sh : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<1xi8>) -> tensor<2x8xf32>
    qfx.yield %y : tensor<2x8xf32>
  }
  return %0 : tensor<2x8xf32>
}

// -----

// Dynamic leading dimensions: the result's sizes are the input's.
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[D0:.*]] = tensor.dim %{{.*}}, %[[C0]] : tensor<?x4xf32>
// CHECK: tensor.empty(%[[D0]]) : tensor<?x4xf32>
// CHECK: linalg.generic
// CHECK-NOT: qfx.composite
func.func @dynamic(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = qfx.composite "torch.nn.GELU" (%arg0) : (tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%x: tensor<?x4xf32>):
    %e = tosa.erf %x : (tensor<?x4xf32>) -> tensor<?x4xf32>
    qfx.yield %e : tensor<?x4xf32>
  }
  return %0 : tensor<?x4xf32>
}

// -----

// Other composites, and GELU on other float types (PyTorch's kernel is
// reproduced for float32 only), keep their bodies.
// CHECK-LABEL: func.func @others
// CHECK: qfx.composite "torch.nn.SiLU"
// CHECK: qfx.composite "torch.nn.GELU"
// CHECK-SAME: tensor<4xf16>
// CHECK-NOT: linalg.generic
func.func @others(%arg0: tensor<4xf32>, %arg1: tensor<4xf16>) -> (tensor<4xf32>, tensor<4xf16>) {
  %0 = qfx.composite "torch.nn.SiLU" (%arg0) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%x: tensor<4xf32>):
    %s = tosa.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
    %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %y = tosa.mul %x, %s, %sh : (tensor<4xf32>, tensor<4xf32>, tensor<1xi8>) -> tensor<4xf32>
    qfx.yield %y : tensor<4xf32>
  }
  %1 = qfx.composite "torch.nn.GELU" (%arg1) : (tensor<4xf16>) -> tensor<4xf16> {
  ^bb0(%x: tensor<4xf16>):
    %e = tosa.erf %x : (tensor<4xf16>) -> tensor<4xf16>
    qfx.yield %e : tensor<4xf16>
  }
  return %0, %1 : tensor<4xf32>, tensor<4xf16>
}

// -----

// Nothing else changes: a reference model's quantize/dequantize pair stays
// (a greedy rewrite would fold it to its input, erasing the rounding).
// CHECK-LABEL: func.func @reference
// CHECK: %[[Q:.*]] = quant.qcast %arg0
// CHECK: %[[D:.*]] = quant.dcast %[[Q]]
// CHECK: return %[[D]]
func.func @reference(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %q = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 0.5>>
  %d = quant.dcast %q : tensor<4x!quant.uniform<u8:f32, 0.5>> to tensor<4xf32>
  return %d : tensor<4xf32>
}
