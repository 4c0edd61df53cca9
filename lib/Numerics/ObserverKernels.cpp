//===- ObserverKernels.cpp - Vectorized loops of the observers ------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// The loops are written over fixed-width lane arrays so that clang
// vectorizes them at -O3 without fast-math; on x86 each hot loop is cloned
// for AVX-512, AVX2 and the baseline, and the loader picks the clone the CPU
// supports.
//
//===----------------------------------------------------------------------===//

#include "ObserverKernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace qfx;
using namespace qfx::detail;

#if defined(__x86_64__) && defined(__clang__) && defined(__ELF__)
#define QFX_MULTIVERSION                                                       \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define QFX_MULTIVERSION
#endif

namespace {
constexpr int kLanes = 64;
constexpr float kInf = std::numeric_limits<float>::infinity();
} // namespace

// `v - v` is 0 for finite values and NaN for NaN and infinities, so one
// running sum of it flags any non-finite value without a compare per lane.
QFX_MULTIVERSION
MinMaxScan qfx::detail::scanMinMax(const float *data, int64_t n) {
  float mn[kLanes], mx[kLanes], flag[kLanes];
  for (int j = 0; j < kLanes; ++j) {
    mn[j] = kInf;
    mx[j] = -kInf;
    flag[j] = 0;
  }
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      float v = data[i + j];
      mn[j] = v < mn[j] ? v : mn[j];
      mx[j] = v > mx[j] ? v : mx[j];
      flag[j] += v - v;
    }
  }
  for (int j = 0; i < n; ++i, ++j) {
    float v = data[i];
    mn[j] = v < mn[j] ? v : mn[j];
    mx[j] = v > mx[j] ? v : mx[j];
    flag[j] += v - v;
  }
  MinMaxScan scan{kInf, -kInf, true};
  float total = 0;
  for (int j = 0; j < kLanes; ++j) {
    scan.min = std::min(scan.min, mn[j]);
    scan.max = std::max(scan.max, mx[j]);
    total += flag[j];
  }
  scan.allFinite = total == 0;
  return scan;
}

QFX_MULTIVERSION
bool qfx::detail::scanPerChannelMinMax(const float *data, int64_t outer,
                                       int64_t channels, int64_t inner,
                                       float *minVals, float *maxVals) {
  if (inner == 1) {
    // Channels are the innermost dimension: fold whole rows elementwise. An
    // all-ones exponent marks NaN or infinity; OR-ing the flags is a
    // reduction the vectorizer may reorder, unlike a float sum.
    uint32_t nonFinite = 0;
    for (int64_t o = 0; o < outer; ++o) {
      const float *row = data + o * channels;
      for (int64_t c = 0; c < channels; ++c) {
        float v = row[c];
        uint32_t bits;
        std::memcpy(&bits, &row[c], sizeof(bits));
        minVals[c] = v < minVals[c] ? v : minVals[c];
        maxVals[c] = v > maxVals[c] ? v : maxVals[c];
        nonFinite |= (bits & 0x7f800000u) == 0x7f800000u;
      }
    }
    return nonFinite == 0;
  }
  bool allFinite = true;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t c = 0; c < channels; ++c) {
      MinMaxScan scan = scanMinMax(data + (o * channels + c) * inner, inner);
      allFinite &= scan.allFinite;
      minVals[c] = std::min(minVals[c], scan.min);
      maxVals[c] = std::max(maxVals[c], scan.max);
    }
  }
  return allFinite;
}

void qfx::detail::countNonFinite(const float *data, int64_t n, int64_t &numNaN,
                                 int64_t &numInf) {
  numNaN = 0;
  numInf = 0;
  for (int64_t i = 0; i < n; ++i) {
    numNaN += std::isnan(data[i]);
    numInf += std::isinf(data[i]);
  }
}

QFX_MULTIVERSION
static void histogramBlockCounts(const float *data, int64_t n, float left,
                                 float right, int64_t bins,
                                 uint32_t *subCounts) {
  // Dropped values get an index past the last bin, so that the index
  // computation has no branch and vectorizes. The scatter stays scalar; it
  // round-robins over four sub-histograms so that runs of equal bins do not
  // serialize on one counter.
  constexpr int kBlock = 256;
  int32_t index[kBlock];
  const float numBins = static_cast<float>(bins);
  const float width = right - left;
  const int32_t last = static_cast<int32_t>(bins - 1);
  const int32_t dropped = static_cast<int32_t>(bins);
  const int64_t stride = bins + 1;
  for (int64_t i = 0; i < n; i += kBlock) {
    int m = static_cast<int>(std::min<int64_t>(kBlock, n - i));
    for (int j = 0; j < m; ++j) {
      float v = data[i + j];
      bool inside = v >= left && v <= right;
      // aten: static_cast<int64_t>((elt - leftmost) * (edges - 1) / width).
      float pos = ((v - left) * numBins) / width;
      int32_t bin = static_cast<int32_t>(inside ? pos : 0.0f);
      bin = bin > last ? last : bin;
      index[j] = inside ? bin : dropped;
    }
    int j = 0;
    for (; j + 4 <= m; j += 4) {
      ++subCounts[index[j]];
      ++subCounts[stride + index[j + 1]];
      ++subCounts[2 * stride + index[j + 2]];
      ++subCounts[3 * stride + index[j + 3]];
    }
    for (; j < m; ++j)
      ++subCounts[index[j]];
  }
}

void qfx::detail::histogramCounts(const float *data, int64_t n, float left,
                                  float right, int64_t bins, int64_t *counts) {
  // uint32 sub-counts cannot overflow within a chunk.
  constexpr int64_t kChunk = int64_t(1) << 30;
  std::vector<uint32_t> subCounts(4 * (bins + 1));
  for (int64_t begin = 0; begin < n; begin += kChunk) {
    std::fill(subCounts.begin(), subCounts.end(), 0);
    histogramBlockCounts(data + begin, std::min(kChunk, n - begin), left, right,
                         bins, subCounts.data());
    for (int64_t b = 0; b < bins; ++b)
      for (int64_t k = 0; k < 4; ++k)
        counts[b] += subCounts[k * (bins + 1) + b];
  }
}

namespace {
/// aten's multi_row_sum: `size` rows of `kRows` x `kVec` floats summed into
/// kRows vector accumulators through four levels of partial sums.
constexpr int kVec = 8;
constexpr int kRows = 4;
struct VecAcc {
  float v[kRows][kVec];
};
} // namespace

static int64_t ceilLog2(int64_t x) {
  if (x <= 2)
    return x <= 1 ? 0 : 1;
  int64_t bits = 0;
  int64_t v = x - 1;
  while (v > 0) {
    v >>= 1;
    ++bits;
  }
  return bits;
}

// Sums `size` groups of kRows x width floats starting at `data` (row stride
// kRows * width) into acc[k][lane], the order of aten's multi_row_sum.
static void multiRowSum(const float *data, int64_t size, int width,
                        float out[kRows][kVec]) {
  constexpr int kLevels = 4;
  const int64_t levelPower = std::max<int64_t>(4, ceilLog2(size) / kLevels);
  const int64_t levelStep = int64_t(1) << levelPower;
  const int64_t levelMask = levelStep - 1;
  float acc[kLevels][kRows][kVec] = {};
  auto addRow = [&](int64_t i) {
    const float *row = data + i * kRows * width;
    for (int k = 0; k < kRows; ++k)
      for (int l = 0; l < width; ++l)
        acc[0][k][l] += row[k * width + l];
  };
  int64_t i = 0;
  while (i + levelStep <= size) {
    for (int64_t j = 0; j < levelStep; ++j, ++i)
      addRow(i);
    for (int j = 1; j < kLevels; ++j) {
      for (int k = 0; k < kRows; ++k)
        for (int l = 0; l < width; ++l) {
          acc[j][k][l] += acc[j - 1][k][l];
          acc[j - 1][k][l] = 0;
        }
      if ((i & (levelMask << (j * levelPower))) != 0)
        break;
    }
  }
  for (; i < size; ++i)
    addRow(i);
  for (int j = 1; j < kLevels; ++j)
    for (int k = 0; k < kRows; ++k)
      for (int l = 0; l < width; ++l)
        acc[0][k][l] += acc[j][k][l];
  for (int k = 0; k < kRows; ++k)
    for (int l = 0; l < width; ++l)
      out[k][l] = acc[0][k][l];
}

// aten's cascade_sum: contiguous inputs of at least one vector go through
// vectorized_inner_sum (row_sum over vectors, then a scalar tail, then the
// lanes); shorter inputs through row_sum over scalars.
float qfx::detail::cascadeSum(llvm::ArrayRef<float> values) {
  const int64_t n = static_cast<int64_t>(values.size());
  const int width = n >= kVec ? kVec : 1;
  const int64_t numVecs = n / width;
  const int64_t sizeIlp = numVecs / kRows;
  float partial[kRows][kVec] = {};
  if (sizeIlp > 0)
    multiRowSum(values.data(), sizeIlp, width, partial);
  for (int64_t v = sizeIlp * kRows; v < numVecs; ++v)
    for (int l = 0; l < width; ++l)
      partial[0][l] += values[v * width + l];
  for (int k = 1; k < kRows; ++k)
    for (int l = 0; l < width; ++l)
      partial[0][l] += partial[k][l];
  float result = 0;
  for (int64_t i = numVecs * width; i < n; ++i)
    result += values[i];
  for (int l = 0; l < width; ++l)
    result += partial[0][l];
  return result;
}
