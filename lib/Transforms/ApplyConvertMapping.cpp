//===- ApplyConvertMapping.cpp - convert_fx's QConfigMapping --------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// PyTorch's convert_fx(qconfig_mapping=...): a second mapping that may only
// turn prepare-time QConfigs to None. The ops it gives None lose the
// observers nothing quantized produces or uses, so qfx-convert leaves them
// float. See docs/qfx-passes.md.
//
//===----------------------------------------------------------------------===//

#include "qfx/Config/ConfigJSON.h"
#include "qfx/Dialect/QFX/IR/QFXDialect.h"
#include "qfx/Dialect/QFX/IR/QFXOps.h"
#include "qfx/Transforms/ConfigResolution.h"
#include "qfx/Transforms/Passes.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/DenseSet.h"

namespace qfx {
#define GEN_PASS_DEF_QFXAPPLYCONVERTMAPPING
#include "qfx/Transforms/Passes.h.inc"
} // namespace qfx

using namespace qfx;

namespace {

/// compare_prepare_convert_qconfig_mappings for one kind of entry: each of
/// `prepare`'s keys must be in `convert`, with None or the same QConfig.
/// The message names the first that is not, or is empty.
template <typename Entry, typename Key>
std::string compareEntries(llvm::ArrayRef<Entry> prepare,
                           llvm::ArrayRef<Entry> convert, StringRef kind,
                           Key key) {
  for (const Entry &entry : prepare) {
    const Entry *match = llvm::find_if(
        convert, [&](const Entry &other) { return key(other) == key(entry); });
    if (match == convert.end())
      return (kind + " '" + key(entry) +
              "' of the prepare QConfigMapping is not in the convert one")
          .str();
    if (match->qconfig && match->qconfig != entry.qconfig)
      return (kind + " '" + key(entry) +
              "': the convert QConfigMapping gives another QConfig than the "
              "prepare one (it may only give None)")
          .str();
  }
  return "";
}

/// PyTorch's compare_prepare_convert_qconfig_mappings.
std::string compareMappings(const QConfigMapping &prepare,
                            const QConfigMapping &convert) {
  if (prepare.getGlobal() != convert.getGlobal())
    return "the global QConfigs of the prepare and convert QConfigMappings "
           "differ";
  std::string message = compareEntries(
      prepare.getObjectTypeEntries(), convert.getObjectTypeEntries(),
      "object_type", [](const auto &e) -> StringRef { return e.objectType; });
  if (message.empty())
    message = compareEntries(
        prepare.getModuleNameEntries(), convert.getModuleNameEntries(),
        "module_name", [](const auto &e) -> StringRef { return e.moduleName; });
  if (message.empty())
    message =
        compareEntries(prepare.getModuleNameRegexEntries(),
                       convert.getModuleNameRegexEntries(), "module_name_regex",
                       [](const auto &e) -> StringRef { return e.regex; });
  return message;
}

/// Which ops of a function the convert QConfigMapping leaves float, and
/// whether PyTorch's node for a value's producer or user has a None QConfig.
class FloatOps {
public:
  explicit FloatOps(mlir::FunctionOpInterface function) {
    function.walk([&](Operation *op) {
      hasOrigins |= op->hasAttr(QFXDialect::getOriginAttrName());
    });
  }

  void add(Operation *op) { ops.insert(op); }

  /// True if the op producing `value` (through layout glue) has a None
  /// QConfig.
  bool producerIsNone(Value value) const {
    Operation *producer = value.getDefiningOp();
    while (producer && isGlue(producer)) {
      value = producer->getOperand(0);
      producer = value.getDefiningOp();
    }
    return isNone(producer);
  }

  /// True if every op using `value` (through layout glue) has a None
  /// QConfig.
  bool usersAreNone(Value value) const {
    for (Operation *user : value.getUsers()) {
      if (isGlue(user) ? !usersAreNone(user->getResult(0)) : !isNone(user))
        return false;
    }
    return true;
  }

private:
  bool isGlue(Operation *op) const { return hasOrigins && isLayoutGlue(op); }

  /// PyTorch's qconfig_map holds None for placeholders, constants and the
  /// output; an observer is no node of it.
  bool isNone(Operation *op) const {
    if (!op || op->hasTrait<mlir::OpTrait::ConstantLike>() ||
        op->hasTrait<mlir::OpTrait::IsTerminator>())
      return true;
    return ops.contains(op);
  }

  llvm::DenseSet<Operation *> ops;
  bool hasOrigins = false;
};

struct QFXApplyConvertMappingPass
    : qfx::impl::QFXApplyConvertMappingBase<QFXApplyConvertMappingPass> {
  using Base::Base;

  PassConfig config;
  std::shared_ptr<const QConfigMapping> prepareMapping;

  mlir::LogicalResult initialize(mlir::MLIRContext *context) override {
    if (qconfigMapping.empty() || prepareQConfigMapping.empty())
      return mlir::emitError(mlir::UnknownLoc::get(context))
             << "qfx-apply-convert-mapping: give both qconfig-mapping (the "
                "convert one) and prepare-qconfig-mapping";
    if (failed(config.load(context, backend, StringRef(qconfigMapping))))
      return mlir::failure();
    llvm::Expected<QConfigMapping> loaded =
        loadQConfigMapping(prepareQConfigMapping);
    if (!loaded)
      return mlir::emitError(mlir::UnknownLoc::get(context))
             << "prepare-qconfig-mapping: "
             << llvm::toString(loaded.takeError());
    prepareMapping = std::make_shared<const QConfigMapping>(std::move(*loaded));
    return mlir::success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    mlir::FailureOr<QConfigMapping> prepare =
        updateQConfigsForFusion(*prepareMapping, module);
    mlir::FailureOr<QConfigMapping> convert =
        updateQConfigsForFusion(*config.mapping, module);
    if (mlir::failed(prepare) || mlir::failed(convert))
      return signalPassFailure();
    if (std::string message = compareMappings(*prepare, *convert);
        !message.empty()) {
      mlir::emitError(module.getLoc())
          << "qfx-apply-convert-mapping: " << message;
      return signalPassFailure();
    }
    bool failedAny = false;
    module.walk([&](mlir::FunctionOpInterface function) {
      if (!function.isExternal() && failed(apply(function, *prepare, *convert)))
        failedAny = true;
    });
    if (failedAny)
      signalPassFailure();
  }

  LogicalResult apply(mlir::FunctionOpInterface function,
                      const QConfigMapping &prepare,
                      const QConfigMapping &convert) {
    QConfigQueries queries(function);
    FloatOps floatOps(function);
    for (Block &block : function.getFunctionBody()) {
      PatternMatches matches = matchBackendPatterns(block, *config.backend);
      for (Operation &op : block) {
        if (!llvm::isa<FusedOp>(op) && !isQuantizationCandidate(&op))
          continue;
        OpResolution before =
            resolveOp(&op, prepare, *config.backend, queries, matches);
        OpResolution after =
            resolveOp(&op, convert, *config.backend, queries, matches);
        if (!after.qconfig) {
          floatOps.add(&op);
          continue;
        }
        if (after.qconfig == before.qconfig)
          continue;
        mlir::InFlightDiagnostic diagnostic =
            op.emitError() << "qfx-apply-convert-mapping: the convert "
                              "QConfigMapping gives this op another QConfig "
                              "than the prepare one (it may only give None)";
        if (after.query)
          diagnostic << " (" << describeQuery(*after.query) << ")";
        return mlir::failure();
      }
    }
    SmallVector<ObserveOp> removed;
    function.walk([&](ObserveOp observe) {
      if (floatOps.producerIsNone(observe.getInput()) &&
          floatOps.usersAreNone(observe.getResult()))
        removed.push_back(observe);
    });
    for (ObserveOp observe : removed) {
      observe.getResult().replaceAllUsesWith(observe.getInput());
      observe.erase();
    }
    return mlir::success();
  }
};

} // namespace
