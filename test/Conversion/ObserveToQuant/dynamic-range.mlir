// RUN: quant-opt %s --qfx-convert="dynamic-reduce-range=false" | FileCheck %s

// qnnpack and onednn keep the full range of a qint8 dynamic activation.
// CHECK: qfx.choose_qparams %{{.*}} range [-128, 127]
// CHECK: qfx.quantize {{.*}} -> tensor<4xi8>
func.func @dynamic(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = qfx.observe %x id 0 spec(#qfx.observer<placeholder, dtype = qint8, compute_dtype = quint8>) : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// RUN: not quant-opt %s --qfx-convert="dynamic-reduce-range=maybe" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: qfx-convert: dynamic-reduce-range 'maybe' is neither true nor false
