// An observer without statistics in `from` (a weight's, in a model converted
// without calibration) leaves its observer in this module without: stats
// this one had are removed, as `from` has none.
// RUN: quant-opt %s --qfx-copy-statistics="from=%S/Inputs/copy-statistics/uncalibrated.mlir" \
// RUN:   | FileCheck %s

// CHECK: qfx.observe %{{.*}} id 0 spec(#qfx.observer<minmax>) : tensor<3x4xf32>
func.func @main(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = qfx.observe %x id 0 spec(#qfx.observer<minmax>) stats(#qfx.minmax<min = -1.0, max = 2.0>) : tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
