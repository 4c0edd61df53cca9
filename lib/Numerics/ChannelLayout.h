//===- ChannelLayout.h - A tensor seen as outer x channels x inner -*- C++ -*-//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// Per-channel kernels view a row-major tensor as [outer, channels, inner]
// around its channel axis. Internal to QFXNumerics.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_LIB_NUMERICS_CHANNELLAYOUT_H
#define QFX_LIB_NUMERICS_CHANNELLAYOUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstdint>

namespace qfx {
namespace detail {

/// A row-major tensor viewed as [outer, channels, inner] around an axis.
struct ChannelLayout {
  int64_t outer = 1;
  int64_t channels = 1;
  int64_t inner = 1;
  int64_t numElements() const { return outer * channels * inner; }
};

/// Checks `shape` against `numElements` and `axis` (negative counts from the
/// end) and returns the layout.
inline llvm::Expected<ChannelLayout>
getChannelLayout(llvm::ArrayRef<int64_t> shape, int64_t axis,
                 size_t numElements) {
  int64_t rank = static_cast<int64_t>(shape.size());
  if (axis < -rank || axis >= rank)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("channel axis {0} is out of range for a tensor of rank "
                      "{1}",
                      axis, rank));
  if (axis < 0)
    axis += rank;
  ChannelLayout layout;
  int64_t total = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (shape[d] < 0)
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          llvm::formatv("dimension {0} has negative size {1}", d, shape[d]));
    total *= shape[d];
    if (d < axis)
      layout.outer *= shape[d];
    else if (d == axis)
      layout.channels = shape[d];
    else
      layout.inner *= shape[d];
  }
  if (total != static_cast<int64_t>(numElements))
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("the shape holds {0} elements but {1} values were given",
                      total, numElements));
  return layout;
}

} // namespace detail
} // namespace qfx

#endif // QFX_LIB_NUMERICS_CHANNELLAYOUT_H
