//===- quant-run.cpp - Run any pipeline stage on .npy inputs --------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// quant-run MODEL.mlir --input=A.npy[,B.npy] [-o OUT.npy[,...]] [--bench=N]
//
// JIT-compiles one function of a model at any stage of the qfx pipeline
// (float TOSA, observed, reference) and runs it in-process.
//
//===----------------------------------------------------------------------===//

#include "qfx/InitQFX.h"
#include "qfx/Runtime/CompiledModel.h"
#include "qfx/Runtime/Npy.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>

namespace cl = llvm::cl;

static cl::OptionCategory category("quant-run options");

static cl::opt<std::string> modelPath(cl::Positional, cl::Required,
                                      cl::desc("<model.mlir>"),
                                      cl::cat(category));
static cl::opt<std::string>
    entry("entry", cl::desc("The function to run (default: main)"),
          cl::init("main"), cl::cat(category));
static cl::list<std::string>
    inputPaths("input", cl::CommaSeparated,
               cl::desc("The .npy file of each argument, in order"),
               cl::value_desc("A.npy,B.npy"), cl::cat(category));
static cl::list<std::string>
    outputPaths("o", cl::CommaSeparated,
                cl::desc("Write each result to a .npy file, in order"),
                cl::value_desc("OUT.npy,..."), cl::cat(category));
static cl::opt<unsigned>
    benchRuns("bench", cl::init(0),
              cl::desc("Time N runs after a warm-up and print the median, "
                       "the spread and the throughput"),
              cl::value_desc("N"), cl::cat(category));
static cl::opt<bool>
    printPipeline("print-pipeline", cl::init(false),
                  cl::desc("Print the lowering pass pipeline and exit"),
                  cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "quant-run") << message << "\n";
  return 1;
}

static int fail(llvm::Error error) {
  return fail(llvm::Twine(llvm::toString(std::move(error))));
}

/// Prints a result: its dtype and shape, then its first values.
static void printSummary(llvm::raw_ostream &os, size_t index,
                         const qfx::NpyArray &array) {
  os << "result " << index << ": " << qfx::getNpyDTypeName(array.dtype) << "["
     << array.getShapeString() << "]";
  int64_t count = std::min<int64_t>(array.getNumElements(), 16);
  os << " = [";
  for (int64_t i = 0; i < count; ++i) {
    if (i)
      os << ", ";
    const uint8_t *p = array.data.data();
    switch (array.dtype) {
    case qfx::NpyDType::Float32:
      os << llvm::format("%g", reinterpret_cast<const float *>(p)[i]);
      break;
    case qfx::NpyDType::Int8:
      os << static_cast<int>(reinterpret_cast<const int8_t *>(p)[i]);
      break;
    case qfx::NpyDType::UInt8:
      os << static_cast<int>(p[i]);
      break;
    case qfx::NpyDType::Int32:
      os << reinterpret_cast<const int32_t *>(p)[i];
      break;
    case qfx::NpyDType::Int64:
      os << reinterpret_cast<const int64_t *>(p)[i];
      break;
    case qfx::NpyDType::Float16:
      os << llvm::formatv("0x{0:x-4}",
                          reinterpret_cast<const uint16_t *>(p)[i]);
      break;
    }
  }
  if (array.getNumElements() > count)
    os << ", ...";
  os << "]\n";
}

static int runBenchmark(qfx::CompiledModel &model,
                        llvm::ArrayRef<qfx::NpyArray> inputs) {
  using Clock = std::chrono::steady_clock;
  // Warm up: the first runs page in code and data.
  for (int i = 0; i < 3; ++i)
    if (auto outputs = model.run(inputs); !outputs)
      return fail(outputs.takeError());
  std::vector<double> millis;
  for (unsigned i = 0; i < benchRuns; ++i) {
    auto start = Clock::now();
    auto outputs = model.run(inputs);
    auto stop = Clock::now();
    if (!outputs)
      return fail(outputs.takeError());
    millis.push_back(
        std::chrono::duration<double, std::milli>(stop - start).count());
  }
  std::sort(millis.begin(), millis.end());
  auto at = [&](double q) {
    return millis[static_cast<size_t>(q * (millis.size() - 1) + 0.5)];
  };
  int64_t batch =
      inputs.empty() || inputs[0].shape.empty() ? 1 : inputs[0].shape.front();
  double median = at(0.5);
  llvm::outs() << llvm::formatv(
      "bench: {0} runs of @{1}: median {2:f4} ms, min {3:f4} ms, p10 {4:f4} "
      "ms, p90 {5:f4} ms, max {6:f4} ms; {7:f1} runs/s, {8:f1} samples/s "
      "(batch {9})\n",
      millis.size(), entry, median, millis.front(), at(0.1), at(0.9),
      millis.back(), 1000.0 / median, 1000.0 * batch / median, batch);
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "quant-run: JIT-compile and run a model at any qfx pipeline stage\n");

  if (printPipeline) {
    llvm::outs() << qfx::CompiledModel::getLoweringPipeline(false) << "\n";
    return 0;
  }
  if (benchRuns > 0 && !outputPaths.empty())
    return fail("--bench and -o cannot be combined");

  mlir::DialectRegistry registry;
  qfx::registerQFXDialects(registry);
  qfx::registerQFXPasses();
  mlir::MLIRContext context(registry);

  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  std::string error;
  auto file = mlir::openInputFile(modelPath, &error);
  if (!file)
    return fail(modelPath + ": " + error);
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module)
    return fail(modelPath + ": cannot parse the model (see above)");

  llvm::SmallVector<qfx::NpyArray> inputs;
  for (const std::string &path : inputPaths) {
    auto array = qfx::readNpy(path);
    if (!array)
      return fail(array.takeError());
    inputs.push_back(std::move(*array));
  }

  qfx::CompileOptions options;
  options.entry = entry;
  auto model = qfx::CompiledModel::compile(*module, options);
  if (!model)
    return fail(model.takeError());
  if (llvm::Error err = model->checkInputs(inputs))
    return fail(std::move(err));
  if (!outputPaths.empty() && outputPaths.size() != model->getResults().size())
    return fail(llvm::formatv("@{0} has {1} results but -o names {2} files",
                              entry, model->getResults().size(),
                              outputPaths.size())
                    .str());

  if (benchRuns > 0)
    return runBenchmark(*model, inputs);

  auto outputs = model->run(inputs);
  if (!outputs)
    return fail(outputs.takeError());
  if (outputPaths.empty()) {
    for (auto [index, output] : llvm::enumerate(*outputs))
      printSummary(llvm::outs(), index, output);
    return 0;
  }
  for (auto [path, output] : llvm::zip_equal(outputPaths, *outputs))
    if (llvm::Error err = qfx::writeNpy(path, output))
      return fail(std::move(err));
  return 0;
}
