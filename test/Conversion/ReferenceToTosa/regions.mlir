// RUN: quant-opt %s --qfx-lower --split-input-file --verify-diagnostics | FileCheck %s

// qfx-lower's patterns apply in every block and region of the function,
// not only its entry block.

!t = !quant.uniform<i8:f32, 0.5:0>

// A pattern in a block after a branch.
// CHECK-LABEL: func.func @second_block
// CHECK: ^bb1:
// CHECK: %[[X:.*]] = quant.scast %{{.*}} : tensor<1x2x2x1x!quant.uniform<i8:f32, 5.000000e-01>> to tensor<1x2x2x1xi8>
// CHECK: %[[M:.*]] = tosa.max_pool2d %[[X]] {{.*}} -> tensor<1x1x1x1xi8>
// CHECK: %[[Q:.*]] = quant.scast %[[M]] : tensor<1x1x1x1xi8> to tensor<1x1x1x1x!quant.uniform<i8:f32, 5.000000e-01>>
// CHECK: return %[[Q]]
func.func @second_block(%arg0: tensor<1x2x2x1x!t>) -> tensor<1x1x1x1x!t> {
  cf.br ^bb1
^bb1:
  %x = quant.dcast %arg0 : tensor<1x2x2x1x!t> to tensor<1x2x2x1xf32>
  %m = tosa.max_pool2d %x {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x2x2x1xf32>) -> tensor<1x1x1x1xf32>
  %q = quant.qcast %m : tensor<1x1x1x1xf32> to tensor<1x1x1x1x!t>
  return %q : tensor<1x1x1x1x!t>
}

// -----

!t = !quant.uniform<i8:f32, 0.5:0>

// A pattern in a region of another op; its remark when it cannot be lowered
// comes from there too.
// CHECK-LABEL: func.func @nested_region
// CHECK: scf.execute_region
// CHECK: tosa.max_pool2d %{{.*}} -> tensor<1x1x1x1xi8>
// CHECK: tosa.sin %{{.*}} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: scf.yield
func.func @nested_region(%arg0: tensor<1x2x2x1x!t>, %arg1: tensor<4x!t>) -> (tensor<1x1x1x1x!t>, tensor<4x!t>) {
  %r:2 = scf.execute_region -> (tensor<1x1x1x1x!t>, tensor<4x!t>) {
    %x = quant.dcast %arg0 : tensor<1x2x2x1x!t> to tensor<1x2x2x1xf32>
    %m = tosa.max_pool2d %x {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x2x2x1xf32>) -> tensor<1x1x1x1xf32>
    %q = quant.qcast %m : tensor<1x1x1x1xf32> to tensor<1x1x1x1x!t>
    %y = quant.dcast %arg1 : tensor<4x!t> to tensor<4xf32>
    // expected-remark @+1 {{runs in float: backend 'x86' has no pattern for it}}
    %s = tosa.sin %y : (tensor<4xf32>) -> tensor<4xf32>
    %p = quant.qcast %s : tensor<4xf32> to tensor<4x!t>
    scf.yield %q, %p : tensor<1x1x1x1x!t>, tensor<4x!t>
  }
  return %r#0, %r#1 : tensor<1x1x1x1x!t>, tensor<4x!t>
}
