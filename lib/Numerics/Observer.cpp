//===- Observer.cpp - Observers of torch.ao.quantization ------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// Follows torch/ao/quantization/observer.py of PyTorch 1.13. Every tensor
// expression there is evaluated in float32 (python scalars are rounded to
// float32 when they meet a float32 tensor); `.item()` values and python
// arithmetic are double. This file is compiled with -ffp-contract=off so that
// no multiply-add is fused.
//
//===----------------------------------------------------------------------===//

#include "qfx/Numerics/Observer.h"

#include "ChannelLayout.h"
#include "ObserverKernels.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace qfx;

static constexpr float kInf = std::numeric_limits<float>::infinity();

bool ObserverState::operator==(const ObserverState &other) const {
  return minVals == other.minVals && maxVals == other.maxVals &&
         histogram == other.histogram;
}

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static bool isMovingAverage(ObserverKind kind) {
  return kind == ObserverKind::MovingAverageMinMax ||
         kind == ObserverKind::MovingAveragePerChannelMinMax;
}

static bool isPerTensorMinMax(ObserverKind kind) {
  return kind == ObserverKind::MinMax ||
         kind == ObserverKind::MovingAverageMinMax;
}

Observer::Observer(const ObserverSpec &spec) : spec(spec) { reset(); }

llvm::Expected<Observer> Observer::create(const ObserverSpec &spec) {
  if (llvm::Error err = spec.validate())
    return std::move(err);
  return Observer(spec);
}

void Observer::reset() {
  state = ObserverState();
  if (isPerTensorMinMax(spec.kind) || spec.kind == ObserverKind::Histogram) {
    state.minVals.push_back(kInf);
    state.maxVals.push_back(-kInf);
  }
  if (spec.kind == ObserverKind::Histogram)
    state.histogram.assign(spec.getBins(), 0.0f);
}

bool Observer::hasStatistics() const {
  if (isPerTensorMinMax(spec.kind) || spec.kind == ObserverKind::Histogram)
    return !(state.minVals[0] == kInf && state.maxVals[0] == -kInf);
  if (isPerChannelObserver(spec.kind))
    return !state.minVals.empty();
  return false;
}

llvm::Error Observer::setState(ObserverState newState) {
  auto fail = [&](const llvm::Twine &what) {
    return makeError(stringifyObserverKind(spec.kind) + " observer: " + what);
  };
  if (newState.minVals.size() != newState.maxVals.size())
    return fail(llvm::formatv("{0} minima but {1} maxima",
                              newState.minVals.size(),
                              newState.maxVals.size()));
  if (isPerTensorMinMax(spec.kind) || spec.kind == ObserverKind::Histogram) {
    if (newState.minVals.size() != 1)
      return fail(llvm::formatv("expected one minimum and one maximum, got "
                                "{0}",
                                newState.minVals.size()));
  } else if (!isPerChannelObserver(spec.kind) && !newState.minVals.empty()) {
    return fail("keeps no statistics");
  }
  size_t bins =
      spec.kind == ObserverKind::Histogram ? size_t(spec.getBins()) : 0;
  if (newState.histogram.size() != bins)
    return fail(llvm::formatv("expected {0} histogram bins, got {1}", bins,
                              newState.histogram.size()));
  for (size_t i = 0, e = newState.minVals.size(); i < e; ++i) {
    float mn = newState.minVals[i], mx = newState.maxVals[i];
    bool empty = mn == kInf && mx == -kInf;
    if (std::isnan(mn) || std::isnan(mx) || (!empty && mn > mx))
      return fail(
          llvm::formatv("entry {0}: invalid range [{1}, {2}]", i, mn, mx));
  }
  state = std::move(newState);
  return llvm::Error::success();
}

static llvm::Error nonFiniteError(const ObserverSpec &spec,
                                  llvm::ArrayRef<float> values,
                                  llvm::StringRef tensorName) {
  int64_t numNaN = 0, numInf = 0;
  detail::countNonFinite(values.data(), values.size(), numNaN, numInf);
  return makeError(llvm::formatv(
      "tensor '{0}' observed by the {1} observer has {2} NaN and {3} infinite "
      "value(s) among {4}; its statistics are left unchanged",
      tensorName, stringifyObserverKind(spec.kind), numNaN, numInf,
      values.size()));
}

llvm::Error Observer::observe(llvm::ArrayRef<float> values,
                              llvm::ArrayRef<int64_t> shape,
                              llvm::StringRef tensorName) {
  if (!isCalibratingObserver(spec.kind))
    return llvm::Error::success();
  llvm::SmallVector<int64_t, 1> flatShape;
  if (shape.empty()) {
    flatShape.push_back(static_cast<int64_t>(values.size()));
    shape = flatShape;
  }
  if (isPerChannelObserver(spec.kind))
    return observePerChannel(values, shape, tensorName);
  auto layout = detail::getChannelLayout(shape, 0, values.size());
  if (!layout)
    return makeError("tensor '" + tensorName +
                     "': " + llvm::toString(layout.takeError()));
  // PyTorch's observers return early on empty tensors.
  if (values.empty())
    return llvm::Error::success();
  detail::MinMaxScan scan = detail::scanMinMax(values.data(), values.size());
  if (!scan.allFinite)
    return nonFiniteError(spec, values, tensorName);
  if (spec.kind == ObserverKind::Histogram)
    return observeHistogram(values, scan.min, scan.max);
  observeMinMax(scan.min, scan.max);
  return llvm::Error::success();
}

void Observer::observeMinMax(float batchMin, float batchMax) {
  float &minVal = state.minVals[0];
  float &maxVal = state.maxVals[0];
  if (spec.kind == ObserverKind::MinMax ||
      (minVal == kInf && maxVal == -kInf)) {
    minVal = std::min(batchMin, minVal);
    maxVal = std::max(batchMax, maxVal);
    return;
  }
  // min_val + averaging_constant * (min_val_cur - min_val), in float32.
  float c = static_cast<float>(spec.getAveragingConstant());
  float minStep = c * (batchMin - minVal);
  float maxStep = c * (batchMax - maxVal);
  minVal = minVal + minStep;
  maxVal = maxVal + maxStep;
}

llvm::Error Observer::observePerChannel(llvm::ArrayRef<float> values,
                                        llvm::ArrayRef<int64_t> shape,
                                        llvm::StringRef tensorName) {
  int64_t axis = spec.getChAxis();
  auto layout = detail::getChannelLayout(shape, axis, values.size());
  if (!layout)
    return makeError("tensor '" + tensorName +
                     "': " + llvm::toString(layout.takeError()));
  if (values.empty())
    return llvm::Error::success();
  size_t channels = static_cast<size_t>(layout->channels);
  if (!state.minVals.empty() && state.minVals.size() != channels)
    return makeError(llvm::formatv("tensor '{0}': {1} channels along axis {2} "
                                   "but the observer has seen {3}",
                                   tensorName, channels, axis,
                                   state.minVals.size()));
  llvm::SmallVector<float> batchMin(channels, kInf), batchMax(channels, -kInf);
  if (!detail::scanPerChannelMinMax(values.data(), layout->outer,
                                    layout->channels, layout->inner,
                                    batchMin.data(), batchMax.data()))
    return nonFiniteError(spec, values, tensorName);
  if (state.minVals.empty()) {
    state.minVals.assign(batchMin.begin(), batchMin.end());
    state.maxVals.assign(batchMax.begin(), batchMax.end());
    return llvm::Error::success();
  }
  if (spec.kind == ObserverKind::PerChannelMinMax) {
    for (size_t c = 0; c < channels; ++c) {
      state.minVals[c] = std::min(batchMin[c], state.minVals[c]);
      state.maxVals[c] = std::max(batchMax[c], state.maxVals[c]);
    }
    return llvm::Error::success();
  }
  float k = static_cast<float>(spec.getAveragingConstant());
  for (size_t c = 0; c < channels; ++c) {
    float minStep = k * (batchMin[c] - state.minVals[c]);
    float maxStep = k * (batchMax[c] - state.maxVals[c]);
    state.minVals[c] = state.minVals[c] + minStep;
    state.maxVals[c] = state.maxVals[c] + maxStep;
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// HistogramObserver
//===----------------------------------------------------------------------===//

/// torch.histc(x, bins, min=minArg, max=maxArg) on CPU, where the observer
/// passes int(min_val) and int(max_val): the range is truncated toward zero,
/// and values outside it are dropped, as in PyTorch 1.13. Equal bounds fall
/// back to the data's own range, then to [v - 1, v + 1].
static std::vector<float> histc(llvm::ArrayRef<float> values, int64_t bins,
                                float minVal, float maxVal, float dataMin,
                                float dataMax) {
  double left = std::trunc(static_cast<double>(minVal));
  double right = std::trunc(static_cast<double>(maxVal));
  if (left == right) {
    left = dataMin;
    right = dataMax;
  }
  if (left == right) {
    left -= 1;
    right += 1;
  }
  std::vector<int64_t> counts(bins, 0);
  detail::histogramCounts(values.data(), values.size(),
                          static_cast<float>(left), static_cast<float>(right),
                          bins, counts.data());
  std::vector<float> histogram(bins);
  for (int64_t i = 0; i < bins; ++i)
    histogram[i] = static_cast<float>(counts[i]);
  return histogram;
}

/// HistogramObserver._combine_histograms: `oldHist` upsampled by
/// `upsampleRate`, placed at `startIdx` on a grid of bins * downsampleRate
/// cells, integrated in double and downsampled, then added to `newHist`.
/// Only the cells the old histogram covers are visited, so memory and time do
/// not grow with downsampleRate (PyTorch materializes the whole grid).
static void combineHistograms(std::vector<float> &newHist,
                              llvm::ArrayRef<float> oldHist,
                              int64_t upsampleRate, int64_t downsampleRate,
                              int64_t startIdx) {
  int64_t bins = static_cast<int64_t>(newHist.size());
  int64_t gridCells = bins * downsampleRate;
  int64_t regionBegin = startIdx;
  // PyTorch's slice assignment fails when the region overhangs the grid;
  // qfx drops the overhanging cells instead.
  int64_t regionEnd = std::min(startIdx + bins * upsampleRate, gridCells);
  std::vector<double> integral(bins);
  double acc = 0;
  int64_t cell = std::max<int64_t>(regionBegin, 0);
  for (int64_t k = 0; k < bins; ++k) {
    int64_t sampleEnd = (k + 1) * downsampleRate;
    int64_t stop = std::min(sampleEnd, regionEnd);
    for (; cell < stop; ++cell)
      acc += static_cast<double>(oldHist[(cell - regionBegin) / upsampleRate]);
    integral[k] = acc;
  }
  for (int64_t k = 0; k < bins; ++k) {
    // The shifted integral lives in a float32 tensor.
    float shifted = k == 0 ? 0.0f : static_cast<float>(integral[k - 1]);
    double interpolated = (integral[k] - static_cast<double>(shifted)) /
                          static_cast<double>(upsampleRate);
    newHist[k] = newHist[k] + static_cast<float>(interpolated);
  }
}

namespace {
/// The outcome of HistogramObserver._adjust_min_max.
struct RangeAdjustment {
  /// The combined maximum, grown to a whole number of downsampled bins.
  float combinedMax;
  int64_t downsampleRate;
  /// Where the old histogram starts in the upsampled combined range.
  int64_t startIdx;
};
} // namespace

/// PyTorch's _adjust_min_max, in float32: the downsample rate that fits the
/// old histogram [minVal, maxVal] into [combinedMin, combinedMax], and the
/// grown maximum. None if the range cannot be re-binned (a degenerate or
/// absurd ratio).
static std::optional<RangeAdjustment>
adjustMinMax(float minVal, float maxVal, float combinedMin, float combinedMax,
             int64_t bins, int64_t upsampleRate) {
  float histBinWidth =
      (maxVal - minVal) / static_cast<float>(bins * upsampleRate);
  float histSpan = static_cast<float>(bins) * histBinWidth;
  float ratio = std::ceil((combinedMax - combinedMin) / histSpan);
  if (!(ratio >= 1 && ratio < 1e9f))
    return std::nullopt;
  auto downsampleRate = static_cast<int64_t>(ratio);
  float grown = static_cast<float>(downsampleRate) * histSpan;
  float excess = grown - (combinedMax - combinedMin);
  auto startIdx = static_cast<int64_t>(
      std::nearbyint((minVal - combinedMin) / histBinWidth));
  return RangeAdjustment{combinedMax + excess, downsampleRate, startIdx};
}

/// Adds the old histogram to `target`: bin by bin when the range did not
/// change, else re-binned as PyTorch's _combine_histograms does.
static void addOldHistogram(std::vector<float> &target,
                            const std::vector<float> &old, bool sameRange,
                            int64_t upsampleRate,
                            const RangeAdjustment &adjusted) {
  if (sameRange) {
    for (size_t i = 0; i < target.size(); ++i)
      target[i] = target[i] + old[i];
    return;
  }
  combineHistograms(target, old, upsampleRate, adjusted.downsampleRate,
                    adjusted.startIdx);
}

llvm::Error Observer::observeHistogram(llvm::ArrayRef<float> values,
                                       float batchMin, float batchMax) {
  int64_t bins = spec.getBins();
  float &minVal = state.minVals[0];
  float &maxVal = state.maxVals[0];
  bool sameValues = minVal == maxVal;
  bool uninitialized = minVal == kInf && maxVal == -kInf;
  if (uninitialized || sameValues) {
    // PyTorch restarts the histogram here, dropping what a constant tensor
    // contributed before.
    minVal = batchMin;
    maxVal = batchMax;
    state.histogram =
        histc(values, bins, batchMin, batchMax, batchMin, batchMax);
    return llvm::Error::success();
  }
  float combinedMin = std::min(batchMin, minVal);
  float combinedMax = std::max(batchMax, maxVal);

  int64_t upsampleRate = spec.getUpsampleRate();
  std::optional<RangeAdjustment> adjusted = adjustMinMax(
      minVal, maxVal, combinedMin, combinedMax, bins, upsampleRate);
  if (!adjusted)
    return makeError(llvm::formatv(
        "histogram observer: cannot re-bin the range [{0}, {1}] onto "
        "[{2}, {3}]",
        minVal, maxVal, combinedMin, combinedMax));
  combinedMax = adjusted->combinedMax;

  std::vector<float> combined =
      histc(values, bins, combinedMin, combinedMax, batchMin, batchMax);
  addOldHistogram(combined, state.histogram,
                  combinedMin == minVal && combinedMax == maxVal, upsampleRate,
                  *adjusted);
  state.histogram = std::move(combined);
  minVal = combinedMin;
  maxVal = combinedMax;
  return llvm::Error::success();
}

/// torch.div(a, b, rounding_mode='floor') for float32 (c10's
/// div_floor_floating).
static float divFloor(float a, float b) {
  if (b == 0)
    return a / b;
  float mod = std::fmod(a, b);
  float div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0))
    div -= 1.0f;
  float floorDiv;
  if (div != 0) {
    floorDiv = std::floor(div);
    if (div - floorDiv > 0.5f)
      floorDiv += 1.0f;
  } else {
    floorDiv = std::copysign(0.0f, a / b);
  }
  return floorDiv;
}

/// HistogramObserver._get_norm on float32 values.
static float getNorm(float deltaBegin, float deltaEnd, float density) {
  float cubeEnd = deltaEnd * deltaEnd * deltaEnd;
  float cubeBegin = deltaBegin * deltaBegin * deltaBegin;
  float norm = (cubeEnd - cubeBegin) / 3.0f;
  return density * norm;
}

namespace {
/// The L2 search of HistogramObserver over one histogram.
struct HistogramSearch {
  llvm::ArrayRef<float> histogram;
  float minVal;
  float maxVal;
  int64_t dstBins;

  double quantizationError(int64_t nextStartBin, int64_t nextEndBin) const;
  std::pair<float, float> nonLinearParamSearch() const;
};
} // namespace

double HistogramSearch::quantizationError(int64_t nextStartBin,
                                          int64_t nextEndBin) const {
  int64_t bins = static_cast<int64_t>(histogram.size());
  // Python floats (double) from .item().
  double binWidthD =
      (static_cast<double>(maxVal) - static_cast<double>(minVal)) / bins;
  double dstBinWidthD = binWidthD *
                        static_cast<double>(nextEndBin - nextStartBin + 1) /
                        static_cast<double>(dstBins);
  if (dstBinWidthD == 0.0)
    return 0.0;
  // Where they meet float32 tensors they become float32.
  float binWidth = static_cast<float>(binWidthD);
  float dstBinWidth = static_cast<float>(dstBinWidthD);
  float halfDst = static_cast<float>(dstBinWidthD / 2);
  float negHalfDst = static_cast<float>(-dstBinWidthD / 2);
  float lastDstBin = static_cast<float>(dstBins - 1);
  // _get_norm(tensor(-w/2), tensor(w/2), density) without the density.
  float fullNormCore;
  {
    float cubeEnd = halfDst * halfDst * halfDst;
    float cubeBegin = negHalfDst * negHalfDst * negHalfDst;
    fullNormCore = (cubeEnd - cubeBegin) / 3.0f;
  }
  std::vector<float> norm(bins);
  for (int64_t i = 0; i < bins; ++i) {
    float srcBegin = static_cast<float>(i - nextStartBin) * binWidth;
    float srcEnd = srcBegin + binWidth;
    float dstOfBegin =
        std::min(std::max(divFloor(srcBegin, dstBinWidth), 0.0f), lastDstBin);
    float dstOfBeginCenter = (dstOfBegin + 0.5f) * dstBinWidth;
    float dstOfEnd =
        std::min(std::max(divFloor(srcEnd, dstBinWidth), 0.0f), lastDstBin);
    float density = histogram[i] / binWidth;

    float total = 0.0f;
    float deltaBegin = srcBegin - dstOfBeginCenter;
    total = total + getNorm(deltaBegin, halfDst, density);

    float between = dstOfEnd - dstOfBegin;
    between = between - 1.0f;
    total = total + between * (density * fullNormCore);

    float dstOfEndCenter = dstOfEnd * dstBinWidth + halfDst;
    float deltaEnd = srcEnd - dstOfEndCenter;
    total = total + getNorm(negHalfDst, deltaEnd, density);
    norm[i] = total;
  }
  return detail::cascadeSum(norm);
}

std::pair<float, float> HistogramSearch::nonLinearParamSearch() const {
  int64_t bins = static_cast<int64_t>(histogram.size());
  float binWidth = (maxVal - minVal) / static_cast<float>(bins);
  double total = detail::cascadeSum(histogram);
  // torch.cumsum on float32 accumulates in double and stores float32.
  std::vector<float> cSum(bins);
  double running = 0;
  for (int64_t i = 0; i < bins; ++i) {
    running += static_cast<double>(histogram[i]);
    cSum[i] = static_cast<float>(running);
  }

  const double stepsize = 1e-5;
  double alpha = 0.0, beta = 1.0;
  int64_t startBin = 0, endBin = bins - 1;
  double normMin = std::numeric_limits<double>::infinity();
  while (alpha < beta) {
    double nextAlpha = alpha + stepsize;
    double nextBeta = beta - stepsize;
    // cSum[l] < next_alpha * total compares in float32.
    float lowTarget = static_cast<float>(nextAlpha * total);
    float highTarget = static_cast<float>(nextBeta * total);
    int64_t l = startBin, r = endBin;
    while (l < endBin && cSum[l] < lowTarget)
      ++l;
    while (r > startBin && cSum[r] > highTarget)
      --r;
    int64_t nextStartBin = startBin, nextEndBin = endBin;
    if ((l - startBin) > (endBin - r)) {
      nextStartBin = l;
      alpha = nextAlpha;
    } else {
      nextEndBin = r;
      beta = nextBeta;
    }
    if (nextStartBin == startBin && nextEndBin == endBin)
      continue;
    double norm = quantizationError(nextStartBin, nextEndBin);
    if (norm > normMin)
      break;
    normMin = norm;
    startBin = nextStartBin;
    endBin = nextEndBin;
  }
  float newMin = minVal + binWidth * static_cast<float>(startBin);
  float newMax = minVal + binWidth * static_cast<float>(endBin + 1);
  return {newMin, newMax};
}

//===----------------------------------------------------------------------===//
// Quantization parameters
//===----------------------------------------------------------------------===//

/// float -> int32 as x86's cvttss2si: out of range and NaN give INT32_MIN.
static int32_t truncToInt32(float v) {
  if (!(v >= -2147483648.0f && v < 2147483648.0f))
    return INT32_MIN;
  return static_cast<int32_t>(v);
}

static QParams defaultQParams(const ObserverSpec &spec) {
  QParams qparams;
  qparams.qscheme = spec.getQScheme();
  qparams.dtype = spec.getDType();
  qparams.range = spec.getQuantRange();
  qparams.chAxis = spec.getChAxis();
  qparams.scales.push_back(1.0f);
  if (qparams.qscheme == QScheme::PerChannelAffineFloatQParams)
    qparams.floatZeroPoints.push_back(0.0f);
  else
    qparams.zeroPoints.push_back(0);
  return qparams;
}

llvm::Expected<QParams>
qfx::calculateQParamsFromMinMax(const ObserverSpec &spec,
                                llvm::ArrayRef<float> minVals,
                                llvm::ArrayRef<float> maxVals) {
  if (minVals.size() != maxVals.size())
    return makeError(llvm::formatv("{0} minima but {1} maxima", minVals.size(),
                                   maxVals.size()));
  // check_min_max_valid: no statistics give the defaults.
  if (minVals.empty() ||
      (minVals.size() == 1 && minVals[0] == kInf && maxVals[0] == -kInf))
    return defaultQParams(spec);
  for (size_t i = 0, e = minVals.size(); i < e; ++i)
    if (!(minVals[i] <= maxVals[i]))
      return makeError(llvm::formatv("min {0} should be less than max {1}",
                                     minVals[i], maxVals[i]));

  QParams qparams = defaultQParams(spec);
  qparams.scales.clear();
  qparams.zeroPoints.clear();
  qparams.floatZeroPoints.clear();
  QuantRange range = qparams.range;
  float eps = static_cast<float>(spec.getEps());
  // float(quant_max - quant_min) is a python float, rounded to float32 where
  // it divides a tensor.
  double rangeWidth = static_cast<double>(range.max - range.min);
  QScheme scheme = qparams.qscheme;
  bool customRange = spec.quantMin.has_value() && spec.quantMax.has_value();
  for (size_t i = 0, e = minVals.size(); i < e; ++i) {
    float minVal = minVals[i], maxVal = maxVals[i];
    float minNeg = std::min(minVal, 0.0f);
    float maxPos = std::max(maxVal, 0.0f);
    if (isSymmetric(scheme)) {
      maxPos = std::max(-minNeg, maxPos);
      float scale = maxPos / static_cast<float>(rangeWidth / 2);
      scale = std::max(scale, eps);
      int64_t zeroPoint = 0;
      if (qparams.dtype == DType::QUInt8) {
        int64_t sum = range.min + range.max;
        // Python's floor division.
        zeroPoint =
            customRange ? (sum >= 0 ? sum / 2 : -((-sum + 1) / 2)) : 128;
      }
      qparams.scales.push_back(scale);
      qparams.zeroPoints.push_back(zeroPoint);
    } else if (scheme == QScheme::PerChannelAffineFloatQParams) {
      float scale = (maxVal - minVal) / static_cast<float>(rangeWidth);
      scale = scale > eps ? scale : 1.0f;
      float negMin = -1.0f * minVal;
      qparams.scales.push_back(scale);
      qparams.floatZeroPoints.push_back(negMin / scale);
    } else {
      float scale = (maxPos - minNeg) / static_cast<float>(rangeWidth);
      scale = std::max(scale, eps);
      int32_t rounded = truncToInt32(std::nearbyint(minNeg / scale));
      // quant_min - tensor(int32) stays int32 and wraps.
      int32_t zeroPoint = static_cast<int32_t>(static_cast<uint32_t>(
          static_cast<uint32_t>(static_cast<int32_t>(range.min)) -
          static_cast<uint32_t>(rounded)));
      int64_t clamped =
          std::min(std::max<int64_t>(zeroPoint, range.min), range.max);
      qparams.scales.push_back(scale);
      qparams.zeroPoints.push_back(clamped);
    }
  }
  return qparams;
}

llvm::Expected<QParams> Observer::calculateQParams() const {
  switch (spec.kind) {
  case ObserverKind::Placeholder:
  case ObserverKind::Noop:
  case ObserverKind::ReuseInput:
    return makeError(llvm::formatv("calculate_qparams should not be called "
                                   "for {0}",
                                   getObserverClassName(spec.kind)));
  case ObserverKind::FixedQParams: {
    QParams qparams;
    qparams.qscheme = spec.getQScheme();
    qparams.dtype = spec.getDType();
    qparams.range = spec.getQuantRange();
    qparams.scales.push_back(static_cast<float>(*spec.scale));
    qparams.zeroPoints.push_back(*spec.zeroPoint);
    return qparams;
  }
  case ObserverKind::Histogram: {
    if (!hasStatistics())
      return defaultQParams(spec);
    // dst_nbins = 2 ** torch.iinfo(dtype).bits; iinfo(quint4x2).bits is 8.
    int64_t bits = spec.getDType() == DType::QInt32 ? 32 : 8;
    HistogramSearch search{state.histogram, state.minVals[0], state.maxVals[0],
                           int64_t(1) << bits};
    auto [newMin, newMax] = search.nonLinearParamSearch();
    return calculateQParamsFromMinMax(spec, {newMin}, {newMax});
  }
  default:
    return calculateQParamsFromMinMax(spec, state.minVals, state.maxVals);
  }
}

//===----------------------------------------------------------------------===//
// Merging
//===----------------------------------------------------------------------===//

llvm::Error Observer::merge(const Observer &other) {
  if (other.spec != spec)
    return makeError(llvm::formatv("cannot merge a {0} observer into a {1} "
                                   "observer with a different spec",
                                   stringifyObserverKind(other.spec.kind),
                                   stringifyObserverKind(spec.kind)));
  if (!isCalibratingObserver(spec.kind) || !other.hasStatistics())
    return llvm::Error::success();
  if (isMovingAverage(spec.kind))
    return makeError(llvm::formatv(
        "{0} observers cannot merge: a moving average depends on the order "
        "of the batches",
        stringifyObserverKind(spec.kind)));
  if (!hasStatistics()) {
    state = other.state;
    return llvm::Error::success();
  }
  if (spec.kind != ObserverKind::Histogram) {
    if (state.minVals.size() != other.state.minVals.size())
      return makeError(llvm::formatv("cannot merge per-channel statistics of "
                                     "{0} and {1} channels",
                                     state.minVals.size(),
                                     other.state.minVals.size()));
    for (size_t c = 0, e = state.minVals.size(); c < e; ++c) {
      state.minVals[c] = std::min(state.minVals[c], other.state.minVals[c]);
      state.maxVals[c] = std::max(state.maxVals[c], other.state.maxVals[c]);
    }
    return llvm::Error::success();
  }
  return mergeHistogram(other.state);
}

/// Adds the counts of a histogram over [lo, hi] to `out`, a histogram over
/// [gridLo, gridHi], spreading each bin's count over the bins it overlaps in
/// proportion to the overlap. A histogram of one value (lo == hi) is a point
/// mass there.
static void rebinOnto(llvm::ArrayRef<float> hist, double lo, double hi,
                      double gridLo, double gridHi, std::vector<float> &out) {
  int64_t outBins = static_cast<int64_t>(out.size());
  double gridWidth = (gridHi - gridLo) / outBins;
  auto binOf = [&](double x) {
    int64_t b = static_cast<int64_t>(std::floor((x - gridLo) / gridWidth));
    return std::min(std::max<int64_t>(b, 0), outBins - 1);
  };
  if (lo == hi || gridWidth <= 0) {
    double total = 0;
    for (float c : hist)
      total += c;
    out[binOf(lo)] += static_cast<float>(total);
    return;
  }
  int64_t bins = static_cast<int64_t>(hist.size());
  double width = (hi - lo) / bins;
  for (int64_t i = 0; i < bins; ++i) {
    if (hist[i] == 0)
      continue;
    double begin = lo + i * width, end = begin + width;
    int64_t first = binOf(begin), last = binOf(end);
    for (int64_t b = first; b <= last; ++b) {
      double cellBegin = gridLo + b * gridWidth;
      double cellEnd = cellBegin + gridWidth;
      if (b == 0)
        cellBegin = std::min(cellBegin, begin);
      if (b == outBins - 1)
        cellEnd = std::max(cellEnd, end);
      double overlap = std::min(end, cellEnd) - std::max(begin, cellBegin);
      if (overlap > 0)
        out[b] += static_cast<float>(hist[i] * (overlap / width));
    }
  }
}

// PyTorch has no merge; this folds `other` in the way forward() folds a new
// batch: the grid is the combined range adjusted as _adjust_min_max does for
// this observer, this histogram is carried over by _combine_histograms, and
// the other histogram (standing in for the batch's torch.histc) is re-binned
// onto the grid by overlap. The result is close to, but not the same as,
// observing both halves in sequence.
llvm::Error Observer::mergeHistogram(const ObserverState &other) {
  const ObserverState *self = &state, *incoming = &other;
  ObserverState selfCopy;
  if (state.minVals[0] == state.maxVals[0] &&
      other.minVals[0] != other.maxVals[0]) {
    selfCopy = state;
    self = &other;
    incoming = &selfCopy;
  }
  int64_t bins = spec.getBins();
  float minVal = self->minVals[0], maxVal = self->maxVals[0];
  float otherMin = incoming->minVals[0], otherMax = incoming->maxVals[0];
  float combinedMin = std::min(otherMin, minVal);
  float combinedMax = std::max(otherMax, maxVal);
  std::vector<float> merged(bins, 0.0f);
  if (minVal == maxVal) {
    // Two constant tensors.
    if (combinedMin == combinedMax) {
      for (int64_t i = 0; i < bins; ++i)
        merged[i] = self->histogram[i] + incoming->histogram[i];
    } else {
      rebinOnto(self->histogram, minVal, minVal, combinedMin, combinedMax,
                merged);
      rebinOnto(incoming->histogram, otherMin, otherMin, combinedMin,
                combinedMax, merged);
    }
  } else {
    int64_t upsampleRate = spec.getUpsampleRate();
    std::optional<RangeAdjustment> adjusted = adjustMinMax(
        minVal, maxVal, combinedMin, combinedMax, bins, upsampleRate);
    if (!adjusted)
      return makeError(llvm::formatv(
          "histogram observer: cannot merge the ranges [{0}, {1}] and "
          "[{2}, {3}]",
          minVal, maxVal, otherMin, otherMax));
    combinedMax = adjusted->combinedMax;
    rebinOnto(incoming->histogram, otherMin, otherMax, combinedMin, combinedMax,
              merged);
    addOldHistogram(merged, self->histogram,
                    combinedMin == minVal && combinedMax == maxVal,
                    upsampleRate, *adjusted);
  }
  state.histogram = std::move(merged);
  state.minVals[0] = combinedMin;
  state.maxVals[0] = combinedMax;
  return llvm::Error::success();
}
