//===- Calibration.h - Feeding observers and writing statistics -*- C++ -*-===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// Calibration runs an observed model on sample inputs: every qfx.observe
// hands what it sees to an observer of the numerics library; afterwards the
// observers' statistics are written back into the qfx.observe ops.
//
//===----------------------------------------------------------------------===//

#ifndef QFX_RUNTIME_CALIBRATION_H
#define QFX_RUNTIME_CALIBRATION_H

#include "qfx/Numerics/Observer.h"
#include "qfx/Runtime/CompiledModel.h"
#include "qfx/Runtime/Npy.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace qfx {

class ObserveOp;

/// The observers of a module, one per observer id, fed by a calibrating
/// CompiledModel. Observers that share an id share one observer, fed by each
/// of their qfx.observe ops in program order.
class Calibrator : public ObservationSink {
public:
  /// Collects the qfx.observe ops of `module` (walk order, the slots of
  /// qfx-lower-observers) and creates their observers. Ops that share an id
  /// must have equal specs. Statistics already in the IR are the starting
  /// state, so calibration can continue over several runs.
  static llvm::Expected<Calibrator> create(mlir::ModuleOp module);

  /// Names the current sample in errors, e.g. "sample 3".
  void setSampleName(std::string name) { sampleName = std::move(name); }

  void observe(int64_t slot, llvm::ArrayRef<int64_t> shape,
               llvm::ArrayRef<float> data) override;

  /// The first error an observer reported (non-finite values), if any.
  llvm::Error takeError();

  /// Writes each calibrating observer's statistics into its qfx.observe ops
  /// (`stats`). Observers that saw no data are left without statistics.
  void writeStatistics();

  size_t getNumObserveOps() const { return observeOps.size(); }

  /// Whether `module` has this calibrator's observers: its qfx.observe ops,
  /// in walk order, with the ids and specs of this calibrator's slots (the
  /// same model exported at other shapes); else an error naming the first
  /// that differs.
  llvm::Error checkSameObservers(mlir::ModuleOp module) const;

  /// The observers as they are, and going back to such a copy: a failed run
  /// must not leave the statistics of part of it.
  std::map<int64_t, Observer> saveObservers() const { return observers; }
  void restoreObservers(std::map<int64_t, Observer> saved) {
    observers = std::move(saved);
  }

private:
  Calibrator() = default;

  llvm::SmallVector<mlir::Operation *> observeOps;
  llvm::SmallVector<int64_t> slotIds;
  std::map<int64_t, Observer> observers;
  std::string sampleName;
  std::optional<std::string> firstError;
};

/// The calibration samples of one argument: the slices of one .npy file
/// along its leading axis, or one .npy file per sample in a directory
/// (sorted by name).
class SampleSource {
public:
  static llvm::Expected<SampleSource> open(llvm::StringRef path);

  int64_t size() const;
  /// Sample `index` (0 <= index < size()).
  llvm::Expected<NpyArray> get(int64_t index) const;
  /// Names sample `index` in errors: the file it comes from.
  std::string describe(int64_t index) const;

private:
  std::string path;
  std::optional<NpySampleReader> reader;
  std::vector<std::string> files;
};

/// Options of calibrate.
struct CalibrationOptions {
  /// The function to run; empty: the module's only public function.
  std::string entry;
  /// Called after each sample with the samples done and their total.
  std::function<void(int64_t done, int64_t total)> progress;
};

/// Calibration a run at a time, as the calls of a prepared model feed it:
/// the observed module compiled once for calibration; each run hands every
/// observed tensor to the observers and writes the model's results; the
/// statistics so far go into the module's qfx.observe ops when asked, and
/// runs may go on after.
class CalibratingModel {
public:
  /// Compiles `options.entry` of `module` for calibration (progress is not
  /// used). `module` and its context must outlive the model: its constants
  /// are read where the context holds them, and the statistics are written
  /// into its ops. Statistics already in the IR are the starting state. A
  /// module without qfx.observe only runs (a configuration that quantizes
  /// nothing: PyTorch's prepared model then runs the float model).
  static llvm::Expected<CalibratingModel>
  compile(mlir::ModuleOp module, const CalibrationOptions &options = {});

  /// Compiles `module`, the same model at other input shapes (its observers
  /// this model's: Calibrator::checkSameObservers), observing into this
  /// model's observers: the two models' runs gather one set of statistics,
  /// which either writes into this model's module. `module` must outlive
  /// the new model, this model's module both.
  llvm::Expected<CalibratingModel>
  compileSharing(mlir::ModuleOp module,
                 const CalibrationOptions &options = {}) const;

  const CompiledModel &getModel() const { return *model; }

  /// Runs the model on the C-order data of each input, as
  /// CompiledModel::run, observing. A NaN or infinite float input, or a
  /// value an observer refuses, is an error naming `runName` and leaves
  /// the statistics as they were before the run.
  llvm::Error run(llvm::ArrayRef<const void *> inputs,
                  llvm::ArrayRef<void *> results, llvm::StringRef runName);
  /// The same on arrays that passed the model's checkInputs; returns the
  /// results.
  llvm::Expected<llvm::SmallVector<NpyArray>>
  run(llvm::ArrayRef<NpyArray> inputs, llvm::StringRef runName);

  /// The runs that succeeded (of every model sharing the observers).
  int64_t getNumRuns() const { return shared->numRuns; }

  /// The module's qfx.observe ops.
  size_t getNumObserveOps() const {
    return shared->calibrator.getNumObserveOps();
  }

  /// Writes the statistics of every run so far into the module the
  /// observers were made for (Calibrator::writeStatistics).
  void writeStatistics() { shared->calibrator.writeStatistics(); }

private:
  /// What models sharing their observers share.
  struct Shared {
    Calibrator calibrator;
    int64_t numRuns = 0;
  };

  /// `runModel` observing into the calibrator; the observers go back to
  /// their state before it if it fails.
  llvm::Error observe(llvm::StringRef runName,
                      llvm::function_ref<llvm::Error()> runModel);

  CalibratingModel(std::shared_ptr<Shared> shared, CompiledModel model)
      : shared(std::move(shared)),
        model(std::make_unique<CompiledModel>(std::move(model))) {}

  std::shared_ptr<Shared> shared;
  std::unique_ptr<CompiledModel> model;
};

/// Calibrates the observers of `module` on samples and writes their
/// statistics into its qfx.observe ops: compiles the entry with `calibrate`,
/// then runs it on every sample, `samplePaths` naming one SampleSource per
/// argument (all with the same number of samples). Errors name the sample,
/// the argument and its file: a NaN or infinite input, a wrong dtype or
/// shape, observers that cannot take the data. `module` is changed only on
/// success.
llvm::Error calibrate(mlir::ModuleOp module,
                      llvm::ArrayRef<std::string> samplePaths,
                      const CalibrationOptions &options = {});

} // namespace qfx

#endif // QFX_RUNTIME_CALIBRATION_H
