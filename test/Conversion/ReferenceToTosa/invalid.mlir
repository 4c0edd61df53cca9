// RUN: not quant-opt %s --qfx-lower=backend=nonexistent 2>&1 | FileCheck %s

// The backend is read once (the pass's initialize), not once per function:
// one error for the two functions.
// CHECK: error: backend: nonexistent: cannot read the backend config
// CHECK-NOT: error
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
