// RUN: quant-opt %s --qfx-lower-host-calls -verify-diagnostics

// expected-error @+1 {{@qfxHostCall is reserved for the host-call runtime; expected type '(i64, memref<?xi64>) -> ()'}}
func.func private @qfxHostCall(i64)

func.func @f(%x: memref<2xf32>, %y: memref<2xf32>) {
  qfx.host_call "f" id 0 (%x) outs(%y) : (memref<2xf32>, memref<2xf32>) -> ()
  return
}
