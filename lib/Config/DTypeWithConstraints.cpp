//===- DTypeWithConstraints.cpp - A dtype and its bounds ------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Config/DTypeWithConstraints.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace qfx;

static llvm::Error constraintError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Error DTypeWithConstraints::validate() const {
  llvm::StringRef name = stringifyDType(dtype);
  if (!isQuantizedDType(dtype)) {
    if (!isUnconstrained())
      return constraintError(llvm::formatv(
          "{0} takes no quantization range or scale bounds", name));
    return llvm::Error::success();
  }
  QuantRange full = getDTypeRange(dtype);
  auto checkInRange = [&](std::optional<int64_t> bound,
                          llvm::StringRef what) -> llvm::Error {
    if (bound && (*bound < full.min || *bound > full.max))
      return constraintError(
          llvm::formatv("{0} {1} is outside {2}'s range [{3}, {4}]", what,
                        *bound, name, full.min, full.max));
    return llvm::Error::success();
  };
  if (llvm::Error err =
          checkInRange(quantMinLowerBound, "quant_min_lower_bound"))
    return err;
  if (llvm::Error err =
          checkInRange(quantMaxUpperBound, "quant_max_upper_bound"))
    return err;
  if (quantMinLowerBound && quantMaxUpperBound &&
      *quantMinLowerBound >= *quantMaxUpperBound)
    return constraintError(llvm::formatv(
        "expected quant_min_lower_bound < quant_max_upper_bound, got {0} "
        "and {1}",
        *quantMinLowerBound, *quantMaxUpperBound));
  for (auto [bound, what] :
       {std::pair{scaleMinLowerBound, "scale_min_lower_bound"},
        std::pair{scaleMaxUpperBound, "scale_max_upper_bound"}})
    if (bound && !(std::isfinite(*bound) && *bound > 0))
      return constraintError(llvm::formatv("expected {0} > 0, got {1}", what,
                                           llvm::format("%g", *bound)));
  if (scaleMinLowerBound && scaleMaxUpperBound &&
      *scaleMinLowerBound > *scaleMaxUpperBound)
    return constraintError(llvm::formatv(
        "expected scale_min_lower_bound <= scale_max_upper_bound, got {0} "
        "and {1}",
        llvm::format("%g", *scaleMinLowerBound),
        llvm::format("%g", *scaleMaxUpperBound)));
  return llvm::Error::success();
}

// LLVM does not hash doubles; leaving the scale bounds out keeps equal
// constraints hashing equal.
llvm::hash_code qfx::hash_value(const DTypeWithConstraints &constraints) {
  return llvm::hash_combine(constraints.dtype, constraints.quantMinLowerBound,
                            constraints.quantMaxUpperBound);
}
