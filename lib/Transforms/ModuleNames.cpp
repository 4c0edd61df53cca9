//===- ModuleNames.cpp - Module names from locations ----------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Dialect/QFX/IR/QFXDialect.h"
#include "qfx/Dialect/QFX/IR/QFXOps.h"
#include "qfx/Transforms/ConfigResolution.h"
#include "qfx/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace qfx {
#define GEN_PASS_DEF_QFXMODULENAMESFROMLOCATIONS
#include "qfx/Transforms/Passes.h.inc"
} // namespace qfx

namespace {
struct QFXModuleNamesFromLocationsPass
    : qfx::impl::QFXModuleNamesFromLocationsBase<
          QFXModuleNamesFromLocationsPass> {
  using Base::Base;
  void runOnOperation() override {
    getOperation()->walk([](mlir::Operation *op) {
      // A qfx.fused op groups ops that have their own names.
      if (llvm::isa<mlir::ModuleOp, mlir::FunctionOpInterface, qfx::FusedOp>(
              op) ||
          op->hasTrait<mlir::OpTrait::ConstantLike>() ||
          op->hasTrait<mlir::OpTrait::IsTerminator>() ||
          op->hasAttr(qfx::QFXDialect::getModuleNameAttrName()))
        return;
      if (std::optional<qfx::OpScope> scope =
              qfx::getLocationScope(op->getLoc()))
        qfx::setOpScope(op, *scope);
    });
  }
};
} // namespace
