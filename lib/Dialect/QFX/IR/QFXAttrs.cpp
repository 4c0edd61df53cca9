//===- QFXAttrs.cpp - qfx attributes --------------------------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Dialect/QFX/IR/QFXAttrs.h"
#include "qfx/Dialect/QFX/IR/QFXDialect.h"
#include "qfx/Numerics/Observer.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace qfx;
using mlir::emitError;

//===----------------------------------------------------------------------===//
// Field parsing and printing
//===----------------------------------------------------------------------===//

/// Parses a float literal into a float32 (rounding to nearest even, as
/// PyTorch does when it stores a Python float in a float32 tensor).
static ParseResult parseF32(AsmParser &parser, float &value) {
  llvm::APFloat parsed(0.0f);
  if (parser.parseFloat(llvm::APFloat::IEEEsingle(), parsed))
    return failure();
  value = parsed.convertToFloat();
  return success();
}

static ParseResult parseF32(AsmParser &parser,
                            FailureOr<llvm::APFloat> &value) {
  float parsed;
  if (parseF32(parser, parsed))
    return failure();
  value = llvm::APFloat(parsed);
  return success();
}

static void printF32(AsmPrinter &printer, const llvm::APFloat &value) {
  printer.printFloat(value);
}

/// Parses `[f, f, ...]` into a float32 array attribute.
static ParseResult parseF32List(AsmParser &parser,
                                mlir::DenseF32ArrayAttr &values) {
  SmallVector<float> parsed;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() {
        return parseF32(parser, parsed.emplace_back());
      }))
    return failure();
  values = mlir::DenseF32ArrayAttr::get(parser.getContext(), parsed);
  return success();
}

static void printF32List(AsmPrinter &printer, mlir::DenseF32ArrayAttr values) {
  printer << '[';
  llvm::interleaveComma(values.asArrayRef(), printer, [&](float value) {
    printer.printFloat(llvm::APFloat(value));
  });
  printer << ']';
}

/// Parses `[i, i, ...]` into an int32 array attribute.
static ParseResult parseI32List(AsmParser &parser,
                                mlir::DenseI32ArrayAttr &values) {
  SmallVector<int32_t> parsed;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() {
        return parser.parseInteger(parsed.emplace_back());
      }))
    return failure();
  values = mlir::DenseI32ArrayAttr::get(parser.getContext(), parsed);
  return success();
}

static void printI32List(AsmPrinter &printer, mlir::DenseI32ArrayAttr values) {
  printer << '[';
  llvm::interleaveComma(values.asArrayRef(), printer);
  printer << ']';
}

static void printF64(AsmPrinter &printer, double value) {
  printer.printFloat(llvm::APFloat(value));
}

/// Parses `, key = value` fields until `>`; `parseValue` parses the value of
/// `key` (the `=` already consumed). Each key may appear once.
static ParseResult parseKeyValueFields(
    AsmParser &parser,
    llvm::function_ref<ParseResult(StringRef key, llvm::SMLoc loc)>
        parseValue) {
  llvm::SmallSet<std::string, 8> seen;
  while (succeeded(parser.parseOptionalComma())) {
    llvm::SMLoc loc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return failure();
    if (!seen.insert(key.str()).second)
      return parser.emitError(loc) << "'" << key << "' is given twice";
    if (parseValue(key, loc))
      return failure();
  }
  return parser.parseGreater();
}

static ParseResult parseDTypeValue(AsmParser &parser, DType &dtype) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  StringRef name;
  if (parser.parseKeyword(&name))
    return failure();
  std::optional<DType> parsed = symbolizeDType(name);
  if (!parsed)
    return parser.emitError(loc) << "unknown dtype '" << name
                                 << "', expected one of " << allDTypeNames();
  dtype = *parsed;
  return success();
}

static ParseResult parseQSchemeValue(AsmParser &parser, QScheme &qscheme) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  StringRef name;
  if (parser.parseKeyword(&name))
    return failure();
  std::optional<QScheme> parsed = symbolizeQScheme(name);
  if (!parsed)
    return parser.emitError(loc) << "unknown qscheme '" << name
                                 << "', expected one of " << allQSchemeNames();
  qscheme = *parsed;
  return success();
}

static ParseResult parseBoolValue(AsmParser &parser, bool &value) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  StringRef word;
  if (failed(parser.parseOptionalKeyword(&word)) ||
      (word != "true" && word != "false"))
    return parser.emitError(loc) << "expected true or false";
  value = word == "true";
  return success();
}

template <typename T>
static ParseResult parseOptionalField(AsmParser &parser,
                                      std::optional<T> &field) {
  T value{};
  ParseResult result = failure();
  if constexpr (std::is_same_v<T, DType>)
    result = parseDTypeValue(parser, value);
  else if constexpr (std::is_same_v<T, QScheme>)
    result = parseQSchemeValue(parser, value);
  else if constexpr (std::is_same_v<T, bool>)
    result = parseBoolValue(parser, value);
  else if constexpr (std::is_same_v<T, double>)
    result = parser.parseFloat(value);
  else
    result = parser.parseInteger(value);
  if (failed(result))
    return failure();
  field = value;
  return success();
}

//===----------------------------------------------------------------------===//
// DTypeWithConstraintsAttr
//===----------------------------------------------------------------------===//

Attribute DTypeWithConstraintsAttr::parse(AsmParser &parser, Type) {
  DTypeWithConstraints value;
  if (parser.parseLess() || parseDTypeValue(parser, value.dtype))
    return {};
  auto parseBound = [&](StringRef key, llvm::SMLoc loc) -> ParseResult {
    if (key == "quant_min_lower_bound")
      return parseOptionalField(parser, value.quantMinLowerBound);
    if (key == "quant_max_upper_bound")
      return parseOptionalField(parser, value.quantMaxUpperBound);
    if (key == "scale_min_lower_bound")
      return parseOptionalField(parser, value.scaleMinLowerBound);
    if (key == "scale_max_upper_bound")
      return parseOptionalField(parser, value.scaleMaxUpperBound);
    return parser.emitError(loc)
           << "unknown dtype constraint '" << key
           << "', expected quant_min_lower_bound, quant_max_upper_bound, "
              "scale_min_lower_bound or scale_max_upper_bound";
  };
  if (parseKeyValueFields(parser, parseBound))
    return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), value);
}

void DTypeWithConstraintsAttr::print(AsmPrinter &printer) const {
  const DTypeWithConstraints &value = getValue();
  printer << '<' << stringifyDType(value.dtype);
  if (value.quantMinLowerBound)
    printer << ", quant_min_lower_bound = " << *value.quantMinLowerBound;
  if (value.quantMaxUpperBound)
    printer << ", quant_max_upper_bound = " << *value.quantMaxUpperBound;
  if (value.scaleMinLowerBound) {
    printer << ", scale_min_lower_bound = ";
    printF64(printer, *value.scaleMinLowerBound);
  }
  if (value.scaleMaxUpperBound) {
    printer << ", scale_max_upper_bound = ";
    printF64(printer, *value.scaleMaxUpperBound);
  }
  printer << '>';
}

LogicalResult DTypeWithConstraintsAttr::verify(
    llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
    DTypeWithConstraints value) {
  if (llvm::Error err = value.validate())
    return emitError() << "invalid #qfx.dtype: "
                       << llvm::toString(std::move(err));
  return success();
}

//===----------------------------------------------------------------------===//
// ObserverSpecAttr
//===----------------------------------------------------------------------===//

Attribute ObserverSpecAttr::parse(AsmParser &parser, Type) {
  llvm::SMLoc kindLoc = parser.getCurrentLocation();
  StringRef kindName;
  if (parser.parseLess() || parser.parseKeyword(&kindName))
    return {};
  std::optional<ObserverKind> kind = symbolizeObserverKind(kindName);
  if (!kind) {
    parser.emitError(kindLoc)
        << "unknown observer '" << kindName << "', expected one of "
        << allObserverKindNames();
    return {};
  }
  ObserverSpec spec(*kind);
  auto parseArg = [&](StringRef key, llvm::SMLoc loc) -> ParseResult {
    std::optional<ObserverArg> arg = symbolizeObserverArg(key);
    if (!arg)
      return parser.emitError(loc)
             << "unknown observer argument '" << key << "'";
    switch (*arg) {
    case ObserverArg::DType:
      return parseOptionalField(parser, spec.dtype);
    case ObserverArg::QScheme:
      return parseOptionalField(parser, spec.qscheme);
    case ObserverArg::ReduceRange:
      return parseOptionalField(parser, spec.reduceRange);
    case ObserverArg::QuantMin:
      return parseOptionalField(parser, spec.quantMin);
    case ObserverArg::QuantMax:
      return parseOptionalField(parser, spec.quantMax);
    case ObserverArg::Eps:
      return parseOptionalField(parser, spec.eps);
    case ObserverArg::ChAxis:
      return parseOptionalField(parser, spec.chAxis);
    case ObserverArg::AveragingConstant:
      return parseOptionalField(parser, spec.averagingConstant);
    case ObserverArg::Bins:
      return parseOptionalField(parser, spec.bins);
    case ObserverArg::UpsampleRate:
      return parseOptionalField(parser, spec.upsampleRate);
    case ObserverArg::Scale:
      return parseOptionalField(parser, spec.scale);
    case ObserverArg::ZeroPoint:
      return parseOptionalField(parser, spec.zeroPoint);
    case ObserverArg::ComputeDType:
      return parseOptionalField(parser, spec.computeDType);
    }
    return failure();
  };
  if (parseKeyValueFields(parser, parseArg))
    return {};
  return getChecked([&] { return parser.emitError(kindLoc); },
                    parser.getContext(), spec);
}

void ObserverSpecAttr::print(AsmPrinter &printer) const {
  const ObserverSpec &spec = getSpec();
  printer << '<' << stringifyObserverKind(spec.kind);
  auto key = [&](ObserverArg arg) -> AsmPrinter & {
    return printer << ", " << stringifyObserverArg(arg) << " = ";
  };
  if (spec.dtype)
    key(ObserverArg::DType) << stringifyDType(*spec.dtype);
  if (spec.qscheme)
    key(ObserverArg::QScheme) << stringifyQScheme(*spec.qscheme);
  if (spec.reduceRange)
    key(ObserverArg::ReduceRange) << (*spec.reduceRange ? "true" : "false");
  if (spec.quantMin)
    key(ObserverArg::QuantMin) << *spec.quantMin;
  if (spec.quantMax)
    key(ObserverArg::QuantMax) << *spec.quantMax;
  if (spec.eps) {
    key(ObserverArg::Eps);
    printF64(printer, *spec.eps);
  }
  if (spec.chAxis)
    key(ObserverArg::ChAxis) << *spec.chAxis;
  if (spec.averagingConstant) {
    key(ObserverArg::AveragingConstant);
    printF64(printer, *spec.averagingConstant);
  }
  if (spec.bins)
    key(ObserverArg::Bins) << *spec.bins;
  if (spec.upsampleRate)
    key(ObserverArg::UpsampleRate) << *spec.upsampleRate;
  if (spec.scale) {
    key(ObserverArg::Scale);
    printF64(printer, *spec.scale);
  }
  if (spec.zeroPoint)
    key(ObserverArg::ZeroPoint) << *spec.zeroPoint;
  if (spec.computeDType)
    key(ObserverArg::ComputeDType) << stringifyDType(*spec.computeDType);
  printer << '>';
}

LogicalResult ObserverSpecAttr::verify(
    llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
    ObserverSpec spec) {
  if (llvm::Error err = spec.validate())
    return emitError() << "invalid #qfx.observer: "
                       << llvm::toString(std::move(err));
  return success();
}

//===----------------------------------------------------------------------===//
// Observer statistics
//===----------------------------------------------------------------------===//

/// A number for a diagnostic: "2", "0.5", "-inf", as C's %g writes it.
static std::string formatNumber(double value) {
  return llvm::formatv("{0}", llvm::format("%g", value)).str();
}

static LogicalResult
verifyRange(llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
            const llvm::Twine &attrName, float min, float max) {
  if (!std::isfinite(min) || !std::isfinite(max))
    return emitError() << attrName << " min and max must be finite, got "
                       << formatNumber(min) << " and " << formatNumber(max);
  if (min > max)
    return emitError() << attrName << " expected min <= max, got "
                       << formatNumber(min) << " > " << formatNumber(max);
  return success();
}

LogicalResult
MinMaxAttr::verify(llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
                   llvm::APFloat min, llvm::APFloat max) {
  return verifyRange(emitError, "#qfx.minmax", min.convertToFloat(),
                     max.convertToFloat());
}

LogicalResult PerChannelMinMaxAttr::verify(
    llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
    mlir::DenseF32ArrayAttr minAttr, mlir::DenseF32ArrayAttr maxAttr) {
  ArrayRef<float> min = minAttr.asArrayRef(), max = maxAttr.asArrayRef();
  if (min.empty())
    return emitError() << "#qfx.per_channel_minmax needs at least one channel";
  if (min.size() != max.size())
    return emitError() << "#qfx.per_channel_minmax has " << min.size()
                       << " minimums but " << max.size() << " maximums";
  for (auto [channel, bounds] : llvm::enumerate(llvm::zip_equal(min, max))) {
    if (failed(verifyRange(emitError,
                           "#qfx.per_channel_minmax channel " +
                               llvm::Twine(channel),
                           std::get<0>(bounds), std::get<1>(bounds))))
      return failure();
  }
  return success();
}

LogicalResult
HistogramAttr::verify(llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
                      llvm::APFloat min, llvm::APFloat max,
                      mlir::DenseF32ArrayAttr countsAttr) {
  if (failed(verifyRange(emitError, "#qfx.histogram", min.convertToFloat(),
                         max.convertToFloat())))
    return failure();
  ArrayRef<float> counts = countsAttr.asArrayRef();
  if (counts.empty())
    return emitError() << "#qfx.histogram needs at least one bin";
  // Counts may be slightly negative: PyTorch's re-binning leaves float error
  // (e.g. -2.86e-06) in bins, and the statistics must stay PyTorch's.
  for (auto [bin, count] : llvm::enumerate(counts))
    if (!std::isfinite(count))
      return emitError() << "#qfx.histogram bin " << bin
                         << " expected a finite count, got "
                         << formatNumber(count);
  return success();
}

//===----------------------------------------------------------------------===//
// Statistics <-> numerics state
//===----------------------------------------------------------------------===//

ObserverState qfx::getObserverState(Attribute stats) {
  ObserverState state;
  if (auto minMax = llvm::dyn_cast<MinMaxAttr>(stats)) {
    state.minVals.push_back(minMax.getMin().convertToFloat());
    state.maxVals.push_back(minMax.getMax().convertToFloat());
  } else if (auto perChannel = llvm::dyn_cast<PerChannelMinMaxAttr>(stats)) {
    llvm::append_range(state.minVals, perChannel.getMin().asArrayRef());
    llvm::append_range(state.maxVals, perChannel.getMax().asArrayRef());
  } else if (auto histogram = llvm::dyn_cast<HistogramAttr>(stats)) {
    state.minVals.push_back(histogram.getMin().convertToFloat());
    state.maxVals.push_back(histogram.getMax().convertToFloat());
    llvm::append_range(state.histogram, histogram.getCounts().asArrayRef());
  }
  return state;
}

Attribute qfx::getObserverStatsAttr(MLIRContext *context, ObserverKind kind,
                                    const ObserverState &state) {
  switch (kind) {
  case ObserverKind::MinMax:
  case ObserverKind::MovingAverageMinMax:
    return MinMaxAttr::get(context, llvm::APFloat(state.minVals.front()),
                           llvm::APFloat(state.maxVals.front()));
  case ObserverKind::PerChannelMinMax:
  case ObserverKind::MovingAveragePerChannelMinMax:
    return PerChannelMinMaxAttr::get(
        context, mlir::DenseF32ArrayAttr::get(context, state.minVals),
        mlir::DenseF32ArrayAttr::get(context, state.maxVals));
  case ObserverKind::Histogram:
    return HistogramAttr::get(
        context, llvm::APFloat(state.minVals.front()),
        llvm::APFloat(state.maxVals.front()),
        mlir::DenseF32ArrayAttr::get(context, state.histogram));
  default:
    return {};
  }
}

//===----------------------------------------------------------------------===//
// Contraction epilogues
//===----------------------------------------------------------------------===//

LogicalResult
RescaleAttr::verify(llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
                    int64_t fractionBits, mlir::DenseI32ArrayAttr bias,
                    mlir::DenseI32ArrayAttr multipliers,
                    mlir::DenseI32ArrayAttr shifts, int64_t outputZp,
                    int64_t min, int64_t max) {
  if (fractionBits < 0 || fractionBits > 16)
    return emitError() << "fraction_bits must be in [0, 16], got "
                       << fractionBits;
  if (multipliers.empty() || multipliers.size() != shifts.size())
    return emitError() << "expected as many shifts as multipliers (at least "
                          "one), got "
                       << shifts.size() << " and " << multipliers.size();
  for (int32_t shift : shifts.asArrayRef())
    if (shift < 2 || shift > 62)
      return emitError() << "shifts must be in [2, 62], got " << shift;
  if (outputZp < -128 || outputZp > 127)
    return emitError() << "output_zp must be an int8, got " << outputZp;
  if (min < -128 || max > 127 || min > max)
    return emitError() << "expected -128 <= min <= max <= 127, got [" << min
                       << ", " << max << "]";
  (void)bias;
  return success();
}

LogicalResult WeightPackingAttr::verify(
    llvm::function_ref<mlir::InFlightDiagnostic()> emitError, int64_t lanes,
    int64_t group, int64_t taps, int64_t tapGroups) {
  if (lanes < 1 || group < 1 || taps < 1 || tapGroups < 1)
    return emitError() << "lanes, group, taps and tap_groups must be "
                          "positive, got "
                       << lanes << ", " << group << ", " << taps << ", "
                       << tapGroups;
  return success();
}

LogicalResult
RequantizeAttr::verify(llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
                       mlir::DenseF32ArrayAttr bias,
                       mlir::DenseF32ArrayAttr multipliers,
                       llvm::APFloat zeroPoint, llvm::APFloat min,
                       llvm::APFloat max, int64_t outputZp) {
  if (multipliers.empty())
    return emitError() << "expected at least one multiplier";
  if (outputZp < -128 || outputZp > 127)
    return emitError() << "output_zp must be an int8, got " << outputZp;
  double lo = min.convertToDouble(), hi = max.convertToDouble();
  if (!(lo >= -128 - outputZp && lo <= hi && hi <= 127 - outputZp) ||
      lo != std::floor(lo) || hi != std::floor(hi))
    return emitError() << "expected whole numbers -128 - output_zp <= min <= "
                          "max <= 127 - output_zp, got ["
                       << lo << ", " << hi << "] with output_zp " << outputZp;
  (void)bias;
  (void)zeroPoint;
  return success();
}

//===----------------------------------------------------------------------===//
// Generated definitions
//===----------------------------------------------------------------------===//

#include "qfx/Dialect/QFX/IR/QFXEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "qfx/Dialect/QFX/IR/QFXAttrs.cpp.inc"

void QFXDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "qfx/Dialect/QFX/IR/QFXAttrs.cpp.inc"
      >();
}
