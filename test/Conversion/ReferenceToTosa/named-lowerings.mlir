// qfx-lower applies the int8 lowering kind a backend table row names in
// `reference_lowering`; a row without one gets the main op's
// (QuantizableOpInterface). A lowering that does not apply to the op leaves
// the pattern in float with a remark; a name that is no lowering kind is an
// error when the table is read.
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo '{"name": "named", "configs": [{"pattern": "tosa.sigmoid"}, {"pattern": "tosa.tanh", "reference_lowering": "data_movement"}, {"pattern": "tosa.clamp", "reference_lowering": "embedding"}, {"pattern": "tosa.abs", "reference_lowering": "table"}]}' > %t/named.json
// RUN: quant-opt %s --qfx-lower="backend=%t/named.json" --split-input-file --verify-diagnostics | FileCheck %s
// RUN: echo '{"name": "misspelt", "configs": [{"pattern": "tosa.clamp", "reference_lowering": "conv2d"}]}' > %t/misspelt.json
// RUN: not quant-opt %s --qfx-lower="backend=%t/misspelt.json" --split-input-file 2>&1 | FileCheck %s --check-prefix=MISSPELT
// MISSPELT: configs[0].reference_lowering: unknown lowering kind 'conv2d'; expected one of contraction, binary, pool, mean, concat, table, batch_norm, normalization, float_kernel, centered_float, weighted_body, data_movement, embedding, recurrent

!t = !quant.uniform<i8:f32, 0.5>
!o = !quant.uniform<i8:f32, 0.00390625:-128>

// No name: the op's own lowering (a table; sigmoid's fixed output qparams
// make it a curve, not a line, so a tosa.table).
// CHECK-LABEL: func.func @default_lowering
// CHECK: tosa.table
func.func @default_lowering(%arg0: tensor<4x!t>) -> tensor<4x!o> {
  %x = quant.dcast %arg0 : tensor<4x!t> to tensor<4xf32>
  %y = tosa.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
  %q = quant.qcast %y : tensor<4xf32> to tensor<4x!o>
  return %q : tensor<4x!o>
}

// -----

!t = !quant.uniform<i8:f32, 0.5>

// The table's name wins over the op's: tosa.abs (whose own lowering is also
// a table) is lowered by the name "table".
// CHECK-LABEL: func.func @named_lowering
// CHECK: tosa.table
func.func @named_lowering(%arg0: tensor<4x!t>) -> tensor<4x!t> {
  %x = quant.dcast %arg0 : tensor<4x!t> to tensor<4xf32>
  %y = tosa.abs %x : (tensor<4xf32>) -> tensor<4xf32>
  %q = quant.qcast %y : tensor<4xf32> to tensor<4x!t>
  return %q : tensor<4x!t>
}

// -----

!t = !quant.uniform<i8:f32, 0.5>

// CHECK-LABEL: func.func @lowering_does_not_apply
// CHECK: tosa.tanh
func.func @lowering_does_not_apply(%arg0: tensor<4x!t>) -> tensor<4x!t> {
  %x = quant.dcast %arg0 : tensor<4x!t> to tensor<4xf32>
  // expected-remark @+1 {{runs in float: the int8 lowering 'data_movement' does not apply to 'tosa.tanh'}}
  %y = tosa.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  %q = quant.qcast %y : tensor<4xf32> to tensor<4x!t>
  return %q : tensor<4x!t>
}

// -----

!t = !quant.uniform<i8:f32, 0.5>

// The embedding lowering applies to embeddings only (outside patterns).
// CHECK-LABEL: func.func @lowering_of_no_pattern
// CHECK: tosa.clamp
func.func @lowering_of_no_pattern(%arg0: tensor<4x!t>) -> tensor<4x!t> {
  %x = quant.dcast %arg0 : tensor<4x!t> to tensor<4xf32>
  // expected-remark @+1 {{runs in float: the int8 lowering 'embedding' does not apply to 'tosa.clamp'}}
  %y = tosa.clamp %x {min_val = 0.0 : f32, max_val = 1.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %q = quant.qcast %y : tensor<4xf32> to tensor<4x!t>
  return %q : tensor<4x!t>
}
