//===- qfx-microkernels.cpp - The microkernels, compiled alone ------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// qfx-microkernels --target=T -o tiles.o --header=tiles.h [--tiles=N]
//                  [--seed=S] [--emulate-amx]
//
// Compiles random tiles of one target's GEMM microkernel
// (qfx/Codegen/MicroKernelTests.h) to an object file with the C entry point
// qfx_microkernels, and a header describing them, for a test driver
// (test/Codegen/Inputs/microkernel-test.c).
//
//===----------------------------------------------------------------------===//

#include "qfx/Codegen/MicroKernelTests.h"
#include "qfx/InitQFX.h"
#include "qfx/Pipelines.h"
#include "qfx/Runtime/AheadOfTime.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

namespace cl = llvm::cl;

static cl::OptionCategory category("qfx-microkernels options");

static cl::opt<std::string>
    targetName("target", cl::Required,
               cl::desc("x86-64-avx512vnni, x86-64-amx, x86-64-avx2, "
                        "aarch64-dotprod or aarch64-i8mm"),
               cl::cat(category));
static cl::opt<std::string> outputPath("o", cl::Required,
                                       cl::desc("the object file to write"),
                                       cl::value_desc("tiles.o"),
                                       cl::cat(category));
static cl::opt<std::string> headerPath("header", cl::Required,
                                       cl::desc("the C header to write"),
                                       cl::value_desc("tiles.h"),
                                       cl::cat(category));
static cl::opt<unsigned> tileCount("tiles", cl::init(40),
                                   cl::desc("random tiles (default 40)"),
                                   cl::cat(category));
static cl::opt<unsigned> seed("seed", cl::init(1),
                              cl::desc("their seed (default 1)"),
                              cl::cat(category));
static cl::opt<bool> emulateAmx(
    "emulate-amx", cl::init(false),
    cl::desc("x86-64-amx: run the tile instructions with AVX-512 VNNI"),
    cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "qfx-microkernels") << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "qfx-microkernels: compile random tiles of a target's GEMM microkernel "
      "for a standalone test driver\n");
  llvm::Expected<qfx::AotTarget> target = qfx::lookupAotTarget(targetName);
  if (!target)
    return fail(llvm::toString(target.takeError()));

  mlir::DialectRegistry registry;
  qfx::registerQFXDialects(registry);
  qfx::registerQFXPasses();
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::ModuleOp::create(mlir::UnknownLoc::get(&context));
  llvm::Expected<std::string> header =
      qfx::buildMicroKernelTests(*module, target->target, tileCount, seed);
  if (!header)
    return fail(llvm::toString(header.takeError()));

  qfx::LowerToNativeOptions options;
  options.target = target->target;
  options.emulateAmx = emulateAmx;
  mlir::PassManager pm(&context);
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  if (mlir::failed(qfx::buildLowerToNativePipeline(pm, options, errorStream)))
    return fail(errors);
  if (mlir::failed(pm.run(*module)))
    return fail("cannot lower the microkernels to LLVM (see above)");
  llvm::Expected<std::string> object =
      qfx::emitObject(*module, *target, qfx::kMicroKernelTestsEntry);
  if (!object)
    return fail(llvm::toString(object.takeError()));

  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> headerFile =
      mlir::openOutputFile(headerPath, &error);
  if (!headerFile)
    return fail(headerPath + ": " + error);
  headerFile->os() << *header;
  std::unique_ptr<llvm::ToolOutputFile> objectFile =
      mlir::openOutputFile(outputPath, &error);
  if (!objectFile)
    return fail(outputPath + ": " + error);
  objectFile->os() << *object;
  headerFile->keep();
  objectFile->keep();
  return 0;
}
