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

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
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
static cl::opt<bool> listTargets("list-targets", cl::init(false),
                                 cl::desc("List the targets and exit"),
                                 cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "quant-compile") << message << "\n";
  return 1;
}

static bool isIdentifier(llvm::StringRef name) {
  return !name.empty() && !llvm::isDigit(name.front()) &&
         llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// Links `object` into a shared library with clang (and lld), with MLIR's C
/// runner utilities (memref copies) found next to it at run time, and the
/// OpenMP runtime (the kernels' parallel loops).
static llvm::Error linkSharedLibrary(llvm::StringRef object,
                                     llvm::StringRef output) {
  llvm::ErrorOr<std::string> clang = llvm::sys::findProgramByName("clang-22");
  if (!clang)
    clang = llvm::sys::findProgramByName("clang");
  if (!clang)
    return llvm::createStringError(
        "linking a shared library needs clang-22 (or clang) on PATH; write "
        "an object file (-o model.o) to link it yourself");
  std::string libDir = "/usr/lib/llvm-22/lib";
  std::string libFlag = "-L" + libDir, rpath = "-Wl,-rpath," + libDir;
  llvm::SmallVector<llvm::StringRef> args = {
      *clang, "-shared", "-fuse-ld=lld",          "-o",  output,
      object, libFlag,   "-lmlir_c_runner_utils", rpath, QFX_OPENMP_LIBRARY};
  std::string message;
  int status =
      llvm::sys::ExecuteAndWait(*clang, args, std::nullopt, {}, 0, 0, &message);
  if (status != 0)
    return llvm::createStringError("linking " + output.str() + " failed" +
                                   (message.empty() ? "" : ": " + message));
  return llvm::Error::success();
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
  bool shared = llvm::StringRef(outputPath).ends_with(".so");
  if (!shared && !llvm::StringRef(outputPath).ends_with(".o"))
    return fail("-o " + outputPath +
                ": expected an object file (.o) or a shared library (.so)");
  if (!exportName.empty() && !isIdentifier(exportName))
    return fail("--name=" + exportName + ": expected a C identifier");
  std::string header = headerPath;
  if (header.empty()) {
    llvm::SmallString<128> path(outputPath);
    llvm::sys::path::replace_extension(path, ".h");
    header = path.str().str();
  }

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

  llvm::Expected<std::string> entryName = qfx::findEntry(*module, entry);
  if (!entryName)
    return fail(modelPath + ": " + llvm::toString(entryName.takeError()));
  std::string name = exportName.empty() ? *entryName : exportName.getValue();
  if (!isIdentifier(name))
    return fail("@" + name + " is not a C identifier: export it with --name");
  // Export under --name: rename the entry before lowering.
  if (name != *entryName) {
    auto function = module->lookupSymbol<mlir::func::FuncOp>(*entryName);
    if (module->lookupSymbol(name))
      return fail("--name=" + name + ": the module already has a @" + name);
    if (mlir::failed(mlir::SymbolTable::replaceAllSymbolUses(
            function, mlir::StringAttr::get(&context, name), *module)))
      return fail("cannot rename @" + *entryName + " to @" + name);
    mlir::SymbolTable::setSymbolName(function, name);
  }
  qfx::CompileOptions options;
  options.entry = name;
  options.codegenTarget = target->target;
  llvm::Expected<qfx::LoweredModel> lowered =
      qfx::lowerToLLVMDialect(*module, options);
  if (!lowered)
    return fail(modelPath + ": " + llvm::toString(lowered.takeError()));
  llvm::Expected<std::string> object =
      qfx::emitObject(*lowered->module, *target, "_mlir_ciface_" + name);
  if (!object)
    return fail(llvm::toString(object.takeError()));

  std::string openError;
  if (shared) {
    // A temporary object file, linked into the library.
    llvm::SmallString<128> objectPath;
    int fd;
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "quant-compile", "o", fd, objectPath))
      return fail("cannot create a temporary object file: " + ec.message());
    llvm::FileRemover removeObject(objectPath);
    {
      llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
      os << *object;
    }
    if (llvm::Error err = linkSharedLibrary(objectPath, outputPath))
      return fail(llvm::toString(std::move(err)));
  } else {
    auto output = mlir::openOutputFile(outputPath, &openError);
    if (!output)
      return fail(outputPath + ": " + openError);
    output->os() << *object;
    output->keep();
  }
  auto headerFile = mlir::openOutputFile(header, &openError);
  if (!headerFile)
    return fail(header + ": " + openError);
  headerFile->os() << qfx::generateHeader(name, lowered->inputs,
                                          lowered->results, modelPath, *target);
  headerFile->keep();
  return 0;
}
