//===- qfx-ir-fuzzer.cpp - libFuzzer target for IR and qfx's passes -------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// Parses arbitrary bytes as MLIR with every dialect quant-opt knows; IR that
// parses and verifies goes through each qfx pass alone. Diagnostics are
// expected (passes reject what they cannot handle); a crash, an assertion or
// a sanitizer report is a bug.
//
//===----------------------------------------------------------------------===//

#include "qfx/InitQFX.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <cstdlib>
#include <memory>
#include <string>

namespace {
/// Each qfx pass, as a pipeline on a module.
constexpr const char *kPipelines[] = {
    "qfx-inline-fused",
    "qfx-inline-composites",
    "qfx-lower-observers",
    "qfx-annotate-qconfig",
    "qfx-fuse",
    "qfx-prepare",
    "qfx-convert",
    "func.func(qfx-lower)",
    "qfx-contract-to-tosa",
    "qfx-lower-quant-to-linalg",
    "qfx-lower-gelu",
    "qfx-lower-softmax",
    "qfx-lower-division",
    "qfx-codegen{target=x86-64-avx512vnni}",
    "qfx-codegen{target=aarch64-dotprod}",
    "qfx-emulate-amx",
    "qfx-lower-intrinsic-calls",
};

/// One context for many inputs (loading every dialect per input would make
/// fuzzing slow); replaced now and then, since it keeps every type and
/// attribute it has seen.
struct Session {
  mlir::DialectRegistry registry;
  std::unique_ptr<mlir::MLIRContext> context;
  unsigned uses = 0;

  Session() {
    qfx::registerQFXDialects(registry);
    qfx::registerQFXPasses();
  }

  mlir::MLIRContext &get() {
    if (!context || ++uses > 2000) {
      context = std::make_unique<mlir::MLIRContext>(
          registry, mlir::MLIRContext::Threading::DISABLED);
      context->allowUnregisteredDialects(false);
      uses = 0;
    }
    return *context;
  }
};
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static Session session;
  mlir::MLIRContext &context = session.get();
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  // MLIR's lexer reads up to a terminating NUL, as files read through
  // MemoryBuffer have; libFuzzer's bytes have none.
  std::string text(reinterpret_cast<const char *>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text,
                                              mlir::ParserConfig(&context));
  if (!module || mlir::failed(mlir::verify(*module)))
    return 0;
  for (const char *pipeline : kPipelines) {
    mlir::PassManager pm(&context);
    if (mlir::failed(mlir::parsePassPipeline(pipeline, pm)))
      abort();
    mlir::OwningOpRef<mlir::ModuleOp> copy = module->clone();
    (void)pm.run(*copy);
  }
  return 0;
}
