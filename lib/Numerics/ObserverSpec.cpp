//===- ObserverSpec.cpp - Observer kinds and their arguments --------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Numerics/ObserverSpec.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cfloat>
#include <cmath>

using namespace qfx;

namespace {
struct KindNames {
  ObserverKind kind;
  llvm::StringLiteral irName;
  llvm::StringLiteral className;
};
} // namespace

static constexpr KindNames kKindNames[] = {
    {ObserverKind::MinMax, "minmax", "MinMaxObserver"},
    {ObserverKind::MovingAverageMinMax, "moving_average_minmax",
     "MovingAverageMinMaxObserver"},
    {ObserverKind::PerChannelMinMax, "per_channel_minmax",
     "PerChannelMinMaxObserver"},
    {ObserverKind::MovingAveragePerChannelMinMax,
     "moving_average_per_channel_minmax",
     "MovingAveragePerChannelMinMaxObserver"},
    {ObserverKind::Histogram, "histogram", "HistogramObserver"},
    {ObserverKind::Placeholder, "placeholder", "PlaceholderObserver"},
    {ObserverKind::Noop, "noop", "NoopObserver"},
    {ObserverKind::FixedQParams, "fixed_qparams", "FixedQParamsObserver"},
    {ObserverKind::ReuseInput, "reuse_input", "ReuseInputObserver"},
};

llvm::StringRef qfx::stringifyObserverKind(ObserverKind kind) {
  return kKindNames[static_cast<unsigned>(kind)].irName;
}

std::optional<ObserverKind> qfx::symbolizeObserverKind(llvm::StringRef name) {
  for (const KindNames &names : kKindNames)
    if (names.irName == name)
      return names.kind;
  return std::nullopt;
}

llvm::StringRef qfx::allObserverKindNames() {
  return "minmax, moving_average_minmax, per_channel_minmax, "
         "moving_average_per_channel_minmax, histogram, placeholder, noop, "
         "fixed_qparams, reuse_input";
}

llvm::StringRef qfx::getObserverClassName(ObserverKind kind) {
  return kKindNames[static_cast<unsigned>(kind)].className;
}

std::optional<ObserverKind>
qfx::symbolizeObserverClassName(llvm::StringRef name) {
  for (const KindNames &names : kKindNames)
    if (names.className == name)
      return names.kind;
  return std::nullopt;
}

bool qfx::isCalibratingObserver(ObserverKind kind) {
  switch (kind) {
  case ObserverKind::MinMax:
  case ObserverKind::MovingAverageMinMax:
  case ObserverKind::PerChannelMinMax:
  case ObserverKind::MovingAveragePerChannelMinMax:
  case ObserverKind::Histogram:
    return true;
  default:
    return false;
  }
}

bool qfx::isPerChannelObserver(ObserverKind kind) {
  return kind == ObserverKind::PerChannelMinMax ||
         kind == ObserverKind::MovingAveragePerChannelMinMax;
}

static bool isMinMaxFamily(ObserverKind kind) {
  return isCalibratingObserver(kind) && kind != ObserverKind::Histogram;
}

static bool isMovingAverage(ObserverKind kind) {
  return kind == ObserverKind::MovingAverageMinMax ||
         kind == ObserverKind::MovingAveragePerChannelMinMax;
}

llvm::StringRef qfx::stringifyObserverArg(ObserverArg arg) {
  switch (arg) {
  case ObserverArg::DType:
    return "dtype";
  case ObserverArg::QScheme:
    return "qscheme";
  case ObserverArg::ReduceRange:
    return "reduce_range";
  case ObserverArg::QuantMin:
    return "quant_min";
  case ObserverArg::QuantMax:
    return "quant_max";
  case ObserverArg::Eps:
    return "eps";
  case ObserverArg::ChAxis:
    return "ch_axis";
  case ObserverArg::AveragingConstant:
    return "averaging_constant";
  case ObserverArg::Bins:
    return "bins";
  case ObserverArg::UpsampleRate:
    return "upsample_rate";
  case ObserverArg::Scale:
    return "scale";
  case ObserverArg::ZeroPoint:
    return "zero_point";
  case ObserverArg::ComputeDType:
    return "compute_dtype";
  }
  llvm_unreachable("unknown ObserverArg");
}

std::optional<ObserverArg> qfx::symbolizeObserverArg(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<ObserverArg>>(name)
      .Case("dtype", ObserverArg::DType)
      .Case("qscheme", ObserverArg::QScheme)
      .Case("reduce_range", ObserverArg::ReduceRange)
      .Case("quant_min", ObserverArg::QuantMin)
      .Case("quant_max", ObserverArg::QuantMax)
      .Case("eps", ObserverArg::Eps)
      .Case("ch_axis", ObserverArg::ChAxis)
      .Case("averaging_constant", ObserverArg::AveragingConstant)
      .Case("bins", ObserverArg::Bins)
      .Case("upsample_rate", ObserverArg::UpsampleRate)
      .Case("scale", ObserverArg::Scale)
      .Case("zero_point", ObserverArg::ZeroPoint)
      .Case("compute_dtype", ObserverArg::ComputeDType)
      .Default(std::nullopt);
}

// Mirrors the constructor signatures in torch/ao/quantization/observer.py.
bool qfx::observerTakesArg(ObserverKind kind, ObserverArg arg) {
  switch (arg) {
  case ObserverArg::DType:
    return kind != ObserverKind::ReuseInput;
  case ObserverArg::QScheme:
  case ObserverArg::QuantMin:
  case ObserverArg::QuantMax:
    return isCalibratingObserver(kind) || kind == ObserverKind::FixedQParams;
  case ObserverArg::ReduceRange:
  case ObserverArg::Eps:
    return isCalibratingObserver(kind);
  case ObserverArg::ChAxis:
    return isPerChannelObserver(kind);
  case ObserverArg::AveragingConstant:
    return isMovingAverage(kind);
  case ObserverArg::Bins:
  case ObserverArg::UpsampleRate:
    return kind == ObserverKind::Histogram;
  case ObserverArg::Scale:
  case ObserverArg::ZeroPoint:
    return kind == ObserverKind::FixedQParams;
  case ObserverArg::ComputeDType:
    return kind == ObserverKind::Placeholder;
  }
  llvm_unreachable("unknown ObserverArg");
}

bool ObserverSpec::isSet(ObserverArg arg) const {
  switch (arg) {
  case ObserverArg::DType:
    return dtype.has_value();
  case ObserverArg::QScheme:
    return qscheme.has_value();
  case ObserverArg::ReduceRange:
    return reduceRange.has_value();
  case ObserverArg::QuantMin:
    return quantMin.has_value();
  case ObserverArg::QuantMax:
    return quantMax.has_value();
  case ObserverArg::Eps:
    return eps.has_value();
  case ObserverArg::ChAxis:
    return chAxis.has_value();
  case ObserverArg::AveragingConstant:
    return averagingConstant.has_value();
  case ObserverArg::Bins:
    return bins.has_value();
  case ObserverArg::UpsampleRate:
    return upsampleRate.has_value();
  case ObserverArg::Scale:
    return scale.has_value();
  case ObserverArg::ZeroPoint:
    return zeroPoint.has_value();
  case ObserverArg::ComputeDType:
    return computeDType.has_value();
  }
  llvm_unreachable("unknown ObserverArg");
}

DType ObserverSpec::getDType() const {
  if (dtype)
    return *dtype;
  switch (kind) {
  case ObserverKind::Placeholder:
    return DType::Float32;
  case ObserverKind::Noop:
    return DType::Float16;
  default:
    return DType::QUInt8;
  }
}

QScheme ObserverSpec::getQScheme() const {
  if (qscheme)
    return *qscheme;
  return isPerChannelObserver(kind) ? QScheme::PerChannelAffine
                                    : QScheme::PerTensorAffine;
}

double ObserverSpec::getEps() const {
  return eps.value_or(static_cast<double>(FLT_EPSILON));
}

// PyTorch's calculate_qmin_qmax (torch/ao/quantization/utils.py), including
// its halving of a custom range under reduce_range.
QuantRange ObserverSpec::getQuantRange() const {
  if (kind == ObserverKind::FixedQParams)
    return {quantMin.value_or(0), quantMax.value_or(255)};
  DType type = getDType();
  bool reduce = getReduceRange();
  if (quantMin && quantMax) {
    if (!reduce)
      return {*quantMin, *quantMax};
    auto floorHalf = [](int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); };
    return {floorHalf(*quantMin), floorHalf(*quantMax)};
  }
  switch (type) {
  case DType::QInt8:
    return reduce ? QuantRange{-64, 63} : QuantRange{-128, 127};
  case DType::QUInt8:
    return reduce ? QuantRange{0, 127} : QuantRange{0, 255};
  default:
    return getDTypeRange(type);
  }
}

static llvm::Error specError(const ObserverSpec &spec,
                             const llvm::Twine &message) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv("{0} observer: ", stringifyObserverKind(spec.kind)).str() +
          message);
}

llvm::Error ObserverSpec::validate() const {
  for (unsigned a = 0; a <= static_cast<unsigned>(ObserverArg::ComputeDType);
       ++a) {
    auto arg = static_cast<ObserverArg>(a);
    if (isSet(arg) && !observerTakesArg(kind, arg))
      return specError(
          *this, "takes no argument '" + stringifyObserverArg(arg) + "' (" +
                     getObserverClassName(kind) + " has no such parameter)");
  }

  bool computesQParams =
      isCalibratingObserver(kind) || kind == ObserverKind::FixedQParams;
  if (!computesQParams)
    return llvm::Error::success();

  DType type = getDType();
  if (!isQuantizedDType(type))
    return specError(*this, "expected dtype quint8, qint8, qint32 or "
                            "quint4x2, got " +
                                stringifyDType(type));

  QScheme scheme = getQScheme();
  if (isPerChannelObserver(kind) && !isPerChannel(scheme))
    return specError(*this, "expected a per-channel qscheme, got " +
                                stringifyQScheme(scheme));
  if (!isPerChannelObserver(kind) && isPerChannel(scheme))
    return specError(*this, "expected qscheme per_tensor_affine or "
                            "per_tensor_symmetric, got " +
                                stringifyQScheme(scheme));

  if (quantMin.has_value() != quantMax.has_value())
    return specError(*this, "quant_min and quant_max must be given together");
  if (quantMin) {
    if (*quantMin >= *quantMax)
      return specError(*this, llvm::formatv("expected quant_min < quant_max, "
                                            "got [{0}, {1}]",
                                            *quantMin, *quantMax));
    if (*quantMin > 0 || *quantMax < 0)
      return specError(*this, llvm::formatv("the range [{0}, {1}] must "
                                            "include 0",
                                            *quantMin, *quantMax));
    QuantRange full = getDTypeRange(type);
    if (*quantMin < full.min || *quantMax > full.max)
      return specError(
          *this, llvm::formatv("the range [{0}, {1}] is outside {2}'s range "
                               "[{3}, {4}]",
                               *quantMin, *quantMax, stringifyDType(type),
                               full.min, full.max));
  }

  if (isMinMaxFamily(kind) && getReduceRange() && isSymmetric(scheme) &&
      type == DType::QUInt8)
    return specError(*this, "cannot reduce range for symmetric quantization "
                            "with quint8");

  if (eps && !(std::isfinite(*eps) && *eps > 0))
    return specError(*this, llvm::formatv("expected eps > 0, got {0}",
                                          llvm::format("%g", *eps)));
  if (averagingConstant && !(*averagingConstant > 0 && *averagingConstant <= 1))
    return specError(*this,
                     llvm::formatv("expected 0 < averaging_constant "
                                   "<= 1, got {0}",
                                   llvm::format("%g", *averagingConstant)));
  if (bins && *bins < 1)
    return specError(*this,
                     llvm::formatv("expected bins >= 1, got {0}", *bins));
  if (upsampleRate && *upsampleRate < 1)
    return specError(*this, llvm::formatv("expected upsample_rate >= 1, got "
                                          "{0}",
                                          *upsampleRate));
  // The histogram is allocated with bins entries and re-binned over
  // bins * upsample_rate cells (PyTorch allocates that many floats, times the
  // downsample rate).
  if (bins && *bins >= (int64_t(1) << 30))
    return specError(*this,
                     llvm::formatv("expected bins < 2^30, got {0}", *bins));
  if (getUpsampleRate() > (int64_t(1) << 32) / getBins())
    return specError(
        *this, llvm::formatv("expected bins * upsample_rate <= 2^32, got {0} "
                             "* {1}",
                             getBins(), getUpsampleRate()));

  if (kind == ObserverKind::FixedQParams) {
    if (!scale || !zeroPoint)
      return specError(*this, "scale and zero_point are required");
    if (!(std::isfinite(*scale) && *scale > 0))
      return specError(*this, llvm::formatv("expected scale > 0, got {0}",
                                            llvm::format("%g", *scale)));
    QuantRange range = getQuantRange();
    if (*zeroPoint < range.min || *zeroPoint > range.max)
      return specError(*this, llvm::formatv("zero_point {0} is outside "
                                            "[{1}, {2}]",
                                            *zeroPoint, range.min, range.max));
  }
  return llvm::Error::success();
}

bool ObserverSpec::operator==(const ObserverSpec &other) const {
  return kind == other.kind && dtype == other.dtype &&
         qscheme == other.qscheme && reduceRange == other.reduceRange &&
         quantMin == other.quantMin && quantMax == other.quantMax &&
         eps == other.eps && chAxis == other.chAxis &&
         averagingConstant == other.averagingConstant && bins == other.bins &&
         upsampleRate == other.upsampleRate && scale == other.scale &&
         zeroPoint == other.zeroPoint && computeDType == other.computeDType;
}

// LLVM does not hash doubles; leaving eps, averaging_constant and scale out
// keeps equal specs hashing equal.
llvm::hash_code qfx::hash_value(const ObserverSpec &spec) {
  return llvm::hash_combine(spec.kind, spec.dtype, spec.qscheme,
                            spec.reduceRange, spec.quantMin, spec.quantMax,
                            spec.chAxis, spec.bins, spec.upsampleRate,
                            spec.zeroPoint, spec.computeDType);
}
