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
//===----------------------------------------------------------------------===//

#include "qfx/InitQFX.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllPasses();

  // qfx's dialect (and what its passes create), passes and pipelines.
  qfx::registerQFXDialects(registry);
  qfx::registerQFXOnlyPasses();

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "an MLIR compiler embedding qfx\n", registry));
}
