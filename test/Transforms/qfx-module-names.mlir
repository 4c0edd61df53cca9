// qfx-module-names-from-locations: module names written as locations become
// the qfx.module_name / qfx.node_name attributes that QConfigMapping reads.
// RUN: quant-opt %s --qfx-module-names-from-locations | FileCheck %s

// Without the pass, locations name nothing: a module_name key does not match
// an op that has only a location, and does match one with the attribute.
// The mapping leaves module "off" in float.
// RUN: quant-opt %s --qfx-annotate-qconfig="qconfig-mapping=%S/Inputs/prepare-mapping.json backend=qnnpack" 2>/dev/null | FileCheck %s --check-prefix=NOPASS
// RUN: quant-opt %s --qfx-module-names-from-locations --qfx-annotate-qconfig="qconfig-mapping=%S/Inputs/prepare-mapping.json backend=qnnpack" 2>/dev/null | FileCheck %s --check-prefix=PASS

// CHECK-LABEL: func.func @names
// CHECK: "tosa.const"() <{values = dense<1.000000e+00> : tensor<4xf32>}> : () -> tensor<4xf32>{{$}}
// CHECK: tosa.sigmoid {{.*}}{qfx.module_name = "off"}
// CHECK: tosa.add {{.*}}{qfx.module_name = "layer1", qfx.node_name = "add_1"}
// CHECK: tosa.tanh {{.*}}{qfx.module_name = "inner"}
// CHECK: tosa.abs {{.*}}{qfx.module_name = "callee"}
// CHECK: tosa.exp {{.*}}{qfx.module_name = "off"}
// CHECK: tosa.negate {{%[0-9]+}}, {{%[0-9]+}}, {{%[0-9]+}} : (

// NOPASS-LABEL: func.func @names
// NOPASS: tosa.sigmoid {{.*}}qfx.qconfig = #qfx.qconfig
// NOPASS: tosa.exp {{.*}}qfx.qconfig = "none"
// PASS-LABEL: func.func @names
// PASS: tosa.sigmoid {{.*}}qfx.qconfig = "none"
// PASS: tosa.exp {{.*}}qfx.qconfig = "none"
func.func @names(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = "tosa.const"() <{values = dense<1.0> : tensor<4xf32>}> : () -> tensor<4xf32> loc("off")
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32> loc(unknown)
  %0 = tosa.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32> loc("off")
  %1 = tosa.add %0, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("layer1"("add_1"))
  %2 = tosa.tanh %1 : (tensor<4xf32>) -> tensor<4xf32> loc(fused["inner", "outer"])
  %3 = tosa.abs %2 : (tensor<4xf32>) -> tensor<4xf32> loc(callsite("callee" at "caller"))
  // An op that has the attribute keeps it.
  %4 = tosa.exp %3 {qfx.module_name = "off"} : (tensor<4xf32>) -> tensor<4xf32> loc("elsewhere")
  %5 = tosa.negate %4, %zp, %zp : (tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<4xf32> loc(unknown)
  return %5 : tensor<4xf32> loc("output")
}
