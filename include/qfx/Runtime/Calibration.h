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

#include "mlir/IR/BuiltinOps.h"

#include <map>

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

private:
  Calibrator() = default;

  llvm::SmallVector<mlir::Operation *> observeOps;
  llvm::SmallVector<int64_t> slotIds;
  std::map<int64_t, Observer> observers;
  std::string sampleName;
  std::optional<std::string> firstError;
};

} // namespace qfx

#endif // QFX_RUNTIME_CALIBRATION_H
