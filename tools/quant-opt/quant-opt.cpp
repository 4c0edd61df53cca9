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
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

int main(int argc, char **argv) {
  // Op locations carry module names, which QConfigMapping keys and the
  // comparison of stages match. A stage written to a file (-o FILE) is the
  // input of the next pass, so it keeps them unless told otherwise
  // (--mlir-print-debuginfo=false); stdout keeps MLIR's default, as lit tests
  // expect.
  llvm::SmallVector<char *> args(argv, argv + argc);
  auto writesFile = [&] {
    for (size_t i = 1; i < args.size(); ++i) {
      llvm::StringRef arg = args[i];
      if ((arg == "-o" || arg == "--o") && i + 1 < args.size())
        return llvm::StringRef(args[i + 1]) != "-";
      if (arg.consume_front("-o=") || arg.consume_front("--o="))
        return arg != "-";
    }
    return false;
  };
  static char printDebugInfo[] = "--mlir-print-debuginfo";
  if (writesFile() && llvm::none_of(args, [](llvm::StringRef arg) {
        return arg.contains("mlir-print-debuginfo");
      }))
    args.insert(args.begin() + 1, printDebugInfo);
  argc = static_cast<int>(args.size());
  argv = args.data();

  mlir::DialectRegistry registry;
  qfx::registerQFXDialects(registry);
  qfx::registerQFXPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "qfx optimizer: quantization passes on MLIR\n", registry));
}
