//===- Observer.h - Observers of torch.ao.quantization -----------*- C++
//-*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// The observers of torch.ao.quantization.observer (PyTorch 1.13), built from
// an ObserverSpec. An observer records statistics of the float32 tensors it
// sees (observe) and turns them into a scale and zero point
// (calculateQParams) bit for bit as PyTorch does.
//
// Its statistics are a small ObserverState (per-tensor min/max, per-channel
// min/max arrays, or a histogram with its range) whose size does not depend
// on the number of batches. States serialize to and from plain float arrays
// and merge: merging the min/max states of two halves of a data set gives the
// state of the whole, exactly.
//
// Pure C++ (LLVM Support only): no MLIR dependency.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_NUMERICS_OBSERVER_H
#define QFX_NUMERICS_OBSERVER_H

#include "qfx/Numerics/ObserverSpec.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace qfx {

/// The scale and zero point an observer computes: one entry per tensor, or
/// one per channel along chAxis.
struct QParams {
  QScheme qscheme = QScheme::PerTensorAffine;
  DType dtype = DType::QUInt8;
  /// The [quant_min, quant_max] the observer quantizes to.
  QuantRange range = {0, 255};
  /// The channel axis of per-channel qparams.
  int64_t chAxis = 0;
  llvm::SmallVector<float, 1> scales;
  /// Integer zero points; empty for per_channel_affine_float_qparams.
  llvm::SmallVector<int64_t, 1> zeroPoints;
  /// Float zero points of per_channel_affine_float_qparams; empty otherwise.
  llvm::SmallVector<float, 1> floatZeroPoints;
};

/// The statistics of an observer. Per-tensor min/max observers hold one
/// minimum and one maximum (+inf and -inf before any data); per-channel
/// observers one per channel (none before any data); the histogram observer
/// its minimum, maximum and `bins` float32 counts.
struct ObserverState {
  llvm::SmallVector<float, 1> minVals;
  llvm::SmallVector<float, 1> maxVals;
  std::vector<float> histogram;

  bool operator==(const ObserverState &other) const;
  bool operator!=(const ObserverState &other) const {
    return !(*this == other);
  }
};

/// An observer of torch.ao.quantization.observer with its statistics.
class Observer {
public:
  /// Validates `spec` (ObserverSpec::validate plus what PyTorch's constructor
  /// of that observer rejects) and creates an observer with empty statistics.
  static llvm::Expected<Observer> create(const ObserverSpec &spec);

  const ObserverSpec &getSpec() const { return spec; }

  /// Records the statistics of a row-major float32 tensor of `shape` (an
  /// empty shape means one dimension of values.size()). `tensorName` names
  /// the tensor in errors: NaN or infinite values are an error that says how
  /// many there are, and leave the statistics unchanged. Observers that keep
  /// no statistics (placeholder, noop, fixed_qparams, reuse_input) accept
  /// anything.
  llvm::Error observe(llvm::ArrayRef<float> values,
                      llvm::ArrayRef<int64_t> shape,
                      llvm::StringRef tensorName);

  /// PyTorch's calculate_qparams. Calibrating observers that saw no data give
  /// scale 1.0 and zero point 0, as PyTorch does; fixed_qparams gives its
  /// arguments; placeholder, noop and reuse_input are an error (PyTorch
  /// raises too).
  llvm::Expected<QParams> calculateQParams() const;

  /// True once a calibrating observer has seen data.
  bool hasStatistics() const;

  const ObserverState &getState() const { return state; }

  /// Replaces the statistics, e.g. with a state read back from IR. Fails if
  /// the state does not have the shape this observer's statistics have.
  llvm::Error setState(ObserverState newState);

  /// Folds the statistics of `other` (an observer with an equal spec) into
  /// this one. Min/max observers merge exactly (elementwise min and max); the
  /// histogram observer re-bins both histograms onto the combined range the
  /// way PyTorch's HistogramObserver combines a new batch. Moving-average
  /// observers cannot merge: their statistics depend on batch order.
  llvm::Error merge(const Observer &other);

  /// Clears the statistics.
  void reset();

private:
  explicit Observer(const ObserverSpec &spec);

  void observeMinMax(float batchMin, float batchMax);
  llvm::Error observePerChannel(llvm::ArrayRef<float> values,
                                llvm::ArrayRef<int64_t> shape,
                                llvm::StringRef tensorName);
  llvm::Error observeHistogram(llvm::ArrayRef<float> values, float batchMin,
                               float batchMax);
  llvm::Error mergeHistogram(const ObserverState &other);

  ObserverSpec spec;
  ObserverState state;
};

/// PyTorch's UniformQuantizationObserverBase._calculate_qparams: the qparams
/// of min/max statistics (one pair per tensor or per channel) under `spec`'s
/// dtype, qscheme, quant range and eps. Fails if a minimum exceeds its
/// maximum.
llvm::Expected<QParams>
calculateQParamsFromMinMax(const ObserverSpec &spec,
                           llvm::ArrayRef<float> minVals,
                           llvm::ArrayRef<float> maxVals);

} // namespace qfx

#endif // QFX_NUMERICS_OBSERVER_H
