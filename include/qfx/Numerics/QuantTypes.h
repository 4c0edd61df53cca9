//===- QuantTypes.h - Quantized dtypes and qschemes -------------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// The dtypes and quantization schemes of torch.ao.quantization, by PyTorch's
// names. Pure C++ (LLVM Support only): no MLIR dependency.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_NUMERICS_QUANTTYPES_H
#define QFX_NUMERICS_QUANTTYPES_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace qfx {

/// A dtype as PyTorch's quantization configuration names it (`torch.quint8`,
/// ...): the quantized integer dtypes and the float dtypes a tensor may stay
/// in.
enum class DType : uint8_t {
  QUInt8,
  QInt8,
  QInt32,
  QUInt4x2,
  Float16,
  Float32,
};

/// The name of `dtype` without the `torch.` prefix, e.g. "quint8".
llvm::StringRef stringifyDType(DType dtype);

/// Parses a dtype name as printed by stringifyDType; also accepts PyTorch's
/// aliases "float" (float32) and "half" (float16).
std::optional<DType> symbolizeDType(llvm::StringRef name);

/// The list of accepted dtype names, for diagnostics.
llvm::StringRef allDTypeNames();

/// True for quint8, qint8, qint32 and quint4x2.
bool isQuantizedDType(DType dtype);

/// An inclusive integer range [min, max].
struct QuantRange {
  int64_t min;
  int64_t max;
  bool operator==(const QuantRange &other) const {
    return min == other.min && max == other.max;
  }
};

/// The full range of a quantized dtype (quint4x2: [0, 15]).
QuantRange getDTypeRange(DType dtype);

/// PyTorch's quantization schemes (`torch.per_tensor_affine`, ...).
enum class QScheme : uint8_t {
  PerTensorAffine,
  PerTensorSymmetric,
  PerChannelAffine,
  PerChannelSymmetric,
  PerChannelAffineFloatQParams,
};

/// The name of `qscheme` without the `torch.` prefix.
llvm::StringRef stringifyQScheme(QScheme qscheme);

/// Parses a qscheme name as printed by stringifyQScheme.
std::optional<QScheme> symbolizeQScheme(llvm::StringRef name);

/// The list of accepted qscheme names, for diagnostics.
llvm::StringRef allQSchemeNames();

/// True for the three per-channel schemes.
bool isPerChannel(QScheme qscheme);

/// True for per_tensor_symmetric and per_channel_symmetric.
bool isSymmetric(QScheme qscheme);

} // namespace qfx

#endif // QFX_NUMERICS_QUANTTYPES_H
