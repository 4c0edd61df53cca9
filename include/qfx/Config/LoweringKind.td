//===- LoweringKind.td - How qfx-lower lowers a pattern -----*- tablegen -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// The kinds of int8 lowering a backend table row, an op's
// QuantizableOpInterface model or a composite's registry entry names, and
// that qfx-lower's patterns implement: one enum, so that a misspelt kind
// does not compile (and a misspelt one in a JSON table is an error naming
// the kinds).
//
//===----------------------------------------------------------------------===//

#ifndef QFX_CONFIG_LOWERINGKIND_TD
#define QFX_CONFIG_LOWERINGKIND_TD

include "mlir/IR/EnumAttr.td"

def QFX_LoweringKind : I32Enum<"LoweringKind",
    "the int8 lowering of a quantized pattern", [
  I32EnumCase<"Contraction", 0, "contraction">,
  I32EnumCase<"Binary", 1, "binary">,
  I32EnumCase<"Pool", 2, "pool">,
  I32EnumCase<"Mean", 3, "mean">,
  I32EnumCase<"Concat", 4, "concat">,
  I32EnumCase<"Table", 5, "table">,
  I32EnumCase<"BatchNorm", 6, "batch_norm">,
  I32EnumCase<"Normalization", 7, "normalization">,
  I32EnumCase<"FloatKernel", 8, "float_kernel">,
  I32EnumCase<"CenteredFloat", 9, "centered_float">,
  I32EnumCase<"WeightedBody", 10, "weighted_body">,
  I32EnumCase<"DataMovement", 11, "data_movement">,
  I32EnumCase<"Embedding", 12, "embedding">,
  I32EnumCase<"Recurrent", 13, "recurrent">]> {
  let cppNamespace = "::qfx";
}

#endif // QFX_CONFIG_LOWERINGKIND_TD
