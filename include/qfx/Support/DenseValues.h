//===- DenseValues.h - Elements of dense constants, in bulk -----*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// DenseElementsAttr::getValues<APInt/APFloat> builds an arbitrary-precision
// number per element, most of qfx-convert's time on a large model. These
// read the raw data as C++ numbers and fall
// back to APInt only for widths C++ has no type of.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_SUPPORT_DENSEVALUES_H
#define QFX_SUPPORT_DENSEVALUES_H

#include "mlir/IR/BuiltinAttributes.h"

#include <cstdint>
#include <type_traits>
#include <vector>

namespace qfx {

/// The elements of an integer (or index) constant, sign-extended if
/// `isSigned`, else zero-extended.
inline std::vector<int64_t> getIntValues(mlir::DenseElementsAttr attr,
                                         bool isSigned = true) {
  std::vector<int64_t> values;
  values.reserve(attr.getNumElements());
  auto read = [&](auto signedTag) {
    using Signed = decltype(signedTag);
    using Unsigned = std::make_unsigned_t<Signed>;
    if (isSigned) {
      auto range = attr.tryGetValues<Signed>();
      if (mlir::failed(range))
        return false;
      values.assign(range->begin(), range->end());
    } else {
      auto range = attr.tryGetValues<Unsigned>();
      if (mlir::failed(range))
        return false;
      values.assign(range->begin(), range->end());
    }
    return true;
  };
  if (read(int8_t()) || read(int16_t()) || read(int32_t()) || read(int64_t()))
    return values;
  for (const llvm::APInt &value : attr.getValues<llvm::APInt>())
    values.push_back(isSigned ? value.getSExtValue()
                              : static_cast<int64_t>(value.getZExtValue()));
  return values;
}

/// A constant of the signless integer type `type` (of width 8, 16, 32 or 64,
/// or any other) holding `values`, truncated to the width.
template <typename Int>
mlir::DenseElementsAttr getIntAttr(mlir::ShapedType type,
                                   llvm::ArrayRef<Int> values) {
  auto build = [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> narrow(values.size());
    for (size_t i = 0; i < values.size(); ++i)
      narrow[i] = static_cast<T>(values[i]);
    return mlir::DenseElementsAttr::get(type, llvm::ArrayRef<T>(narrow));
  };
  switch (type.getElementTypeBitWidth()) {
  case 8:
    return build(int8_t());
  case 16:
    return build(int16_t());
  case 32:
    return build(int32_t());
  case 64:
    return build(int64_t());
  default: {
    unsigned width = type.getElementTypeBitWidth();
    llvm::SmallVector<llvm::APInt> bits;
    bits.reserve(values.size());
    for (Int value : values)
      bits.emplace_back(width,
                        static_cast<uint64_t>(static_cast<int64_t>(value)),
                        /*isSigned=*/true, /*implicitTrunc=*/true);
    return mlir::DenseElementsAttr::get(type, bits);
  }
  }
}

} // namespace qfx

#endif // QFX_SUPPORT_DENSEVALUES_H
