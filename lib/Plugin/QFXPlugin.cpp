//===- QFXPlugin.cpp - qfx as a plugin of upstream's mlir-opt -------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// One shared library that is both a dialect plugin and a pass plugin of
// upstream's mlir-opt (as upstream's examples/standalone). mlir-opt creates
// its pass flags before it loads plugins, so qfx's passes are named in
// --pass-pipeline:
//
//   mlir-opt --load-dialect-plugin=QFXPlugin.so \
//            --load-pass-plugin=QFXPlugin.so \
//            --pass-pipeline="builtin.module(qfx-prepare-pipeline)" ...
//
// It links libMLIR.so, as Debian's mlir-opt does, so both share one MLIR.
//
//===----------------------------------------------------------------------===//

#include "qfx/InitQFX.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "QFX", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            qfx::registerQFXDialects(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  // mlir-opt has registered upstream's passes already.
  return {MLIR_PLUGIN_API_VERSION, "QFXPasses", LLVM_VERSION_STRING,
          [] { qfx::registerQFXOnlyPasses(); }};
}
