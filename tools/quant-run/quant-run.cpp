//===- quant-run.cpp - Run any pipeline stage on .npy inputs --------------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//
//
// quant-run MODEL.mlir --input=A.npy[,B.npy] [-o OUT.npy[,...]] [--bench=N]
// quant-run MODEL.mlir --input=A.npy[,B.npy] --profile=N
// quant-run OBSERVED.mlir --calibrate=A.npy[,B.npy] [-o CALIBRATED.mlir]
//
// JIT-compiles one function of a model at any stage of the qfx pipeline
// (float TOSA, observed, reference) and runs it in-process; or calibrates
// the observers of an observed model on sample inputs and writes their
// statistics into the IR.
//
//===----------------------------------------------------------------------===//

#include "qfx/InitQFX.h"
#include "qfx/Runtime/Calibration.h"
#include "qfx/Runtime/Compare.h"
#include "qfx/Runtime/CompiledModel.h"
#include "qfx/Runtime/Npy.h"
#include "qfx/Transforms/MaterializeResources.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
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
#include <cmath>
#include <cstdlib>
#include <map>

namespace cl = llvm::cl;

static cl::OptionCategory category("quant-run options");

static cl::opt<std::string> modelPath(cl::Positional, cl::desc("<model.mlir>"),
                                      cl::cat(category));
static cl::opt<std::string>
    entry("entry",
          cl::desc("The function to run (default: the module's only "
                   "public function)"),
          cl::cat(category));
static cl::list<std::string>
    inputPaths("input", cl::CommaSeparated,
               cl::desc("The .npy file of each argument, in order"),
               cl::value_desc("A.npy,B.npy"), cl::cat(category));
static cl::list<std::string> outputPaths(
    "o", cl::CommaSeparated,
    cl::desc("Write each result to a .npy file, in order; with --calibrate, "
             "the calibrated module (default: stdout)"),
    cl::value_desc("OUT.npy,... | CALIBRATED.mlir"), cl::cat(category));
static cl::list<std::string> calibrationPaths(
    "calibrate", cl::CommaSeparated,
    cl::desc("Calibrate the observers on samples: per argument, a .npy file "
             "whose leading axis indexes samples, or a directory with one "
             ".npy file per sample"),
    cl::value_desc("A.npy,B.npy"), cl::cat(category));
static cl::opt<unsigned>
    benchRuns("bench", cl::init(0),
              cl::desc("Time N runs after a warm-up and print the median, "
                       "the spread and the throughput"),
              cl::value_desc("N"), cl::cat(category));
static cl::opt<unsigned> profileRuns(
    "profile", cl::init(0),
    cl::desc("Time N runs after a warm-up, per layer (the ops from one named "
             "value to the next), and print the median time of each, in "
             "program order, with the plain model's median for comparison"),
    cl::value_desc("N"), cl::cat(category));
static cl::opt<std::string> comparePath(
    "compare",
    cl::desc("Run this second stage on the same --input and report, per op "
             "matched by location and per result, the max abs error and the "
             "SQNR against the model, worst first"),
    cl::value_desc("OTHER.mlir"), cl::cat(category));
static cl::opt<std::string> codegenTarget(
    "codegen", cl::init("host"),
    cl::desc("qfx-codegen's target for int8 kernels (quant-compile "
             "--list-targets describes them); one this machine runs"),
    cl::cat(category));
static cl::opt<bool> emulateAmx(
    "emulate-amx", cl::init(false),
    cl::desc("With --codegen=x86-64-amx: run the AMX tile kernels with "
             "AVX-512 VNNI instead of AMX (qfx-emulate-amx), to test them on "
             "machines without AMX"),
    cl::cat(category));
static cl::opt<std::string>
    emitLlvm("emit-llvm",
             cl::desc("Also write the LLVM IR the JIT compiles, after LLVM's "
                      "optimizations, to FILE"),
             cl::value_desc("FILE"), cl::cat(category));
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

/// Parses a model file; diagnostics go to `sourceMgr`'s handler.
static mlir::OwningOpRef<mlir::ModuleOp> parseModel(llvm::StringRef path,
                                                    llvm::SourceMgr &sourceMgr,
                                                    mlir::MLIRContext &context,
                                                    std::string &error) {
  auto file = mlir::openInputFile(path, &error);
  if (!file)
    return nullptr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  auto module = mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module) {
    error = "cannot parse the model (see above)";
    return nullptr;
  }
  if (mlir::failed(qfx::materializeResources(*module))) {
    error = "the model's resources are malformed (see above)";
    return nullptr;
  }
  return module;
}

/// Prints the comparison of --compare, worst first.
static int runComparison(mlir::ModuleOp baseline,
                         llvm::ArrayRef<qfx::NpyArray> inputs,
                         mlir::MLIRContext &context) {
  if (benchRuns > 0 || !outputPaths.empty())
    return fail("--compare cannot be combined with --bench or -o");
  // A source manager parses its main buffer: the second model needs its own.
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  std::string error;
  auto compared = parseModel(comparePath, sourceMgr, context, error);
  if (!compared)
    return fail(comparePath + ": " + error);
  auto report = qfx::compareStages(baseline, *compared, entry, inputs);
  if (!report)
    return fail(report.takeError());
  if (llvm::all_of(*report, [](const qfx::ValueComparison &value) {
        return value.isResult;
      }))
    llvm::WithColor::warning(llvm::errs(), "quant-run")
        << "no value is named alike in both stages, only the results are "
           "compared: values are matched by their ops' location names (write "
           "stages with quant-opt --mlir-print-debuginfo to keep them)\n";
  llvm::outs() << "compare: " << comparePath << " against " << modelPath << ", "
               << report->size() << " values, worst first\n";
  llvm::outs() << llvm::formatv("{0,10}  {1,12}  {2,-14}  {3,-22}  {4}\n",
                                "SQNR (dB)", "max abs err", "shape", "op",
                                "location");
  for (const qfx::ValueComparison &value : *report) {
    std::string shape =
        llvm::join(llvm::map_range(value.shape,
                                   [](int64_t d) { return std::to_string(d); }),
                   "x");
    std::string sqnr = std::isinf(value.sqnr)
                           ? std::string("inf")
                           : llvm::formatv("{0:f2}", value.sqnr).str();
    llvm::outs() << llvm::formatv("{0,10}  {1,12:e3}  {2,-14}  {3,-22}  {4}\n",
                                  sqnr, value.maxAbsError, shape, value.opName,
                                  value.name);
  }
  // Values quantized in both stages with other qparams (two calibrations of
  // a model), in the order of the compared stage: where they start to
  // differ.
  std::vector<const qfx::ValueComparison *> differing;
  size_t quantizedInBoth = 0;
  for (const qfx::ValueComparison &value : *report) {
    if (!value.baselineQParams || !value.comparedQParams)
      continue;
    ++quantizedInBoth;
    if (*value.baselineQParams != *value.comparedQParams)
      differing.push_back(&value);
  }
  if (differing.empty())
    return 0;
  llvm::sort(differing, [](const auto *x, const auto *y) {
    return x->position < y->position;
  });
  llvm::outs() << "qparams that differ, in order: " << differing.size()
               << " of " << quantizedInBoth
               << " values quantized in both stages\n";
  llvm::outs() << llvm::formatv("{0,14}  {1,14}  {2,10}  {3,9}  {4}\n", "scale",
                                "compared", "f32 ulps", "zero pts", "location");
  for (const qfx::ValueComparison *value : differing) {
    auto [scale, zp] = *value->baselineQParams;
    auto [otherScale, otherZp] = *value->comparedQParams;
    llvm::outs() << llvm::formatv(
        "{0,14:e6}  {1,14:e6}  {2,10}  {3,9}  {4}\n", scale, otherScale,
        qfx::getFloat32Ulps(scale, otherScale),
        std::to_string(zp) + "/" + std::to_string(otherZp), value->name);
  }
  return 0;
}

static int runBenchmark(qfx::CompiledModel &model,
                        llvm::ArrayRef<qfx::NpyArray> inputs) {
  using Clock = std::chrono::steady_clock;
  // Warm up: the first runs page in code and data, and for a quarter of a
  // second the threads settle (Linux may start the OpenMP threads on one
  // core and spread them only later: a short run of a two-thread kernel
  // then measured twice its one-thread time).
  auto warmUpEnd = Clock::now() + std::chrono::milliseconds(250);
  for (int i = 0; i < 3 || Clock::now() < warmUpEnd; ++i)
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
      millis.size(), model.getEntry(), median, millis.front(), at(0.1), at(0.9),
      millis.back(), 1000.0 / median, 1000.0 * batch / median, batch);
  return 0;
}

static double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

/// Prints the per-layer profile of --profile.
static int runProfile(mlir::ModuleOp module, const qfx::CompileOptions &options,
                      llvm::ArrayRef<qfx::NpyArray> inputs) {
  using Clock = std::chrono::steady_clock;
  auto profiled = qfx::ProfilingModel::compile(module, options);
  if (!profiled)
    return fail(profiled.takeError());
  if (llvm::Error err = profiled->getModel().checkInputs(inputs))
    return fail(std::move(err));
  auto plain = qfx::CompiledModel::compile(module, options);
  if (!plain)
    return fail(plain.takeError());
  llvm::SmallVector<qfx::NpyArray> outputs;
  // Layer names in program order, and their times and ops.
  std::vector<std::string> order;
  std::map<std::string, std::pair<std::string, std::vector<double>>> times;
  std::vector<double> totals, plainTotals;
  for (unsigned run = 0; run < profileRuns + 3; ++run) {
    auto layers = profiled->run(inputs, outputs);
    if (!layers)
      return fail(layers.takeError());
    auto start = Clock::now();
    if (auto result = plain->run(inputs); !result)
      return fail(result.takeError());
    double plainSeconds =
        std::chrono::duration<double>(Clock::now() - start).count();
    if (run < 3) // Warm-up: the first runs page in code and data.
      continue;
    plainTotals.push_back(plainSeconds);
    double total = 0;
    for (const qfx::LayerTime &layer : *layers) {
      auto [it, added] = times.try_emplace(layer.name);
      if (added)
        order.push_back(layer.name);
      it->second.first = layer.opName;
      it->second.second.push_back(layer.seconds);
      total += layer.seconds;
    }
    totals.push_back(total);
  }
  double total = median(totals);
  llvm::outs() << llvm::formatv(
      "profile: {0} runs of @{1}: median {2:f4} ms profiled, {3:f4} ms "
      "without the hooks; per layer, the ops since the previous layer, in "
      "program order\n",
      profileRuns, profiled->getModel().getEntry(), 1000 * total,
      1000 * median(plainTotals));
  llvm::outs() << llvm::formatv("{0,12}  {1,6}  {2,-22}  {3}\n", "median ms",
                                "share", "op", "layer");
  for (const std::string &name : order) {
    auto &[opName, seconds] = times[name];
    double time = median(seconds);
    llvm::outs() << llvm::formatv("{0,12:f4}  {1,5:f1}%  {2,-22}  {3}\n",
                                  1000 * time, 100 * time / total, opName,
                                  name);
  }
  return 0;
}

/// Calibrates the observers of `module` on the samples of --calibrate and
/// writes the calibrated module to -o (or stdout).
static int runCalibration(mlir::ModuleOp module) {
  if (!inputPaths.empty() || benchRuns > 0)
    return fail("--calibrate cannot be combined with --input or --bench");
  if (outputPaths.size() > 1)
    return fail("with --calibrate, -o names one file: the calibrated module");

  qfx::CalibrationOptions options;
  options.entry = entry;
  if (llvm::errs().is_displayed()) {
    using Clock = std::chrono::steady_clock;
    options.progress = [start = Clock::now(), last = Clock::time_point()](
                           int64_t done, int64_t total) mutable {
      auto now = Clock::now();
      if (now - last < std::chrono::milliseconds(200) && done != total)
        return;
      last = now;
      double seconds = std::chrono::duration<double>(now - start).count();
      llvm::errs() << llvm::formatv(
          "\rcalibrating: {0}/{1} samples, {2:f1} samples/s", done, total,
          done / std::max(seconds, 1e-9));
      if (done == total)
        llvm::errs() << "\n";
    };
  }
  if (llvm::Error err = qfx::calibrate(module, calibrationPaths, options))
    return fail(modelPath + ": " + llvm::toString(std::move(err)));

  std::string error;
  auto output = mlir::openOutputFile(
      outputPaths.empty() ? std::string("-") : outputPaths.front(), &error);
  if (!output)
    return fail(error);
  // With locations, as quant-opt writes its output.
  module.print(output->os(), mlir::OpPrintingFlags().enableDebugInfo());
  output->os() << "\n";
  output->keep();
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // The kernels' OpenMP threads spin for 1 ms after a parallel region, then
  // sleep, unless the user chose: waking sleeping threads costs a small
  // kernel more than its work, spinning for ever burns a core while the
  // process does other work or idles (docs/codegen.md).
  if (!::getenv("OMP_WAIT_POLICY") && !::getenv("KMP_BLOCKTIME") &&
      !::getenv("KMP_LIBRARY"))
    ::setenv("KMP_BLOCKTIME", "1", /*overwrite=*/1);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "quant-run: JIT-compile and run a model at any qfx pipeline stage\n");

  const qfx::NativeTargetInfo *target = qfx::lookupNativeTarget(codegenTarget);
  if (!target || !qfx::isJitTarget(*target))
    return fail("--codegen=" + codegenTarget + ": expected " +
                qfx::listNativeTargets(qfx::isJitTarget));
  if (emulateAmx && target->target != qfx::NativeTarget::X86Amx)
    return fail("--emulate-amx needs --codegen=x86-64-amx");
  if (printPipeline) {
    qfx::CompileOptions options;
    options.codegenTarget = target->target;
    options.emulateAmx = emulateAmx;
    llvm::outs() << qfx::CompiledModel::getLoweringPipeline(options) << "\n";
    return 0;
  }
  if (modelPath.empty())
    return fail("expected a model (see --help)");
  if (benchRuns > 0 && !outputPaths.empty())
    return fail("--bench and -o cannot be combined");
  if (profileRuns > 0 && (benchRuns > 0 || !outputPaths.empty() ||
                          !comparePath.empty() || !calibrationPaths.empty()))
    return fail("--profile cannot be combined with --bench, -o, --compare or "
                "--calibrate");

  mlir::DialectRegistry registry;
  qfx::registerQFXDialects(registry);
  qfx::registerQFXPasses();
  mlir::MLIRContext context(registry);

  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  std::string error;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      parseModel(modelPath, sourceMgr, context, error);
  if (!module)
    return fail(modelPath + ": " + error);

  if (!calibrationPaths.empty())
    return runCalibration(*module);

  llvm::SmallVector<qfx::NpyArray> inputs;
  for (const std::string &path : inputPaths) {
    auto array = qfx::readNpy(path);
    if (!array)
      return fail(array.takeError());
    inputs.push_back(std::move(*array));
  }

  if (!comparePath.empty())
    return runComparison(*module, inputs, context);

  qfx::CompileOptions options;
  options.entry = entry;
  options.codegenTarget = target->target;
  options.emulateAmx = emulateAmx;
  options.llvmIRPath = emitLlvm;
  if (profileRuns > 0)
    return runProfile(*module, options, inputs);
  auto model = qfx::CompiledModel::compile(*module, options);
  if (!model)
    return fail(model.takeError());
  if (llvm::Error err = model->checkInputs(inputs))
    return fail(std::move(err));
  if (!outputPaths.empty() && outputPaths.size() != model->getResults().size())
    return fail(llvm::formatv("@{0} has {1} results but -o names {2} files",
                              model->getEntry(), model->getResults().size(),
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
