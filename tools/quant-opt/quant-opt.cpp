//===- quant-opt.cpp - The qfx optimizer driver ---------------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// mlir-opt with qfx: parses, verifies, transforms and prints IR with the qfx
// dialect and every upstream dialect and pass a quantization pipeline needs.
//
//===----------------------------------------------------------------------===//

#include "qfx/InitQFX.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  qfx::registerQFXDialects(registry);
  qfx::registerQFXPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "qfx optimizer: quantization passes on MLIR\n", registry));
}
