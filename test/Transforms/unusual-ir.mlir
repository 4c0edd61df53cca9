// IR that verifies but is unusual for a quantization pipeline: a dynamic
// dimension, weights and bias that are function arguments instead of
// constants, several blocks, an unranked tensor. Every qfx pass handles it
// without a crash or an error, and keeps every function. (Zero-size
// dimensions cannot reach these passes in TOSA ops, whose verifier rejects
// them; test/Runtime/calibrate-errors.test observes a zero-size tensor.)
// RUN: quant-opt %s --qfx-fuse | FileCheck %s --check-prefix=ALL
// RUN: quant-opt %s --qfx-annotate-qconfig | FileCheck %s --check-prefix=ALL
// RUN: quant-opt %s --qfx-fuse --qfx-prepare | FileCheck %s --check-prefixes=ALL,PREPARE
// RUN: quant-opt %s --qfx-fuse --qfx-prepare --qfx-lower-observers | FileCheck %s --check-prefix=ALL
// RUN: quant-opt %s --qfx-inline-fused | FileCheck %s --check-prefix=ALL
// RUN: quant-opt %s --qfx-convert | FileCheck %s --check-prefix=ALL
// RUN: quant-opt %s --qfx-lower | FileCheck %s --check-prefix=ALL
// RUN: quant-opt %s --qfx-lower-quant-to-linalg | FileCheck %s --check-prefix=ALL
// RUN: quant-opt %s --qfx-codegen=target=x86-64-avx512vnni | FileCheck %s --check-prefix=ALL
// RUN: quant-opt %s --qfx-codegen=target=aarch64-dotprod | FileCheck %s --check-prefix=ALL

// ALL-LABEL: func.func @dynamic
// PREPARE: qfx.observe %{{.*}} : tensor<1x?x4xf32>
// PREPARE: tosa.matmul
// PREPARE: qfx.observe %{{.*}} : tensor<1x?x8xf32>
// ALL-LABEL: func.func @nonconstmm
// The weight argument is observed as PyTorch observes a functional weight.
// PREPARE: qfx.observe %arg1 {{.*}}per_channel_minmax
// ALL-LABEL: func.func @nonconst(
// ALL-LABEL: func.func @blocks
// ALL-LABEL: func.func @unranked
func.func @dynamic(%x: tensor<1x?x4xf32>) -> tensor<1x?x8xf32> {
  %w = "tosa.const"() <{values = dense<0.5> : tensor<1x4x8xf32>}> : () -> tensor<1x4x8xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %m = tosa.matmul %x, %w, %zp, %zp {qfx.origin = "torch.nn.Linear"} : (tensor<1x?x4xf32>, tensor<1x4x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x?x8xf32>
  %s = tosa.sigmoid %m : (tensor<1x?x8xf32>) -> tensor<1x?x8xf32>
  return %s : tensor<1x?x8xf32>
}
func.func @nonconstmm(%x: tensor<1x3x4xf32>, %w: tensor<1x4x8xf32>) -> tensor<1x3x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %m = tosa.matmul %x, %w, %zp, %zp {qfx.origin = "torch.nn.Linear"} : (tensor<1x3x4xf32>, tensor<1x4x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x8xf32>
  return %m : tensor<1x3x8xf32>
}
func.func @nonconst(%x: tensor<1x4x4x3xf32>, %w: tensor<8x1x1x3xf32>, %b: tensor<8xf32>) -> tensor<1x4x4x8xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x3xf32>, tensor<8x1x1x3xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x8xf32>
  %r = tosa.clamp %c {min_val = 0.0 : f32, max_val = 3.4e38 : f32} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  return %r : tensor<1x4x4x8xf32>
}
func.func @blocks(%x: tensor<4xf32>, %p: i1) -> tensor<4xf32> {
  cf.cond_br %p, ^a, ^b
^a:
  %y = tosa.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
^b:
  return %x : tensor<4xf32>
}
func.func @unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  %y = tosa.sigmoid %x : (tensor<*xf32>) -> tensor<*xf32>
  return %y : tensor<*xf32>
}
