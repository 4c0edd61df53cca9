// RUN: quant-opt %s -split-input-file --qfx-materialize-resources | FileCheck %s

// A weight as a resource becomes the elements of its bytes (little-endian
// float32 after the blob's 4-byte alignment word).
// CHECK-LABEL: func.func @weight
// CHECK: "tosa.const"() <{values = dense<[1.000000e+00, 2.000000e+00, -3.000000e+00]> : tensor<3xf32>}>
// CHECK-NOT: dense_resource
func.func @weight() -> tensor<3xf32> {
  %w = "tosa.const"() <{values = dense_resource<w> : tensor<3xf32>}> : () -> tensor<3xf32>
  return %w : tensor<3xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F00000040000040C0"
    }
  }
#-}

// -----

// Nested in an attribute's dictionary, and integers; two uses of one
// resource get the same elements.
// CHECK-LABEL: func.func @nested
// CHECK: test.table = {values = dense<[1, -1]> : tensor<2xi8>}
// CHECK: "tosa.const"() <{values = dense<[1, -1]> : tensor<2xi8>}>
func.func @nested() -> tensor<2xi8> attributes {test.table = {values = dense_resource<t> : tensor<2xi8>}} {
  %t = "tosa.const"() <{values = dense_resource<t> : tensor<2xi8>}> : () -> tensor<2xi8>
  return %t : tensor<2xi8>
}

{-#
  dialect_resources: {
    builtin: {
      t: "0x0100000001FF"
    }
  }
#-}
