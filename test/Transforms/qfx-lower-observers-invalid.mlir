// RUN: quant-opt %s --qfx-lower-observers=calibrate=true -verify-diagnostics

// expected-error @+1 {{@qfxObserve is reserved for the calibration runtime; expected type '(i64, tensor<*xf32>) -> ()'}}
func.func private @qfxObserve(i32)

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = qfx.observe %x id 0 spec(#qfx.observer<minmax>) : tensor<4xf32>
  return %0 : tensor<4xf32>
}
