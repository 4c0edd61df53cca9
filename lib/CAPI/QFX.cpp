//===- QFX.cpp - qfx's C API ----------------------------------------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx-c/QFX.h"

#include "qfx/InitQFX.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

namespace {
struct Record {
  QfxSeverity severity;
  std::string location;
  std::string message;
  long parent;
};

QfxSeverity getSeverity(mlir::DiagnosticSeverity severity) {
  switch (severity) {
  case mlir::DiagnosticSeverity::Error:
    return QfxSeverityError;
  case mlir::DiagnosticSeverity::Warning:
    return QfxSeverityWarning;
  case mlir::DiagnosticSeverity::Note:
    return QfxSeverityNote;
  case mlir::DiagnosticSeverity::Remark:
    return QfxSeverityRemark;
  }
  return QfxSeverityError;
}

std::string printLocation(mlir::Location location) {
  std::string text;
  llvm::raw_string_ostream os(text);
  location.print(os);
  llvm::StringRef inner(text);
  if (inner.consume_front("loc(") && inner.consume_back(")"))
    return inner.str();
  return text;
}

char *copyString(llvm::StringRef text) {
  char *copy = static_cast<char *>(std::malloc(text.size() + 1));
  if (!copy)
    return nullptr;
  std::memcpy(copy, text.data(), text.size());
  copy[text.size()] = '\0';
  return copy;
}
} // namespace

struct QfxSessionImpl {
  QfxSessionImpl() {
    // Pass and pipeline registration is process-wide.
    static std::once_flag registered;
    std::call_once(registered, [] { qfx::registerQFXPasses(); });
    mlir::DialectRegistry registry;
    qfx::registerQFXDialects(registry);
    context = std::make_unique<mlir::MLIRContext>(registry);
    handler = context->getDiagEngine().registerHandler(
        [this](mlir::Diagnostic &diagnostic) {
          record(diagnostic, -1);
          return mlir::success();
        });
  }
  ~QfxSessionImpl() { context->getDiagEngine().eraseHandler(handler); }

  void record(mlir::Diagnostic &diagnostic, long parent) {
    records.push_back({getSeverity(diagnostic.getSeverity()),
                       printLocation(diagnostic.getLocation()),
                       diagnostic.str(), parent});
    long index = static_cast<long>(records.size()) - 1;
    for (mlir::Diagnostic &note : diagnostic.getNotes())
      record(note, index);
  }

  void error(llvm::StringRef message) {
    records.push_back({QfxSeverityError, "unknown", message.str(), -1});
  }

  std::unique_ptr<mlir::MLIRContext> context;
  mlir::DiagnosticEngine::HandlerID handler;
  // Stable addresses: QfxDiagnostic points into the records.
  std::deque<Record> records;
};

extern "C" {

int qfxGetCAPIVersion(void) { return QFX_CAPI_VERSION; }

QfxSession qfxSessionCreate(void) { return new (std::nothrow) QfxSessionImpl; }

void qfxSessionDestroy(QfxSession session) { delete session; }

int qfxRunPipeline(QfxSession session, const char *source, size_t length,
                   const char *sourceName, const char *pipeline,
                   int printDebugInfo, char **output, size_t *outputLength) {
  if (!session || !output)
    return 1;
  *output = nullptr;
  session->records.clear();
  if (!source || !pipeline) {
    session->error("qfxRunPipeline: the source and the pipeline must not be "
                   "NULL");
    return 1;
  }
  mlir::MLIRContext *context = session->context.get();

  std::string pipelineErrors;
  llvm::raw_string_ostream pipelineStream(pipelineErrors);
  mlir::FailureOr<mlir::OpPassManager> parsed =
      mlir::parsePassPipeline(pipeline, pipelineStream);
  if (mlir::failed(parsed)) {
    session->error("invalid pass pipeline '" + std::string(pipeline) +
                   "': " + pipelineErrors);
    return 1;
  }
  if (parsed->getOpAnchorName() != mlir::ModuleOp::getOperationName() &&
      parsed->getOpAnchorName() != mlir::OpPassManager::getAnyOpAnchorName()) {
    session->error("the pass pipeline must be anchored on builtin.module, "
                   "not " +
                   parsed->getOpAnchorName().str());
    return 1;
  }

  mlir::ParserConfig config(context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(
          llvm::StringRef(source, length), config,
          sourceName ? sourceName : "<source>");
  if (!module)
    return 1;

  mlir::PassManager pm(context, parsed->getOpAnchorName());
  static_cast<mlir::OpPassManager &>(pm) = std::move(*parsed);
  if (mlir::failed(pm.run(*module)))
    return 1;

  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, mlir::OpPrintingFlags().enableDebugInfo(
                        printDebugInfo != 0, /*prettyForm=*/false));
  // As mlir-opt prints it.
  os << '\n';
  *output = copyString(text);
  if (!*output) {
    session->error("out of memory");
    return 1;
  }
  if (outputLength)
    *outputLength = text.size();
  return 0;
}

size_t qfxGetNumDiagnostics(QfxSession session) {
  return session ? session->records.size() : 0;
}

int qfxGetDiagnostic(QfxSession session, size_t index,
                     QfxDiagnostic *diagnostic) {
  if (!session || !diagnostic || index >= session->records.size())
    return 1;
  const Record &record = session->records[index];
  diagnostic->severity = record.severity;
  diagnostic->location = record.location.c_str();
  diagnostic->message = record.message.c_str();
  diagnostic->parent = record.parent;
  return 0;
}

void qfxFreeString(char *string) { std::free(string); }

} // extern "C"
