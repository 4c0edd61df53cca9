// qfx-copy-statistics gives each calibrating observer the statistics of the
// observer with its id in the module calibrated at other shapes (`from`):
// here the model of Inputs/copy-statistics/calibrated.mlir at batch 3.

// RUN: quant-opt %s --split-input-file --verify-diagnostics \
// RUN:   --qfx-copy-statistics="from=%S/Inputs/copy-statistics/calibrated.mlir" | FileCheck %s

// Options and files that are not a calibrated module: errors before any rewriting.
// RUN: not quant-opt %s --split-input-file --qfx-copy-statistics 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NO-FROM
// NO-FROM: error: qfx-copy-statistics: no module to copy statistics from (the `from` option names a calibrated MLIR file)
// RUN: not quant-opt %s --split-input-file --qfx-copy-statistics="from=%S/Inputs/copy-statistics/missing.mlir" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MISSING
// MISSING: error: qfx-copy-statistics: cannot read the calibrated module '{{.*}}missing.mlir'

// CHECK-LABEL: func.func @main
// CHECK: qfx.observe %{{.*}} id 0 spec(#qfx.observer<minmax>) stats(#qfx.minmax<min = -1.000000e+00, max = 2.000000e+00>) : tensor<3x4xf32>
// CHECK: qfx.observe %{{.*}} id 1 spec(#qfx.observer<histogram, bins = 4>) stats(#qfx.histogram<min = 0.000000e+00, max = 2.000000e+00, counts = [1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]>) : tensor<3x4xf32>
// CHECK: qfx.observe %{{.*}} id 1 spec(#qfx.observer<histogram, bins = 4>) stats(#qfx.histogram<min = 0.000000e+00, max = 2.000000e+00, counts = [1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]>) : tensor<3x4xf32>
// CHECK: qfx.observe %{{.*}} id 2 spec({{.*}}per_channel_minmax{{.*}}) stats(#qfx.per_channel_minmax<min = [-3.000000e+00, 0.000000e+00], max = [1.000000e+00, 4.000000e+00]>) : tensor<2x2xf32>
// CHECK: qfx.observe %{{.*}} id 3 spec(#qfx.observer<fixed_qparams, scale = 7.812500e-03, zero_point = 0>) : tensor<3x2xf32>
func.func @main(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %0 = qfx.observe %x id 0 spec(#qfx.observer<minmax>) : tensor<3x4xf32>
  %1 = qfx.observe %0 id 1 spec(#qfx.observer<histogram, bins = 4>) : tensor<3x4xf32>
  %2 = qfx.observe %1 id 1 spec(#qfx.observer<histogram, bins = 4>) : tensor<3x4xf32>
  %w = "tosa.const"() <{values = dense<[[1.0, -3.0], [0.0, 4.0]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
  %3 = qfx.observe %w id 2 spec(#qfx.observer<per_channel_minmax, dtype = qint8, qscheme = per_channel_symmetric, ch_axis = 0>) : tensor<2x2xf32>
  %s = tosa.const_shape {values = dense<[1, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %4 = tosa.slice %2, %s, %s : (tensor<3x4xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<3x2xf32>
  %5 = qfx.observe %4 id 3 spec(#qfx.observer<fixed_qparams, scale = 0.0078125, zero_point = 0>) : tensor<3x2xf32>
  return %5 : tensor<3x2xf32>
}

// -----

// An observer the calibrated module does not have.
func.func @main(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = qfx.observe %x id 0 spec(#qfx.observer<minmax>) : tensor<3x4xf32>
  %1 = tosa.abs %0 : (tensor<3x4xf32>) -> tensor<3x4xf32>
  // expected-error @below {{observer id 7 #qfx.observer<minmax> of tosa.abs has no observer in}}
  %2 = qfx.observe %1 id 7 spec(#qfx.observer<minmax>) : tensor<3x4xf32>
  return %2 : tensor<3x4xf32>
}

// -----

// An observer of another kind under the same id.
func.func @main(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // expected-error @below {{observer id 0 #qfx.observer<histogram> of an argument is #qfx.observer<minmax> in}}
  %0 = qfx.observe %x id 0 spec(#qfx.observer<histogram>) : tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// Observers of the calibrated module this one lacks (ids 1 and 2).
// expected-error @below {{observer id 1 #qfx.observer<histogram, bins = 4> of '}}
module {
func.func @main(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = qfx.observe %x id 0 spec(#qfx.observer<minmax>) : tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
}
