// RUN: quant-opt %s -split-input-file -verify-diagnostics --qfx-materialize-resources

func.func @no_data() -> tensor<3xf32> {
  // expected-error @+1 {{dense_resource<missing> has no data: the IR has no dialect_resources entry for it and the caller gave none}}
  %w = "tosa.const"() <{values = dense_resource<missing> : tensor<3xf32>}> : () -> tensor<3xf32>
  return %w : tensor<3xf32>
}

// -----

func.func @short() -> tensor<3xf32> {
  // expected-error @+1 {{dense_resource<w> holds 8 bytes; 'tensor<3xf32>' needs 12}}
  %w = "tosa.const"() <{values = dense_resource<w> : tensor<3xf32>}> : () -> tensor<3xf32>
  return %w : tensor<3xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F00000040"
    }
  }
#-}

// -----

func.func @bits() -> tensor<8xi1> {
  // expected-error @+1 {{dense_resource<b>: element type 'i1' is not a whole number of bytes}}
  %b = "tosa.const"() <{values = dense_resource<b> : tensor<8xi1>}> : () -> tensor<8xi1>
  return %b : tensor<8xi1>
}

{-#
  dialect_resources: {
    builtin: {
      b: "0x01000000FF"
    }
  }
#-}
