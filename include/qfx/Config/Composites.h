//===- Composites.h - The registry of qfx.composite ops ---------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// A PyTorch op that TOSA spells with several ops reaches qfx as a
// qfx.composite named by the PyTorch op. Everything qfx knows about one
// composite name is one entry here: what family of op it is, its operand
// roles and weight axes, the attributes its verifier requires, its int8
// lowering, and the row the built-in backend tables give it. The backend
// tables (BackendConfig.cpp), the dialect's verifier and
// QuantizableOpInterface model (QFXOps.cpp) and qfx-lower read it. Pure C++
// (LLVM Support only).
//
//===----------------------------------------------------------------------===//

#ifndef QFX_CONFIG_COMPOSITES_H
#define QFX_CONFIG_COMPOSITES_H

#include "qfx/Config/LoweringKind.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <vector>

namespace qfx {

/// What a composite computes, as far as qfx's passes care.
enum class CompositeFamily : uint8_t {
  /// One input, an elementwise body, a result of the input's type.
  Elementwise,
  BatchNorm,
  LayerNorm,
  GroupNorm,
  InstanceNorm,
  Mean,
  AvgPool3d,
  AdaptiveAvgPool3d,
  /// An adaptive 2-D average pool of windows of different sizes: a body of
  /// slices, one tosa.avg_pool2d per window, and concats.
  AdaptiveAvgPool2d,
  Embedding,
  EmbeddingBag,
  /// LSTM, GRU and the cells: a body whose matmuls a dynamic qconfig
  /// quantizes.
  Recurrent,
  /// Data movement around one weighted op (a 3-D transposed conv).
  ConvTranspose3d,
  Softmax,
  /// torch.matmul of two activations.
  Matmul,
  Interpolate,
  MultiheadAttention,
  /// torch.div: one input and a number `divisor` attribute, or two inputs
  /// of one rank (broadcast); an elementwise body.
  Division,
};

/// The groups of PyTorch's _common_operator_config_utils.py: each group
/// shares one list of dtype configs in a backend table.
enum class OpGroup : uint8_t {
  Conv,
  Linear,
  Binary,
  Cat,
  /// Ops that observe their output apart from their input
  /// (_get_default_op_configs); shares Cat's dtype configs.
  Default,
  FixedQParams,
  ShareQParams,
  /// quint8 in and out, float weight and bias (native.py's
  /// input_output_only_quint8_dtype_config).
  LayerNorm,
  /// Float in and out, a quint8 or quint4x2 weight (weight_only_quint8 /
  /// quint4x2_dtype_config).
  Embedding,
  /// Dynamic only: int8 and float16 (rnn_op_dtype_configs).
  Recurrent
};

/// The kind of value a composite attribute holds.
enum class CompositeAttrKind : uint8_t {
  Integer,
  Float,
  Bool,
  String,
  /// array<i64: ...>
  IntegerArray,
  /// dense<...> : tensor<...xf32>
  FloatElements,
};

/// One attribute of a composite's `composite_attributes`.
struct CompositeAttr {
  llvm::StringLiteral name;
  CompositeAttrKind kind;
  bool required;
};

/// One composite name and what qfx knows of it.
struct CompositeInfo {
  llvm::StringLiteral name = "";
  CompositeFamily family = CompositeFamily::Elementwise;
  /// qfx-lower's lowering of a pattern whose main op it is; none: it has no
  /// int8 form and stays float.
  std::optional<LoweringKind> lowering;
  /// The ranks of its operands (empty: not checked).
  llvm::ArrayRef<int64_t> operandRanks;
  /// The weight and bias operands, the weight axes whose row-major index is
  /// the output channel, and for each axis of PyTorch's weight after the
  /// first, the axis it became (see QuantizableOpInterface).
  std::optional<unsigned> weight, bias;
  llvm::ArrayRef<int64_t> weightChannelAxes, torchWeightAxes;
  /// The attributes its verifier checks (others are allowed).
  llvm::ArrayRef<CompositeAttr> attributes;

  /// The built-in backend tables' row for it: the group whose dtype configs
  /// it takes (none: no row, PyTorch leaves it float) and the PyTorch ops
  /// it stands for.
  std::optional<OpGroup> group;
  llvm::ArrayRef<llvm::StringLiteral> torchOps;
  /// FixedQParams: an output range of [0, 1] (else [-1, 1]).
  bool fixedRange0To1 = false;
  /// See QuantizableOpInterface::takesOutputQParams and
  /// foldsBatchNormBeforeReLU.
  bool takesOutputQParams = true;
  bool foldsBatchNormBeforeReLU = true;
  /// Binary: whether an operand may be a scalar.
  bool scalarOperand = true;
  /// Only in the table of PyTorch's native.py (qfx's "onednn").
  bool nativeOnly = false;
  /// The fused op of a row (composite, ReLU) (batch norm), or empty.
  llvm::StringLiteral reluFusedOp = "";
  /// Elementwise: PyTorch's float kernel, bit for bit, where it rounds
  /// otherwise than the body (GELU: oneDNN's gelu_erf, not erf); a table
  /// lowering evaluates it instead of the body.
  float (*floatKernel)(float) = nullptr;
  /// Elementwise: the function whose table QNNPACK's own operator computes
  /// for PyTorch's qnnpack engine (hardsigmoid, hardswish), before scaling
  /// to the output.
  float (*qnnpackKernel)(float) = nullptr;
};

/// Every composite qfx knows, in the order of the backend tables' rows.
llvm::ArrayRef<CompositeInfo> getComposites();

/// The entry of composite `name`, or null.
const CompositeInfo *lookupComposite(llvm::StringRef name);

} // namespace qfx

#endif // QFX_CONFIG_COMPOSITES_H
