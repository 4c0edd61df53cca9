//===- InitQFX.cpp - Register what a qfx pipeline needs -------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/InitQFX.h"

#include "qfx/Codegen/Passes.h"
#include "qfx/Conversion/Passes.h"
#include "qfx/Dialect/QFX/IR/BufferizableOpInterfaceImpl.h"
#include "qfx/Dialect/QFX/IR/QFXDialect.h"
#include "qfx/Dialect/QFX/IR/QuantizableOpInterface.h"
#include "qfx/Pipelines.h"
#include "qfx/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"

void qfx::registerQFXDialects(mlir::DialectRegistry &registry) {
  registry.insert<qfx::QFXDialect>();
  qfx::registerQuantizableOpInterfaceExternalModels(registry);
  qfx::registerBufferizableOpInterfaceExternalModels(registry);
  // All of upstream's dialects, not only those a pipeline names (func, arith,
  // math, tensor, tosa, quant, linalg, bufferization, memref, scf, vector,
  // x86vector, amx, arm_neon, llvm): registering brings their external
  // interface models (bufferization, deallocation, tiling, value bounds),
  // without which one-shot-bufferize cannot handle arith or tensor ops.
  // Dialects load lazily, so the unused ones cost nothing.
  mlir::registerAllDialects(registry);
  // Inlining and conversion-to-LLVM interfaces live in extensions.
  mlir::registerAllExtensions(registry);
}

void qfx::registerQFXPasses() {
  // Upstream's passes (canonicalize, cse, tosa-to-linalg, bufferization,
  // convert-*-to-llvm, ...), then qfx's.
  mlir::registerAllPasses();
  registerQFXOnlyPasses();
}

void qfx::registerQFXOnlyPasses() {
  registerQFXTransformsPasses();
  registerQFXConversionPasses();
  registerQFXCodegenPasses();
  registerQFXPipelines();
}
