//===- AnnotateQConfig.cpp - Show what the configuration resolves to ------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-annotate-qconfig: attaches each op's resolved QConfig and matched
// backend pattern, and says in a remark why an op will not be quantized.
//
//===----------------------------------------------------------------------===//

#include "qfx/Dialect/QFX/IR/QFXAttrs.h"
#include "qfx/Dialect/QFX/IR/QFXDialect.h"
#include "qfx/Dialect/QFX/IR/QFXOps.h"
#include "qfx/Transforms/ConfigResolution.h"
#include "qfx/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace qfx {
#define GEN_PASS_DEF_QFXANNOTATEQCONFIG
#include "qfx/Transforms/Passes.h.inc"

namespace {
/// The attribute form of a QConfig, or "none".
Attribute getQConfigAnnotation(MLIRContext *context,
                               const OptionalQConfig &qconfig) {
  if (!qconfig)
    return mlir::StringAttr::get(context, "none");
  return QConfigAttr::get(context,
                          ObserverSpecAttr::get(context, qconfig->activation),
                          ObserverSpecAttr::get(context, qconfig->weight));
}

Attribute getPatternAnnotation(MLIRContext *context,
                               const BackendPatternConfig &config) {
  SmallVector<Attribute, 3> names;
  for (const std::string &name : config.getPattern())
    names.push_back(mlir::StringAttr::get(context, name));
  return mlir::ArrayAttr::get(context, names);
}

struct QFXAnnotateQConfigPass
    : impl::QFXAnnotateQConfigBase<QFXAnnotateQConfigPass> {
  using Base::Base;

  PassConfig config;

  LogicalResult initialize(MLIRContext *context) override {
    return config.load(context, backend, StringRef(qconfigMapping));
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();

    MLIRContext *context = &getContext();
    mlir::FailureOr<QConfigMapping> mapping =
        updateQConfigsForFusion(*config.mapping, module);
    if (mlir::failed(mapping))
      return signalPassFailure();
    module.walk([&](mlir::FunctionOpInterface function) {
      if (function.isExternal())
        return;
      QConfigQueries queries(function);
      for (Block &block : function.getFunctionBody()) {
        PatternMatches matches = matchBackendPatterns(block, *config.backend);
        for (Operation &op : block) {
          bool isFused = llvm::isa<FusedOp>(op);
          if (!isFused && !isQuantizationCandidate(&op))
            continue;
          OpResolution resolution =
              resolveOp(&op, *mapping, *config.backend, queries, matches);
          op.setAttr(QFXDialect::getQConfigAttrName(),
                     getQConfigAnnotation(context, resolution.qconfig));
          if (resolution.match)
            op.setAttr(
                QFXDialect::getPatternAttrName(),
                getPatternAnnotation(context, *resolution.match->config));
          if (!resolution.isQuantized())
            op.emitRemark() << "not quantized: " << resolution.whyNotQuantized;
          // The body of a fused op: each op's own QConfig.
          if (isFused)
            for (Operation *inner : getFusedPatternOps(&op))
              if (const QConfigQuery *query = queries.lookup(inner))
                inner->setAttr(
                    QFXDialect::getQConfigAttrName(),
                    getQConfigAnnotation(context, mapping->resolve(*query)));
        }
      }
    });
  }
};
} // namespace
} // namespace qfx
