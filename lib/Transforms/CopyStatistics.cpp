//===- CopyStatistics.cpp - Observer statistics from another calibration --===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// A converted model compiled for other input shapes is exported and prepared
// again; its observers are those of the first export, with the same ids.
// This pass gives them the statistics the first calibration gathered, read
// from that calibrated module, instead of calibrating again.
//
//===----------------------------------------------------------------------===//

#include "qfx/Dialect/QFX/IR/QFXOps.h"
#include "qfx/Transforms/ConfigResolution.h"
#include "qfx/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/DenseSet.h"

#include <map>

namespace qfx {
#define GEN_PASS_DEF_QFXCOPYSTATISTICS
#include "qfx/Transforms/Passes.h.inc"
} // namespace qfx

using namespace qfx;

namespace {

struct QFXCopyStatisticsPass
    : qfx::impl::QFXCopyStatisticsBase<QFXCopyStatisticsPass> {
  using Base::Base;

  /// The spec and statistics (null if none) of the calibrating observers of
  /// `from`, by id (observers sharing an id share their statistics).
  std::map<int64_t, std::pair<ObserverSpecAttr, mlir::Attribute>> sources;

  mlir::LogicalResult initialize(mlir::MLIRContext *context) override {
    sources.clear();
    if (from.empty())
      return mlir::emitError(mlir::UnknownLoc::get(context))
             << "qfx-copy-statistics: no module to copy statistics from (the "
                "`from` option names a calibrated MLIR file)";
    // Parsed once, before the pass runs (the context may load dialects
    // then): the statistics are attributes of this context.
    mlir::ParserConfig config(context);
    mlir::OwningOpRef<mlir::ModuleOp> source =
        mlir::parseSourceFile<mlir::ModuleOp>(from.getValue(), config);
    if (!source)
      return mlir::emitError(mlir::UnknownLoc::get(context))
             << "qfx-copy-statistics: cannot read the calibrated module '"
             << from << "'";
    source->walk([&](ObserveOp op) {
      if (isCalibratingObserver(op.getSpec().getSpec().kind))
        sources.try_emplace(op.getId(), op.getSpecAttr(), op.getStatsAttr());
    });
    return mlir::success();
  }

  void runOnOperation() override {
    llvm::DenseSet<int64_t> copied;
    mlir::WalkResult result = getOperation().walk([&](ObserveOp op) {
      if (!isCalibratingObserver(op.getSpec().getSpec().kind))
        return mlir::WalkResult::advance();
      auto it = sources.find(op.getId());
      if (it == sources.end()) {
        op.emitError() << "observer id " << op.getId() << " " << op.getSpec()
                       << " of " << describeProducer(op)
                       << " has no observer in '" << from
                       << "': the modules are not the same model";
        return mlir::WalkResult::interrupt();
      }
      auto [spec, stats] = it->second;
      if (spec != op.getSpecAttr()) {
        op.emitError() << "observer id " << op.getId() << " " << op.getSpec()
                       << " of " << describeProducer(op) << " is " << spec
                       << " in '" << from
                       << "': the modules are not the same model";
        return mlir::WalkResult::interrupt();
      }
      if (stats)
        op.setStatsAttr(stats);
      else
        op.removeStatsAttr();
      copied.insert(op.getId());
      return mlir::WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    for (const auto &[id, source] : sources) {
      if (copied.contains(id))
        continue;
      getOperation().emitError()
          << "observer id " << id << " " << source.first << " of '" << from
          << "' has no observer in this module: the modules are not "
          << "the same model";
      return signalPassFailure();
    }
  }

  static std::string describeProducer(ObserveOp op) {
    mlir::Operation *producer = op.getInput().getDefiningOp();
    return producer ? describeOp(producer) : std::string("an argument");
  }
};

} // namespace
