//===- Calibration.cpp - Feeding observers and writing statistics ---------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Runtime/Calibration.h"

#include "qfx/Dialect/QFX/IR/QFXOps.h"

#include "mlir/IR/Diagnostics.h"

using namespace qfx;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static std::string describe(mlir::Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto fileLoc = mlir::dyn_cast<mlir::FileLineColLoc>(loc))
    os << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine() << ":"
       << fileLoc.getColumn();
  else
    os << loc;
  return text;
}

/// The observer state a stats attribute holds.
static ObserverState getState(mlir::Attribute stats) {
  ObserverState state;
  if (auto minMax = llvm::dyn_cast<MinMaxAttr>(stats)) {
    state.minVals.push_back(minMax.getMin().convertToFloat());
    state.maxVals.push_back(minMax.getMax().convertToFloat());
  } else if (auto perChannel = llvm::dyn_cast<PerChannelMinMaxAttr>(stats)) {
    state.minVals.assign(perChannel.getMin().asArrayRef().begin(),
                         perChannel.getMin().asArrayRef().end());
    state.maxVals.assign(perChannel.getMax().asArrayRef().begin(),
                         perChannel.getMax().asArrayRef().end());
  } else if (auto histogram = llvm::dyn_cast<HistogramAttr>(stats)) {
    state.minVals.push_back(histogram.getMin().convertToFloat());
    state.maxVals.push_back(histogram.getMax().convertToFloat());
    state.histogram.assign(histogram.getCounts().asArrayRef().begin(),
                           histogram.getCounts().asArrayRef().end());
  }
  return state;
}

/// The stats attribute of an observer that has seen data.
static mlir::Attribute getStatsAttr(mlir::MLIRContext *context,
                                    const Observer &observer) {
  const ObserverState &state = observer.getState();
  switch (observer.getSpec().kind) {
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
        error = makeError(llvm::Twine("observers with id ") + llvm::Twine(id) +
                          " at " + describe(op.getLoc()) + " and " +
                          describe(first->second.getLoc()) +
                          " share qparams but have different specs");
        return mlir::WalkResult::interrupt();
      }
    } else {
      llvm::Expected<Observer> observer = Observer::create(spec);
      if (!observer) {
        error = makeError(describe(op.getLoc()) + ": " +
                          llvm::toString(observer.takeError()));
        return mlir::WalkResult::interrupt();
      }
      calibrator.observers.emplace(id, std::move(*observer));
    }
    if (std::optional<mlir::Attribute> stats = op.getStats()) {
      if (llvm::Error err =
              calibrator.observers.at(id).setState(getState(*stats))) {
        error = makeError(describe(op.getLoc()) +
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
                     describe(observeOps[slot]->getLoc());
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
    llvm::cast<ObserveOp>(op).setStatsAttr(
        getStatsAttr(op->getContext(), observer));
  }
}
