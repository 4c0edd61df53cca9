//===- Calibration.cpp - Feeding observers and writing statistics ---------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Runtime/Calibration.h"

#include "qfx/Dialect/QFX/IR/QFXOps.h"

#include "Support.h"

#include "mlir/IR/Diagnostics.h"

using namespace qfx;

using runtime::makeError;

llvm::Expected<Calibrator> Calibrator::create(mlir::ModuleOp module) {
  Calibrator calibrator;
  std::map<int64_t, ObserveOp> firstOfId;
  llvm::Error error = llvm::Error::success();
  module.walk([&](ObserveOp op) -> mlir::WalkResult {
    int64_t id = op.getId();
    calibrator.observeOps.push_back(op);
    calibrator.slotIds.push_back(id);
    const ObserverSpec &spec = op.getSpec().getSpec();
    auto [first, inserted] = firstOfId.try_emplace(id, op);
    if (!inserted) {
      if (first->second.getSpec() != op.getSpec()) {
        error =
            makeError(llvm::Twine("observers with id ") + llvm::Twine(id) +
                      " at " + runtime::formatLocation(op.getLoc()) + " and " +
                      runtime::formatLocation(first->second.getLoc()) +
                      " share qparams but have different specs");
        return mlir::WalkResult::interrupt();
      }
    } else {
      llvm::Expected<Observer> observer = Observer::create(spec);
      if (!observer) {
        error = makeError(runtime::formatLocation(op.getLoc()) + ": " +
                          llvm::toString(observer.takeError()));
        return mlir::WalkResult::interrupt();
      }
      calibrator.observers.emplace(id, std::move(*observer));
    }
    if (std::optional<mlir::Attribute> stats = op.getStats()) {
      if (llvm::Error err =
              calibrator.observers.at(id).setState(getObserverState(*stats))) {
        error = makeError(runtime::formatLocation(op.getLoc()) +
                          ": cannot resume from its "
                          "statistics: " +
                          llvm::toString(std::move(err)));
        return mlir::WalkResult::interrupt();
      }
    }
    return mlir::WalkResult::advance();
  });
  if (error)
    return std::move(error);
  return calibrator;
}

void Calibrator::observe(int64_t slot, llvm::ArrayRef<int64_t> shape,
                         llvm::ArrayRef<float> data) {
  if (firstError || slot < 0 || static_cast<size_t>(slot) >= slotIds.size())
    return;
  Observer &observer = observers.at(slotIds[slot]);
  std::string name = sampleName + ", the tensor observed at " +
                     runtime::formatLocation(observeOps[slot]->getLoc());
  if (llvm::Error err = observer.observe(data, shape, name))
    firstError = llvm::toString(std::move(err));
}

llvm::Error Calibrator::takeError() {
  if (!firstError)
    return llvm::Error::success();
  std::string message = std::move(*firstError);
  firstError.reset();
  return makeError(message);
}

void Calibrator::writeStatistics() {
  for (auto [op, id] : llvm::zip_equal(observeOps, slotIds)) {
    const Observer &observer = observers.at(id);
    if (!isCalibratingObserver(observer.getSpec().kind) ||
        !observer.hasStatistics())
      continue;
    llvm::cast<ObserveOp>(op).setStatsAttr(getObserverStatsAttr(
        op->getContext(), observer.getSpec().kind, observer.getState()));
  }
}
