//===- Compare.h - Per-op comparison of two pipeline stages -----*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// PyTorch's numeric suite for qfx: runs two stages of a model (say the float
// model and the reference model) on the same inputs, records the value every
// op produces, matches the ops of the two stages by location, and reports
// how far apart they are.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_RUNTIME_COMPARE_H
#define QFX_RUNTIME_COMPARE_H

#include "qfx/Runtime/CompiledModel.h"
#include "qfx/Runtime/Npy.h"

#include "mlir/IR/BuiltinOps.h"

#include <map>
#include <optional>
#include <string>
#include <utility>

namespace qfx {

/// How far one value of the compared stage is from the baseline's.
struct ValueComparison {
  /// The op's location ("layer1.0.conv1", "layer1.0(add)") or "output N".
  std::string name;
  /// The op that produced the value in the compared stage.
  std::string opName;
  llvm::SmallVector<int64_t> shape;
  double maxAbsError = 0;
  /// 10 log10(sum(baseline^2) / sum((baseline - compared)^2)); +inf when
  /// they are equal.
  double sqnr = 0;
  /// A result of the function, not a value matched by location.
  bool isResult = false;
  /// The value's position in the compared stage (walk order of its ops).
  int64_t position = 0;
  /// Per-tensor qparams (scale, zero point) of the value in each stage, where
  /// it is quantized (a calibrated stage against another's, say qfx's
  /// calibration against PyTorch's imported statistics).
  std::optional<std::pair<double, int64_t>> baselineQParams, comparedQParams;
};

/// A value a RecordingModel recorded in one run.
struct RecordedValue {
  /// The op's location name (see getLocationName).
  std::string name;
  /// The op that produced it.
  std::string opName;
  /// Its position in the stage (walk order of the recording ops).
  int64_t position = 0;
  llvm::SmallVector<int64_t> shape;
  /// Its elements in C order; a quantized value dequantized.
  std::vector<float> data;
  /// Per-tensor (scale, zero point) where the value is quantized.
  std::optional<std::pair<double, int64_t>> qparams;
};

/// What RecordingModel and ProfilingModel share: a stage compiled with a
/// runtime hook after the value of each name (the last op with that
/// location name, see getLocationName; constants excepted).
class InstrumentedModel {
public:
  const CompiledModel &getModel() const { return model; }

protected:
  struct ValueInfo {
    std::string opName;
    int64_t position;
    std::optional<std::pair<double, int64_t>> qparams;
  };
  InstrumentedModel(CompiledModel model,
                    llvm::DenseMap<int64_t, std::string> slotNames,
                    std::map<std::string, ValueInfo> values);
  /// Compiles `module` with a hook after each named value: the value itself
  /// (a float tensor), or with `marks` its first element.
  static llvm::Expected<InstrumentedModel>
  compileInstrumented(mlir::ModuleOp module, CompileOptions options,
                      bool marks);

  CompiledModel model;
  /// The observation slot of each hook, and the name of its value.
  llvm::DenseMap<int64_t, std::string> slotNames;
  std::map<std::string, ValueInfo> values;
};

/// A stage compiled to record, on each run, the value of each name (the
/// integers of an int8 stage's patterns and quantized values dequantized):
/// PyTorch's numeric suite's output loggers, for any stage quant-run runs.
class RecordingModel : public InstrumentedModel {
public:
  /// Compiles `options.entry` (see findEntry) of `module` (not changed)
  /// with recorders; `options.calibrate` is implied.
  static llvm::Expected<RecordingModel> compile(mlir::ModuleOp module,
                                                CompileOptions options);

  /// Runs the function once (see CompiledModel::run) and returns the values
  /// recorded, in program order.
  llvm::Expected<std::vector<RecordedValue>>
  run(llvm::ArrayRef<NpyArray> inputs,
      llvm::SmallVectorImpl<NpyArray> &outputs);
  llvm::Expected<std::vector<RecordedValue>>
  run(llvm::ArrayRef<const void *> inputs, llvm::ArrayRef<void *> results);

private:
  class Recorder;
  explicit RecordingModel(InstrumentedModel base)
      : InstrumentedModel(std::move(base)) {}
  std::vector<RecordedValue> takeRecorded(Recorder &recorder) const;
};

/// The time a ProfilingModel measured for one name in one run: from the end
/// of the previous named value (or the start of the run) to the end of this
/// one, the ops in between; the last entry, named "(rest)", is the time
/// after the last named value.
struct LayerTime {
  std::string name;
  std::string opName;
  double seconds = 0;
};

/// A stage compiled to time its named values on each run (`quant-run
/// --profile`, Python's QuantizedModel.profile): the hook after each
/// reads one element of the value, and the time between two hooks goes to
/// the second. The hooks keep a layer's output from fusing with the next
/// layer's elementwise ops, so a profiled run may take a little longer
/// than a plain one.
class ProfilingModel : public InstrumentedModel {
public:
  /// As RecordingModel::compile.
  static llvm::Expected<ProfilingModel> compile(mlir::ModuleOp module,
                                                CompileOptions options);

  /// Runs the function once and returns the time of each name, in program
  /// order, then "(rest)".
  llvm::Expected<std::vector<LayerTime>>
  run(llvm::ArrayRef<const void *> inputs, llvm::ArrayRef<void *> results);
  llvm::Expected<std::vector<LayerTime>>
  run(llvm::ArrayRef<NpyArray> inputs,
      llvm::SmallVectorImpl<NpyArray> &outputs);

private:
  class Timer;
  explicit ProfilingModel(InstrumentedModel base)
      : InstrumentedModel(std::move(base)) {}
};

/// The weights of `entry` (see findEntry) of a stage, in walk order: each
/// float constant a qfx.observe observes (an observed or calibrated stage:
/// the float weights as quantized, batch norm folded) and each integer
/// constant a quant.scast + quant.dcast dequantizes (a reference stage),
/// dequantized; named by the observer's or the dcast's location.
llvm::Expected<std::vector<RecordedValue>>
extractWeights(mlir::ModuleOp module, llvm::StringRef entry);

/// PyTorch's shadow model for an int8 stage: `entry` of `int8Stage` in which
/// each pattern computes on the float model's values. The float stage's ops
/// run first, on the same arguments, without names; each int8 value of a
/// pattern (an op with `qfx.quantized`) is, for the ops of other patterns
/// using it, the float stage's value of the same name quantized to its
/// type. A RecordingModel of it records each int8 pattern's output with
/// its inputs taken from the float model: the layer's own error, not the
/// error of the layers before it.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
buildShadowStage(mlir::ModuleOp floatStage, mlir::ModuleOp int8Stage,
                 llvm::StringRef entry);

/// How many float32 values lie between two scales (PyTorch's scales are
/// float32): 0 when they are equal as float32.
int64_t getFloat32Ulps(double a, double b);

/// Runs `entry` (see findEntry; resolved in `baseline`) of both modules on
/// `inputs` and compares every value whose location appears in both (the
/// last float tensor each location produces), then the results. Sorted worst
/// first (lowest SQNR).
llvm::Expected<std::vector<ValueComparison>>
compareStages(mlir::ModuleOp baseline, mlir::ModuleOp compared,
              llvm::StringRef entry, llvm::ArrayRef<NpyArray> inputs);

/// The name a location gives its op in a comparison: the names of its
/// NameLocs, outermost first, the inner ones in parentheses; for a fused
/// location (a pattern's ops, in forward order), its last name: the
/// pattern's value is its last op's; "" if none.
std::string getLocationName(mlir::Location loc);

} // namespace qfx

#endif // QFX_RUNTIME_COMPARE_H
