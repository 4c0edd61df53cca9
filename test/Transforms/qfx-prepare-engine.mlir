// qfx-prepare{engine=E} records PyTorch's engine (torch.backends.quantized.engine)
// as the module's qfx.engine, for qfx-convert and qfx-lower; unset, the
// module names only its backend. An unknown engine is an error before any
// rewriting.
// RUN: quant-opt %s --qfx-prepare="backend=x86 engine=qnnpack" 2>/dev/null | FileCheck %s
// RUN: quant-opt %s --qfx-prepare-pipeline="backend=x86 engine=qnnpack" 2>/dev/null | FileCheck %s
// RUN: quant-opt %s --qfx-prepare="backend=x86" 2>/dev/null | FileCheck %s --check-prefix=UNSET
// RUN: not quant-opt %s --qfx-prepare="backend=x86 engine=tosa" 2>&1 | FileCheck %s --check-prefix=BAD
// CHECK: module attributes {qfx.backend = "x86", qfx.engine = "qnnpack"}
// UNSET: module attributes {qfx.backend = "x86"}
// BAD: qfx-prepare: engine 'tosa' is none of x86, fbgemm, qnnpack, onednn
func.func @relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
