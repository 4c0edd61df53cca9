// Bad configurations: one error with the Config library's message (the file
// and the JSON path), and quant-opt fails.

// RUN: not quant-opt %s --qfx-annotate-qconfig="qconfig-mapping=%t.missing.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MISSING
// MISSING: error: qconfig-mapping: {{.*}}missing.json: cannot read the qconfig mapping (a JSON file or one of default:x86, default:fbgemm, default:qnnpack, default:onednn): No such file or directory
// MISSING-NOT: error

// RUN: not quant-opt %s --qfx-annotate-qconfig="qconfig-mapping=%S/Inputs/malformed.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MALFORMED
// MALFORMED: error: qconfig-mapping: {{.*}}malformed.json: invalid JSON: [3:0, byte=62]: Expected , or ] after array element

// RUN: not quant-opt %s --qfx-annotate-qconfig="qconfig-mapping=default:x87" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PRESET
// PRESET: error: qconfig-mapping: unknown qconfig mapping preset 'default:x87'; expected one of default:x86, default:fbgemm, default:qnnpack, default:onednn

// RUN: not quant-opt %s --qfx-annotate-qconfig="backend=tpu" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BACKEND
// BACKEND: error: backend: tpu: cannot read the backend config (a JSON file or one of x86, fbgemm, qnnpack, onednn, tosa): No such file or directory

// A document that parses but is not a mapping: the JSON path.
// RUN: echo '{"object_type": [["tosa.clamp", {"activation": {"observer": "MinMaxObsrver"}, "weight": "default_qconfig"}]]}' > %t.path.json
// RUN: not quant-opt %s --qfx-annotate-qconfig="qconfig-mapping=%t.path.json" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PATH
// PATH: error: qconfig-mapping: {{.*}}path.json: object_type[0][1].activation.observer: unknown observer 'MinMaxObsrver'

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tosa.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
