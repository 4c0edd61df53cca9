//===- ObserverSpec.h - Observer kinds and their arguments ------*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// An ObserverSpec is PyTorch's `SomeObserver.with_args(...)`: which observer,
// and the constructor arguments given to it. Arguments that are not set take
// PyTorch 1.13's defaults for that observer; the get* accessors return the
// effective values. Pure C++ (LLVM Support only): no MLIR dependency.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_NUMERICS_OBSERVERSPEC_H
#define QFX_NUMERICS_OBSERVERSPEC_H

#include "qfx/Numerics/QuantTypes.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/Support/Error.h"

namespace qfx {

/// The observers of torch.ao.quantization.observer in PyTorch 1.13.
enum class ObserverKind : uint8_t {
  MinMax,
  MovingAverageMinMax,
  PerChannelMinMax,
  MovingAveragePerChannelMinMax,
  Histogram,
  Placeholder,
  Noop,
  FixedQParams,
  ReuseInput,
};

/// The IR spelling of `kind`, e.g. "moving_average_minmax".
llvm::StringRef stringifyObserverKind(ObserverKind kind);

/// Parses an IR spelling as printed by stringifyObserverKind.
std::optional<ObserverKind> symbolizeObserverKind(llvm::StringRef name);

/// The list of accepted IR spellings, for diagnostics.
llvm::StringRef allObserverKindNames();

/// PyTorch's class name for `kind`, e.g. "MovingAverageMinMaxObserver".
llvm::StringRef getObserverClassName(ObserverKind kind);

/// Parses a PyTorch class name as returned by getObserverClassName.
std::optional<ObserverKind> symbolizeObserverClassName(llvm::StringRef name);

/// True for the observers that compute a scale and zero point from data
/// (min/max, moving average, per channel, histogram).
bool isCalibratingObserver(ObserverKind kind);

/// True for the two per-channel observers.
bool isPerChannelObserver(ObserverKind kind);

/// The constructor arguments of PyTorch's observers, by PyTorch's names.
enum class ObserverArg : uint8_t {
  DType,
  QScheme,
  ReduceRange,
  QuantMin,
  QuantMax,
  Eps,
  ChAxis,
  AveragingConstant,
  Bins,
  UpsampleRate,
  Scale,
  ZeroPoint,
  ComputeDType,
};

/// PyTorch's name of `arg`, e.g. "averaging_constant".
llvm::StringRef stringifyObserverArg(ObserverArg arg);

/// Parses a PyTorch argument name.
std::optional<ObserverArg> symbolizeObserverArg(llvm::StringRef name);

/// True if PyTorch's constructor for `kind` takes `arg`.
bool observerTakesArg(ObserverKind kind, ObserverArg arg);

/// An observer and the arguments it was given. Unset arguments take PyTorch's
/// defaults for the kind (see the get* accessors).
struct ObserverSpec {
  ObserverKind kind = ObserverKind::MinMax;
  std::optional<DType> dtype;
  std::optional<QScheme> qscheme;
  std::optional<bool> reduceRange;
  std::optional<int64_t> quantMin;
  std::optional<int64_t> quantMax;
  std::optional<double> eps;
  std::optional<int64_t> chAxis;
  std::optional<double> averagingConstant;
  std::optional<int64_t> bins;
  std::optional<int64_t> upsampleRate;
  std::optional<double> scale;
  std::optional<int64_t> zeroPoint;
  std::optional<DType> computeDType;

  ObserverSpec() = default;
  explicit ObserverSpec(ObserverKind kind) : kind(kind) {}

  /// True if `arg` was given explicitly.
  bool isSet(ObserverArg arg) const;

  /// The effective dtype (PyTorch's default for the kind when unset).
  DType getDType() const;
  /// The effective qscheme. Meaningful for calibrating and fixed-qparams
  /// observers.
  QScheme getQScheme() const;
  bool getReduceRange() const { return reduceRange.value_or(false); }
  /// PyTorch's default is torch.finfo(torch.float32).eps.
  double getEps() const;
  int64_t getChAxis() const { return chAxis.value_or(0); }
  double getAveragingConstant() const {
    return averagingConstant.value_or(0.01);
  }
  int64_t getBins() const { return bins.value_or(2048); }
  int64_t getUpsampleRate() const { return upsampleRate.value_or(128); }

  /// The effective [quant_min, quant_max], as PyTorch's calculate_qmin_qmax
  /// computes it from the dtype, reduce_range and a custom range. Only for
  /// observers whose dtype is quantized.
  QuantRange getQuantRange() const;

  /// Checks the arguments the way PyTorch's constructors do, and rejects what
  /// makes no sense (an argument the observer does not take, a custom range
  /// outside the dtype, half of a custom range). The message names the
  /// argument and what was expected.
  llvm::Error validate() const;

  bool operator==(const ObserverSpec &other) const;
  bool operator!=(const ObserverSpec &other) const { return !(*this == other); }
};

llvm::hash_code hash_value(const ObserverSpec &spec);

} // namespace qfx

#endif // QFX_NUMERICS_OBSERVERSPEC_H
