// RUN: not quant-opt %s --qfx-lower=backend=nonexistent 2>&1 | FileCheck %s

// CHECK: error: backend: nonexistent: cannot read the backend config
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
