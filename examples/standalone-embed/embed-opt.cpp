//===- embed-opt.cpp - An opt tool of your own, with qfx in it ------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// What an MLIR compiler that embeds qfx does: register upstream's dialects
// and passes as it would anyway, then qfx's dialect, passes and named
// pipelines, and run whatever pipeline the command line names:
//
//   embed-opt model.mlir --qfx-prepare-pipeline="backend=x86"
//   embed-opt calibrated.mlir --qfx-quantize-pipeline
//
// It also has a pass of its own, --embed-lower, that adds qfx's int8
// lowerings to its own rewrite (populateQFXLowerPatterns): on a converted
// model it gives what `quant-opt --qfx-lower` gives.
//
//===----------------------------------------------------------------------===//

#include "qfx/Config/ConfigJSON.h"
#include "qfx/Conversion/ReferenceToTosa/ReferenceToTosa.h"
#include "qfx/InitQFX.h"
#include "qfx/Transforms/ConfigResolution.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace {

/// The embedding compiler's own lowering pass, with qfx's patterns in it.
struct EmbedLowerPass
    : mlir::PassWrapper<EmbedLowerPass,
                        mlir::OperationPass<mlir::func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(EmbedLowerPass)

  EmbedLowerPass() = default;
  EmbedLowerPass(const EmbedLowerPass &pass) : PassWrapper(pass) {}

  llvm::StringRef getArgument() const override { return "embed-lower"; }
  llvm::StringRef getDescription() const override {
    return "Lowers a converted model to int8 with qfx's patterns";
  }

  Option<std::string> backendName{*this, "backend",
                                  llvm::cl::desc("qfx backend table"),
                                  llvm::cl::init("x86")};

  void runOnOperation() override {
    llvm::Expected<qfx::BackendConfig> backend =
        qfx::loadBackendConfig(backendName);
    if (!backend) {
      getOperation().emitError()
          << "backend: " << llvm::toString(backend.takeError());
      return signalPassFailure();
    }
    mlir::func::FuncOp func = getOperation();
    qfx::PatternMatches matches = qfx::matchBackendPatterns(func, *backend);
    mlir::RewritePatternSet lowering(&getContext());
    qfx::populateQFXLowerPatterns(
        lowering,
        {&*backend, &matches, qfx::getDefaultRequantization(*backend)});
    mlir::walkAndApplyPatterns(func, std::move(lowering));
    mlir::RewritePatternSet storage(&getContext());
    qfx::populateQFXWeightStoragePatterns(storage);
    mlir::walkAndApplyPatterns(func, std::move(storage));

    // What the patterns leave dead (the float ops they replaced), latest
    // first.
    for (mlir::Block &block : func.getBody())
      for (mlir::Operation &op :
           llvm::make_early_inc_range(llvm::reverse(block)))
        if (mlir::isOpTriviallyDead(&op))
          op.erase();
  }
};

} // namespace

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllPasses();

  // qfx's dialect (and what its passes create), passes and pipelines.
  qfx::registerQFXDialects(registry);
  qfx::registerQFXOnlyPasses();
  // A pass of this compiler's own.
  mlir::PassRegistration<EmbedLowerPass>();

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "an MLIR compiler embedding qfx\n", registry));
}
