// The module records what it was compiled with: qfx-prepare the backend
// (qfx-lower warns when lowering with another), qfx-codegen the target.
// RUN: quant-opt %s --qfx-prepare=backend=qnnpack | FileCheck %s --check-prefix=PREPARE
// PREPARE: module attributes {qfx.backend = "qnnpack"}
// RUN: quant-opt %s --qfx-prepare=backend=qnnpack --qfx-lower=backend=x86 -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISMATCH
// MISMATCH: warning: qfx-lower: the model was prepared for backend 'qnnpack', it is lowered with backend 'x86'
// RUN: quant-opt %s --qfx-prepare=backend=x86 --qfx-lower=backend=x86 -o /dev/null 2>&1 | FileCheck %s --check-prefix=MATCH --allow-empty
// MATCH-NOT: warning
// RUN: quant-opt %s --qfx-codegen=target=x86-64-avx2 | FileCheck %s --check-prefix=TARGET
// TARGET: module attributes {qfx.target = "x86-64-avx2"}
// RUN: quant-opt %s --qfx-codegen=target=none | FileCheck %s --check-prefix=NONE
// NONE: module attributes {qfx.target = "none"}
func.func @main(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %y = tosa.sigmoid %x : (tensor<1x4xf32>) -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}
