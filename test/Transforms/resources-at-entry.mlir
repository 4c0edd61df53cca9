// qfx-fuse and qfx-prepare, where float models enter qfx, read weights given
// as resources (export_tosa writes them so): the folded and observed weights
// are elements, and no resource is left.
// RUN: quant-opt %s --qfx-fuse | FileCheck %s
// RUN: quant-opt %s --qfx-prepare | FileCheck %s --check-prefix=PREPARE

// CHECK-LABEL: func.func @matmul
// CHECK: dense<{{\[\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]]> : tensor<1x2x2xf32>
// CHECK-NOT: dense_resource
// PREPARE-LABEL: func.func @matmul
// PREPARE: dense<{{\[\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]]> : tensor<1x2x2xf32>
// PREPARE: qfx.observe
// PREPARE-NOT: dense_resource
func.func @matmul(%x: tensor<1x2x2xf32>) -> tensor<1x2x2xf32> {
  %w = "tosa.const"() <{values = dense_resource<w> : tensor<1x2x2xf32>}> : () -> tensor<1x2x2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.matmul %x, %w, %zp, %zp : (tensor<1x2x2xf32>, tensor<1x2x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2xf32>
  return %y : tensor<1x2x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
