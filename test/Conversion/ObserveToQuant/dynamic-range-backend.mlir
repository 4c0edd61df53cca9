// RUN: quant-opt %s --split-input-file --qfx-convert | FileCheck %s
// RUN: quant-opt %s --split-input-file --qfx-convert="dynamic-reduce-range=true" | FileCheck %s --check-prefix=FORCED
// The pipeline leaves the choice to qfx-convert unless told.
// RUN: quant-opt %s --split-input-file --qfx-quantize-pipeline="backend=qnnpack" | FileCheck %s

// Unset, dynamic-reduce-range follows the engine of the backend the model was
// prepared for: qnnpack keeps the full range of a quint8 dynamic activation...
// CHECK-LABEL: func.func @qnnpack
// CHECK: qfx.choose_qparams %{{.*}} range [0, 255]
// FORCED-LABEL: func.func @qnnpack
// FORCED: qfx.choose_qparams %{{.*}} range [0, 127]
module attributes {qfx.backend = "qnnpack"} {
  func.func @qnnpack(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = qfx.observe %x id 0 spec(#qfx.observer<placeholder, dtype = quint8, compute_dtype = quint8>) : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

// ... x86's engine (onednn, fbgemm) halves it ...
// CHECK-LABEL: func.func @x86
// CHECK: qfx.choose_qparams %{{.*}} range [0, 127]
module attributes {qfx.backend = "x86"} {
  func.func @x86(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = qfx.observe %x id 0 spec(#qfx.observer<placeholder, dtype = quint8, compute_dtype = quint8>) : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

// ... and so does a model that names no backend.
// CHECK-LABEL: func.func @unnamed
// CHECK: qfx.choose_qparams %{{.*}} range [0, 127]
func.func @unnamed(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = qfx.observe %x id 0 spec(#qfx.observer<placeholder, dtype = quint8, compute_dtype = quint8>) : tensor<4xf32>
  return %0 : tensor<4xf32>
}
