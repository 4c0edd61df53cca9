//===- DTypeWithConstraints.h - A dtype and the bounds a qconfig must meet ===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// PyTorch 1.13's backend_config.DTypeWithConstraints: a dtype a backend
// pattern accepts, with optional bounds on the quantization range and scale a
// QConfig's observer must meet. Pure C++ (LLVM Support only).
//
//===----------------------------------------------------------------------===//

#ifndef QFX_CONFIG_DTYPEWITHCONSTRAINTS_H
#define QFX_CONFIG_DTYPEWITHCONSTRAINTS_H

#include "qfx/Numerics/QuantTypes.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/Support/Error.h"

namespace qfx {

/// A dtype with optional constraints, by PyTorch's field names.
struct DTypeWithConstraints {
  DType dtype = DType::QUInt8;
  std::optional<int64_t> quantMinLowerBound;
  std::optional<int64_t> quantMaxUpperBound;
  std::optional<double> scaleMinLowerBound;
  std::optional<double> scaleMaxUpperBound;

  DTypeWithConstraints() = default;
  explicit DTypeWithConstraints(DType dtype) : dtype(dtype) {}

  /// True if no bound is set.
  bool isUnconstrained() const {
    return !quantMinLowerBound && !quantMaxUpperBound && !scaleMinLowerBound &&
           !scaleMaxUpperBound;
  }

  /// Rejects bounds that make no sense: range bounds on a float dtype or
  /// outside the dtype, an empty range, non-positive or inverted scale bounds.
  llvm::Error validate() const;

  bool operator==(const DTypeWithConstraints &other) const {
    return dtype == other.dtype &&
           quantMinLowerBound == other.quantMinLowerBound &&
           quantMaxUpperBound == other.quantMaxUpperBound &&
           scaleMinLowerBound == other.scaleMinLowerBound &&
           scaleMaxUpperBound == other.scaleMaxUpperBound;
  }
  bool operator!=(const DTypeWithConstraints &other) const {
    return !(*this == other);
  }
};

llvm::hash_code hash_value(const DTypeWithConstraints &constraints);

} // namespace qfx

#endif // QFX_CONFIG_DTYPEWITHCONSTRAINTS_H
