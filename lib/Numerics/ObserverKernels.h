//===- ObserverKernels.h - Vectorized loops of the observers ----*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// The data-parallel loops behind the observers: min/max scans, per-channel
// min/max, histogram binning as torch.histc, and float32 sums in the order of
// aten's cascade sum. Internal to QFXNumerics.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_LIB_NUMERICS_OBSERVERKERNELS_H
#define QFX_LIB_NUMERICS_OBSERVERKERNELS_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>

namespace qfx {
namespace detail {

/// The minimum and maximum of a scan, and whether it saw NaN or infinity.
struct MinMaxScan {
  float min;
  float max;
  bool allFinite;
};

/// Scans `n` floats. With allFinite, min/max are exact; otherwise they are
/// meaningless.
MinMaxScan scanMinMax(const float *data, int64_t n);

/// Folds a tensor viewed as [outer, channels, inner] into per-channel
/// minima and maxima (arrays of `channels`, updated in place). Returns false
/// if it saw NaN or infinity (the arrays are then meaningless).
bool scanPerChannelMinMax(const float *data, int64_t outer, int64_t channels,
                          int64_t inner, float *minVals, float *maxVals);

/// Counts the NaN and infinite values among `n` floats (the error path).
void countNonFinite(const float *data, int64_t n, int64_t &numNaN,
                    int64_t &numInf);

/// torch.histc's CPU binning (linear interpolation, no local search) of `n`
/// floats into `bins` bins spanning [left, right]: values outside (and NaN)
/// are dropped, the last bin includes its right edge. Adds into `counts`.
void histogramCounts(const float *data, int64_t n, float left, float right,
                     int64_t bins, int64_t *counts);

/// The float32 sum of `values` in the order of aten's cascade_sum with
/// 8-lane vectors (torch.sum on a contiguous float tensor, AVX2 build).
float cascadeSum(llvm::ArrayRef<float> values);

} // namespace detail
} // namespace qfx

#endif // QFX_LIB_NUMERICS_OBSERVERKERNELS_H
