//===- ImportStatistics.cpp - PyTorch's observer statistics into qfx.observe =//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// A model PyTorch has prepared and calibrated is exported with the
// statistics of each of its observers on the op producing the observed value
// (qfx.torch_observer). After qfx-prepare has placed its own observers, this
// pass gives each one the statistics of PyTorch's observer of the same value,
// computes those of observed constants (weights), and fails where neither
// exists: the model then quantizes with PyTorch's calibration, not qfx's.
//
//===----------------------------------------------------------------------===//

#include "qfx/Dialect/QFX/IR/QFXAttrs.h"
#include "qfx/Dialect/QFX/IR/QFXOps.h"
#include "qfx/Dialect/QFX/IR/QuantizableOpInterface.h"
#include "qfx/Numerics/Observer.h"
#include "qfx/Transforms/ConfigResolution.h"
#include "qfx/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/DenseSet.h"

#include <map>

namespace qfx {
#define GEN_PASS_DEF_QFXIMPORTSTATISTICS
#include "qfx/Transforms/Passes.h.inc"
} // namespace qfx

using namespace qfx;
using mlir::Attribute;
using mlir::DictionaryAttr;
using mlir::Value;

namespace {

bool isLayoutOp(mlir::Operation *op) {
  return llvm::isa<mlir::tosa::TransposeOp, mlir::tosa::ReshapeOp, ObserveOp>(
      op);
}

/// The qfx.torch_observer recorded for `value` on the op defining it or on
/// the function argument it is, looking back through what does not change
/// the set of values a tensor holds (transposes, reshapes, observers) and
/// into fused and composite regions (their yielded value, their operands).
DictionaryAttr findTorchObserverBefore(Value value) {
  llvm::StringLiteral name = QFXDialect::getTorchObserverAttrName();
  while (true) {
    if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(value)) {
      mlir::Operation *parent = arg.getOwner()->getParentOp();
      if (auto func = llvm::dyn_cast<mlir::FunctionOpInterface>(parent))
        return func.getArgAttrOfType<DictionaryAttr>(arg.getArgNumber(), name);
      if (!llvm::isa<FusedOp, CompositeOp>(parent))
        return {};
      value = parent->getOperand(arg.getArgNumber());
      continue;
    }
    mlir::Operation *op = value.getDefiningOp();
    if (auto tag = op->getAttrOfType<DictionaryAttr>(name))
      return tag;
    if (llvm::isa<FusedOp, CompositeOp>(op)) {
      mlir::Operation *yield = op->getRegion(0).front().getTerminator();
      value = yield->getOperand(
          llvm::cast<mlir::OpResult>(value).getResultNumber());
    } else if (isLayoutOp(op)) {
      value = op->getOperand(0);
    } else {
      return {};
    }
  }
}

/// The qfx.torch_observer on a transpose or reshape of `value` (directly or
/// through more of them): the exporter records a PyTorch value held in
/// another layout than the one qfx observes on the op that converts it.
DictionaryAttr findTorchObserverAfter(Value value) {
  llvm::StringLiteral name = QFXDialect::getTorchObserverAttrName();
  for (mlir::Operation *user : value.getUsers()) {
    if (!isLayoutOp(user))
      continue;
    if (auto tag = user->getAttrOfType<DictionaryAttr>(name))
      return tag;
    if (DictionaryAttr tag = findTorchObserverAfter(user->getResult(0)))
      return tag;
  }
  return {};
}

/// PyTorch's observer of the value `op` observes, if any.
DictionaryAttr findTorchObserver(ObserveOp op) {
  if (DictionaryAttr tag = findTorchObserverBefore(op.getInput()))
    return tag;
  return findTorchObserverAfter(op.getOutput());
}

/// True if `op` observes the output of ops whose PyTorch kernels keep their
/// input's qparams (copy and shape ops, cat: takesOutputQParams, first
/// operands) back to an observer of the same id: PyTorch's lowering runs
/// them on the quantized input and drops the quantize after them, so its
/// observer there never sets a qparam of PyTorch's converted model.
bool observesKeptQParams(ObserveOp op) {
  Value value = op.getInput();
  for (auto producer = value.getDefiningOp<QuantizableOpInterface>();
       producer && !producer.takesOutputQParams() &&
       producer->getNumOperands() != 0;
       producer = value.getDefiningOp<QuantizableOpInterface>())
    value = producer->getOperand(0);
  auto input = value.getDefiningOp<ObserveOp>();
  return input && input != op && input.getId() == op.getId();
}

/// "activation_post_process_3 (HistogramObserver)".
std::string describeTorchObserver(DictionaryAttr tag) {
  return (tag.getAs<mlir::StringAttr>("name").getValue() + " (" +
          tag.getAs<mlir::StringAttr>("type").getValue() + ")")
      .str();
}

struct QFXImportStatisticsPass
    : qfx::impl::QFXImportStatisticsBase<QFXImportStatisticsPass> {
  using Base::Base;

  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    // Each calibrating observer with its statistics and where they come from.
    struct Member {
      ObserveOp op;
      Attribute stats;
      bool fromTorch;
      /// PyTorch's converted model does not use its statistics
      /// (observesKeptQParams).
      bool unused;
    };
    llvm::SmallVector<Member> members;
    // Observers of a value PyTorch's model records nothing for: they take
    // the statistics of their id (PyTorch observes a value an op that shares
    // its input's qparams makes with the input's observer, recorded once).
    llvm::SmallVector<ObserveOp> unrecorded;
    llvm::DenseSet<Attribute> used;
    mlir::WalkResult result = module.walk([&](ObserveOp op) {
      const ObserverSpec &spec = op.getSpec().getSpec();
      if (!isCalibratingObserver(spec.kind))
        return mlir::WalkResult::advance();
      bool fromTorch = false;
      bool unused = observesKeptQParams(op);
      mlir::FailureOr<Attribute> stats =
          statisticsFor(op, spec, unused, used, fromTorch);
      if (mlir::failed(stats))
        return mlir::WalkResult::interrupt();
      if (*stats)
        members.push_back({op, *stats, fromTorch, unused});
      else
        unrecorded.push_back(op);
      return mlir::WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();

    // The statistics of each observer id: PyTorch's, when one of its values
    // has a PyTorch observer. A constant qfx observes with the same id (a
    // class token concatenated with computed values) takes them: PyTorch's
    // shared observer saw the constant too, and the exporter records no
    // observer on constants. PyTorch's observers after ops that keep their
    // input's qparams come last and yield to the id's: PyTorch's converted
    // model does not use them (its prepare can leave one apart from the
    // input's, as when a later cat shares the input's observer with another).
    llvm::SmallVector<Member> ordered;
    for (bool unused : {false, true})
      for (const Member &member : members)
        if (member.unused == unused)
          ordered.push_back(member);
    members = std::move(ordered);
    std::map<int64_t, std::pair<Attribute, ObserveOp>> byId;
    for (bool torchPass : {true, false}) {
      for (Member &member : members) {
        if (member.fromTorch != torchPass)
          continue;
        auto [it, inserted] =
            byId.try_emplace(member.op.getId(), member.stats, member.op);
        if (inserted || it->second.first == member.stats)
          continue;
        bool sharedWithTorch =
            !torchPass && bool(findTorchObserver(it->second.second));
        if (sharedWithTorch || member.unused) {
          member.stats = it->second.first;
          continue;
        }
        member.op.emitError()
            << "observer id " << member.op.getId()
            << " shares its qparams with the observer at "
            << it->second.second.getLoc()
            << ", but PyTorch's statistics of the two values differ: "
               "PyTorch's model does not share these observers";
        return signalPassFailure();
      }
    }
    for (ObserveOp op : unrecorded) {
      auto it = byId.find(op.getId());
      if (it != byId.end()) {
        op.setStatsAttr(it->second.first);
        continue;
      }
      mlir::InFlightDiagnostic diag =
          op.emitError() << "no statistics for observer id " << op.getId()
                         << " " << op.getSpec()
                         << ": PyTorch's model has no observer of this value "
                            "(no qfx.torch_observer on the op producing it), "
                            "it is not a constant, and no observer it shares "
                            "its qparams with has statistics";
      if (mlir::Operation *producer = op.getInput().getDefiningOp())
        diag.attachNote(producer->getLoc())
            << "the value is produced by " << describeOp(producer);
      return signalPassFailure();
    }
    for (Member &member : members)
      member.op.setStatsAttr(member.stats);
    removeTorchObservers(module, used);
  }

  /// The statistics of `op`'s observer: PyTorch's for the value
  /// (`fromTorch`), or those of the constant it observes; null if neither
  /// exists, or if PyTorch's are `unused` by its converted model and do not
  /// fit; failure after a diagnostic.
  mlir::FailureOr<Attribute>
  statisticsFor(ObserveOp op, const ObserverSpec &spec, bool unused,
                llvm::DenseSet<Attribute> &used, bool &fromTorch) {
    llvm::Expected<Observer> observer = Observer::create(spec);
    if (!observer) {
      op.emitError() << llvm::toString(observer.takeError());
      return mlir::failure();
    }
    if (DictionaryAttr tag = findTorchObserver(op)) {
      used.insert(tag);
      Attribute stats = tag.get("stats");
      // One PyTorch's converted model does not use may be anything, another
      // value's fixed-qparams observer too: the observer takes its id's
      // statistics.
      if (unused) {
        if (!stats)
          return Attribute();
        if (llvm::Error error = observer->setState(getObserverState(stats))) {
          llvm::consumeError(std::move(error));
          return Attribute();
        }
      }
      if (!stats) {
        op.emitError() << "PyTorch's observer of this value, "
                       << describeTorchObserver(tag)
                       << ", keeps no statistics, but qfx's observer "
                       << op.getSpec() << " needs them";
        return mlir::failure();
      }
      if (llvm::Error error = observer->setState(getObserverState(stats))) {
        op.emitError() << "the statistics of PyTorch's observer "
                       << describeTorchObserver(tag)
                       << " do not fit qfx's observer " << op.getSpec() << ": "
                       << llvm::toString(std::move(error));
        return mlir::failure();
      }
      fromTorch = true;
      return stats;
    }
    // A constant, or a reshape of one (a depthwise weight with a channel
    // multiplier, observed as [KH, KW, C*M]).
    Value input = op.getInput();
    while (auto reshape = input.getDefiningOp<mlir::tosa::ReshapeOp>())
      input = reshape.getInput1();
    mlir::DenseElementsAttr constant;
    if (mlir::matchPattern(input, mlir::m_Constant(&constant))) {
      constant = constant.reshape(
          llvm::cast<mlir::ShapedType>(op.getInput().getType()));
      auto type = llvm::cast<mlir::ShapedType>(constant.getType());
      if (!type.getElementType().isF32()) {
        op.emitError() << "expected a float32 constant, got " << type;
        return mlir::failure();
      }
      llvm::SmallVector<float> values(constant.getValues<float>());
      if (llvm::Error error =
              observer->observe(values, type.getShape(), "the constant")) {
        op.emitError() << llvm::toString(std::move(error));
        return mlir::failure();
      }
      return getObserverStatsAttr(op.getContext(), spec.kind,
                                  observer->getState());
    }
    return Attribute();
  }

  /// The statistics now live in the observers; the tags would only keep the
  /// histograms twice. A PyTorch observer no qfx observer took says where
  /// the two models' observers differ (a remark: PyTorch quantizes a value
  /// qfx keeps in float, or observes a value twice).
  static void removeTorchObservers(mlir::ModuleOp module,
                                   const llvm::DenseSet<Attribute> &used) {
    llvm::StringLiteral name = QFXDialect::getTorchObserverAttrName();
    auto remarkUnused = [&](Attribute tag, mlir::Location loc) {
      auto dict = llvm::dyn_cast_or_null<DictionaryAttr>(tag);
      if (dict && !used.contains(dict) && dict.get("stats"))
        mlir::emitRemark(loc) << "qfx does not observe the value PyTorch's "
                              << describeTorchObserver(dict) << " observes";
    };
    module.walk([&](mlir::Operation *op) {
      remarkUnused(op->getAttr(name), op->getLoc());
      op->removeAttr(name);
      auto func = llvm::dyn_cast<mlir::FunctionOpInterface>(op);
      if (!func)
        return;
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
        if (!func.isExternal())
          remarkUnused(func.getArgAttr(i, name), func.getArgument(i).getLoc());
        func.removeArgAttr(i, name);
      }
    });
  }
};

} // namespace
