//===- quant-compile.cpp - Compile a model to native code -----------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// quant-compile MODEL.mlir --target=T -o model.o|model.so [--header=model.h]
//                          [--entry=FUNCTION] [--name=NAME]
//
// Compiles one function of a model at any stage quant-run runs (float TOSA,
// reference, int8 TOSA) ahead of time for a target: an object file or a
// shared library with a C entry point, and a C header declaring it.
//
//===----------------------------------------------------------------------===//

#include "qfx/InitQFX.h"
#include "qfx/Runtime/AheadOfTime.h"
#include "qfx/Runtime/CompiledModel.h"
#include "qfx/Transforms/MaterializeResources.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

static cl::OptionCategory category("quant-compile options");

static cl::opt<std::string> modelPath(cl::Positional, cl::desc("<model.mlir>"),
                                      cl::cat(category));
static cl::opt<std::string>
    targetName("target", cl::init("host"),
               cl::desc("host, x86-64-avx512vnni, x86-64-amx, x86-64-avx2, "
                        "aarch64-dotprod or aarch64-i8mm (default: host)"),
               cl::cat(category));
static cl::opt<std::string>
    outputPath("o", cl::desc("An object file (.o) or a shared library (.so)"),
               cl::value_desc("model.o|model.so"), cl::cat(category));
static cl::opt<std::string>
    headerPath("header",
               cl::desc("The C header to write (default: the output with .h)"),
               cl::value_desc("model.h"), cl::cat(category));
static cl::opt<std::string>
    entry("entry",
          cl::desc("The function to compile (default: the module's only "
                   "public function)"),
          cl::cat(category));
static cl::opt<std::string> exportName(
    "name",
    cl::desc("The name it is exported under: _mlir_ciface_NAME and the "
             "header's qfx_NAME (default: the entry's name)"),
    cl::cat(category));
static cl::opt<std::string>
    sanitize("sanitize",
             cl::desc("Instrument the code for a sanitizer: 'thread' "
                      "(ThreadSanitizer; link the program with "
                      "-fsanitize=thread)"),
             cl::value_desc("thread"), cl::cat(category));
static cl::opt<bool> listTargets("list-targets", cl::init(false),
                                 cl::desc("List the targets and exit"),
                                 cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "quant-compile") << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "quant-compile: compile a model ahead of time to an object file or a "
      "shared library with a C entry point and header\n");

  if (listTargets) {
    for (const qfx::NativeTargetInfo &target : qfx::getNativeTargets())
      if (qfx::isAotTarget(target))
        llvm::outs() << llvm::left_justify(target.name, 20)
                     << target.description << "\n";
    return 0;
  }
  if (modelPath.empty() || outputPath.empty())
    return fail("expected a model and -o model.o|model.so (see --help)");
  llvm::Expected<qfx::AotTarget> target = qfx::lookupAotTarget(targetName);
  if (!target)
    return fail(llvm::toString(target.takeError()));
  if (!sanitize.empty() && sanitize != "thread")
    return fail("unknown sanitizer '" + sanitize + "', expected 'thread'");

  mlir::DialectRegistry registry;
  qfx::registerQFXDialects(registry);
  qfx::registerQFXPasses();
  mlir::MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  std::string error;
  auto file = mlir::openInputFile(modelPath, &error);
  if (!file)
    return fail(modelPath + ": " + error);
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module)
    return fail(modelPath + ": cannot parse the model (see above)");
  if (mlir::failed(qfx::materializeResources(*module)))
    return fail(modelPath +
                ": the model's resources are malformed (see above)");

  qfx::AotOptions options;
  options.entry = entry;
  options.exportName = exportName;
  options.outputPath = outputPath;
  options.headerPath = headerPath;
  options.sourceName = modelPath;
  options.sanitizeThreads = sanitize == "thread";
  if (llvm::Error err = qfx::compileAheadOfTime(*module, *target, options))
    return fail(modelPath + ": " + llvm::toString(std::move(err)));
  return 0;
}
