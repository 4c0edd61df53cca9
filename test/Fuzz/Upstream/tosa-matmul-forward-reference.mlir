// An input qfx-ir-fuzzer found (utils/fuzz.sh, 2026-11-23) that crashes
// Debian's MLIR 22 itself while parsing: upstream's own mlir-opt dies with
// SIGSEGV in mlir::tosa::MatMulOp::verify() (reading the zero point operand
// %zp, a forward reference the first function never defines, while the
// second defines a %zp of its own). quant-opt and the fuzzer crash the same
// way: no qfx code runs before the crash, so qfx cannot fix it; this test
// records it. When it fails, upstream is fixed: move this input into
// test/Fuzz/Inputs/ir as a seed.
// RUN: not --crash %mlir_opt %s
func.func @nonconstmm(%x: tensor<1x3x4xf32>, %w: tensor<1x4x8xf32>) -> tensor<1x3x8xf32> {
  %m = tosa.matmul %x, %w, %zp ,%zp {qfx.origin = "torch.nn.Linear"} : (tensor<1x3x4xf32>, tensor<1x4x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x8xf32>
}
func.func @nonconst(%x: tensor<1x4x4x3xf32>, %w: tensor<8x1x1x3xf32>, %b: tensor<8xf32>) -> tensor<1x4x4x8xf32> {
  %zp = "tosa.const"() <{v0alues = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_tyye = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x3xf32>, tensor<8x1x1x3xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x8xf32>
  %r = tosa.clamp %c {min_val = 0.0 : f32, max_val = 3.4e38 : f32} : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
}
