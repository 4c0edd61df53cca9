// RUN: quant-opt %s --split-input-file --qfx-convert | FileCheck %s
// RUN: quant-opt %s --split-input-file --qfx-convert="dynamic-reduce-range=true" | FileCheck %s --check-prefix=FORCED
// The pipeline leaves the choice to qfx-convert unless told.
// RUN: quant-opt %s --split-input-file --qfx-quantize-pipeline="backend=qnnpack" | FileCheck %s

// Unset, dynamic-reduce-range follows the engine of the backend the model was
// prepared for: qnnpack keeps the full range of a quint8 dynamic activation...
// CHECK-LABEL: func.func @qnnpack
// CHECK: qfx.choose_qparams %{{.*}} range [0, 255] : tensor<4xf32> -> tensor<f32>, tensor<i32>
// FORCED-LABEL: func.func @qnnpack
// FORCED: qfx.choose_qparams %{{.*}} range [0, 127]
module attributes {qfx.backend = "qnnpack"} {
  func.func @qnnpack(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = qfx.observe %x id 0 spec(#qfx.observer<placeholder, dtype = quint8, compute_dtype = quint8>) : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

// ... x86's engine (onednn, fbgemm) halves it, and its scale is PyTorch's
// double (f64: oneDNN's kernels take its reciprocal; qnnpack's the float) ...
// CHECK-LABEL: func.func @x86
// CHECK: qfx.choose_qparams %{{.*}} range [0, 127] : tensor<4xf32> -> tensor<f64>, tensor<i32>
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

// -----

// The module's engine (qfx-prepare{engine=...}, PyTorch's
// torch.backends.quantized.engine) decides over its backend's: the x86
// table under the qnnpack engine keeps the full range...
// CHECK-LABEL: func.func @x86_table_qnnpack_engine
// CHECK: qfx.choose_qparams %{{.*}} range [0, 255] : tensor<4xf32> -> tensor<f32>, tensor<i32>
// FORCED-LABEL: func.func @x86_table_qnnpack_engine
// FORCED: qfx.choose_qparams %{{.*}} range [0, 127]
module attributes {qfx.backend = "x86", qfx.engine = "qnnpack"} {
  func.func @x86_table_qnnpack_engine(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = qfx.observe %x id 0 spec(#qfx.observer<placeholder, dtype = quint8, compute_dtype = quint8>) : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

// ... and the qnnpack table under the onednn engine halves it.
// CHECK-LABEL: func.func @qnnpack_table_onednn_engine
// CHECK: qfx.choose_qparams %{{.*}} range [0, 127]
module attributes {qfx.backend = "qnnpack", qfx.engine = "onednn"} {
  func.func @qnnpack_table_onednn_engine(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = qfx.observe %x id 0 spec(#qfx.observer<placeholder, dtype = quint8, compute_dtype = quint8>) : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
