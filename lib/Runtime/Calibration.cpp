//===- Calibration.cpp - Feeding observers and writing statistics ---------===//
//
// Part of the qfx project.
//
//===----------------------------------------------------------------------===//

#include "qfx/Runtime/Calibration.h"

#include "qfx/Dialect/QFX/IR/QFXOps.h"

#include "Support.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace qfx;

using runtime::makeError;

llvm::Expected<Calibrator> Calibrator::create(mlir::ModuleOp module) {
  Calibrator calibrator;
  std::map<int64_t, ObserveOp> firstOfId;
  llvm::Error error = llvm::Error::success();
  module.walk([&](ObserveOp op) -> mlir::WalkResult {
    int64_t id = op.getId();
    calibrator.observeOps.push_back(op);
    calibrator.slotIds.push_back(id);
    const ObserverSpec &spec = op.getSpec().getSpec();
    auto [first, inserted] = firstOfId.try_emplace(id, op);
    if (!inserted) {
      if (first->second.getSpec() != op.getSpec()) {
        error =
            makeError(llvm::Twine("observers with id ") + llvm::Twine(id) +
                      " at " + runtime::formatLocation(op.getLoc()) + " and " +
                      runtime::formatLocation(first->second.getLoc()) +
                      " share qparams but have different specs");
        return mlir::WalkResult::interrupt();
      }
    } else {
      llvm::Expected<Observer> observer = Observer::create(spec);
      if (!observer) {
        error = makeError(runtime::formatLocation(op.getLoc()) + ": " +
                          llvm::toString(observer.takeError()));
        return mlir::WalkResult::interrupt();
      }
      calibrator.observers.emplace(id, std::move(*observer));
    }
    if (std::optional<mlir::Attribute> stats = op.getStats()) {
      if (llvm::Error err =
              calibrator.observers.at(id).setState(getObserverState(*stats))) {
        error = makeError(runtime::formatLocation(op.getLoc()) +
                          ": cannot resume from its "
                          "statistics: " +
                          llvm::toString(std::move(err)));
        return mlir::WalkResult::interrupt();
      }
    }
    return mlir::WalkResult::advance();
  });
  if (error)
    return std::move(error);
  return calibrator;
}

void Calibrator::observe(int64_t slot, llvm::ArrayRef<int64_t> shape,
                         llvm::ArrayRef<float> data) {
  if (firstError || slot < 0 || static_cast<size_t>(slot) >= slotIds.size())
    return;
  Observer &observer = observers.at(slotIds[slot]);
  std::string name = sampleName + ", the tensor observed at " +
                     runtime::formatLocation(observeOps[slot]->getLoc());
  if (llvm::Error err = observer.observe(data, shape, name))
    firstError = llvm::toString(std::move(err));
}

llvm::Error Calibrator::takeError() {
  if (!firstError)
    return llvm::Error::success();
  std::string message = std::move(*firstError);
  firstError.reset();
  return makeError(message);
}

llvm::Error Calibrator::checkSameObservers(mlir::ModuleOp module) const {
  size_t slot = 0;
  llvm::Error error = llvm::Error::success();
  module.walk([&](ObserveOp op) {
    if (slot == observeOps.size()) {
      error = makeError(runtime::formatLocation(op.getLoc()) +
                        ": an observer more than the model's " +
                        llvm::Twine(observeOps.size()));
      return mlir::WalkResult::interrupt();
    }
    auto expected = llvm::cast<ObserveOp>(observeOps[slot]);
    // (The modules live in contexts of their own: specs compare by value.)
    if (op.getId() != expected.getId() ||
        !(op.getSpec().getSpec() == expected.getSpec().getSpec())) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << runtime::formatLocation(op.getLoc()) << ": observer " << slot
         << " is id " << op.getId() << " " << op.getSpec()
         << ", the model's is id " << expected.getId() << " "
         << expected.getSpec() << " ("
         << runtime::formatLocation(expected.getLoc()) << ")";
      error = makeError(text);
      return mlir::WalkResult::interrupt();
    }
    ++slot;
    return mlir::WalkResult::advance();
  });
  if (error)
    return error;
  if (slot != observeOps.size())
    return makeError(llvm::Twine("the module has ") + llvm::Twine(slot) +
                     " observers, the model " + llvm::Twine(observeOps.size()));
  return llvm::Error::success();
}

void Calibrator::writeStatistics() {
  for (auto [op, id] : llvm::zip_equal(observeOps, slotIds)) {
    const Observer &observer = observers.at(id);
    if (!isCalibratingObserver(observer.getSpec().kind) ||
        !observer.hasStatistics())
      continue;
    llvm::cast<ObserveOp>(op).setStatsAttr(getObserverStatsAttr(
        op->getContext(), observer.getSpec().kind, observer.getState()));
  }
}

//===----------------------------------------------------------------------===//
// Samples
//===----------------------------------------------------------------------===//

llvm::Expected<SampleSource> SampleSource::open(llvm::StringRef path) {
  SampleSource source;
  source.path = path.str();
  if (!llvm::sys::fs::is_directory(path)) {
    auto reader = NpySampleReader::open(path);
    if (!reader)
      return reader.takeError();
    source.reader.emplace(std::move(*reader));
    return source;
  }
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(path, ec), end; !ec && it != end;
       it.increment(ec))
    if (llvm::StringRef(it->path()).ends_with(".npy"))
      source.files.push_back(it->path());
  if (ec)
    return makeError(path + ": cannot list: " + ec.message());
  if (source.files.empty())
    return makeError(path + ": no .npy files in directory");
  llvm::sort(source.files);
  return source;
}

int64_t SampleSource::size() const {
  return reader ? reader->getNumSamples() : static_cast<int64_t>(files.size());
}

llvm::Expected<NpyArray> SampleSource::get(int64_t index) const {
  if (reader)
    return reader->getSample(index);
  return readNpy(files[index]);
}

std::string SampleSource::describe(int64_t index) const {
  return reader ? path : files[index];
}

//===----------------------------------------------------------------------===//
// Calibration
//===----------------------------------------------------------------------===//

/// The number of NaN and infinite values among `numElements` of `dtype` at
/// `data` (0 for integers).
static int64_t countNonFinite(const void *data, NpyDType dtype,
                              int64_t numElements) {
  int64_t count = 0;
  if (dtype == NpyDType::Float32) {
    auto *values = static_cast<const float *>(data);
    for (int64_t i = 0; i < numElements; ++i)
      count += !std::isfinite(values[i]);
  } else if (dtype == NpyDType::Float16) {
    auto *bits = static_cast<const uint16_t *>(data);
    for (int64_t i = 0; i < numElements; ++i)
      count += (bits[i] & 0x7c00) == 0x7c00;
  }
  return count;
}

static int64_t countNonFinite(const NpyArray &array) {
  return countNonFinite(array.data.data(), array.dtype, array.getNumElements());
}

/// `options.entry` of `module` compiled for calibration; the module
/// outlives the model (the caller keeps it).
static llvm::Expected<CompiledModel>
compileForCalibration(mlir::ModuleOp module,
                      const CalibrationOptions &options) {
  CompileOptions compileOptions;
  compileOptions.entry = options.entry;
  compileOptions.calibrate = true;
  compileOptions.borrowConstants = true;
  return CompiledModel::compile(module, compileOptions);
}

llvm::Expected<CalibratingModel>
CalibratingModel::compile(mlir::ModuleOp module,
                          const CalibrationOptions &options) {
  auto calibrator = Calibrator::create(module);
  if (!calibrator)
    return calibrator.takeError();
  auto model = compileForCalibration(module, options);
  if (!model)
    return model.takeError();
  return CalibratingModel(
      std::make_shared<Shared>(Shared{std::move(*calibrator)}),
      std::move(*model));
}

llvm::Expected<CalibratingModel>
CalibratingModel::compileSharing(mlir::ModuleOp module,
                                 const CalibrationOptions &options) const {
  if (llvm::Error error = shared->calibrator.checkSameObservers(module))
    return std::move(error);
  auto model = compileForCalibration(module, options);
  if (!model)
    return model.takeError();
  return CalibratingModel(shared, std::move(*model));
}

llvm::Error CalibratingModel::run(llvm::ArrayRef<const void *> inputs,
                                  llvm::ArrayRef<void *> results,
                                  llvm::StringRef runName) {
  llvm::ArrayRef<TensorSignature> signatures = model->getInputs();
  if (inputs.size() != signatures.size())
    return makeError(llvm::formatv("{0}: @{1} takes {2} inputs, {3} given",
                                   runName, model->getEntry(),
                                   signatures.size(), inputs.size()));
  for (auto [index, input, signature] : llvm::enumerate(inputs, signatures)) {
    int64_t numElements = 1;
    for (int64_t size : signature.shape)
      numElements *= size;
    if (int64_t bad = countNonFinite(input, signature.dtype, numElements))
      return makeError(
          llvm::formatv("{0}: input {1} has {2} NaN or infinite values",
                        runName, index, bad));
  }
  return observe(runName, [&] {
    return model->run(inputs, results, &shared->calibrator);
  });
}

llvm::Expected<llvm::SmallVector<NpyArray>>
CalibratingModel::run(llvm::ArrayRef<NpyArray> inputs,
                      llvm::StringRef runName) {
  llvm::SmallVector<NpyArray> results;
  if (llvm::Error error = observe(runName, [&]() -> llvm::Error {
        auto outputs = model->run(inputs, &shared->calibrator);
        if (!outputs)
          return outputs.takeError();
        results = std::move(*outputs);
        return llvm::Error::success();
      }))
    return std::move(error);
  return results;
}

llvm::Error
CalibratingModel::observe(llvm::StringRef runName,
                          llvm::function_ref<llvm::Error()> runModel) {
  Calibrator &calibrator = shared->calibrator;
  std::map<int64_t, Observer> before = calibrator.saveObservers();
  calibrator.setSampleName(runName.str());
  llvm::Error error = runModel();
  if (!error)
    error = calibrator.takeError();
  else
    llvm::consumeError(calibrator.takeError());
  if (error) {
    calibrator.restoreObservers(std::move(before));
    return error;
  }
  ++shared->numRuns;
  return llvm::Error::success();
}

llvm::Error qfx::calibrate(mlir::ModuleOp module,
                           llvm::ArrayRef<std::string> samplePaths,
                           const CalibrationOptions &options) {
  bool observes = false;
  module.walk([&](ObserveOp) {
    observes = true;
    return mlir::WalkResult::interrupt();
  });
  if (!observes)
    return makeError("the model has no qfx.observe to calibrate");

  // The samples are opened first: a missing or malformed file fails before
  // the model is compiled.
  if (samplePaths.empty())
    return makeError("no sample sources given");
  llvm::SmallVector<SampleSource> sources;
  for (const std::string &path : samplePaths) {
    auto source = SampleSource::open(path);
    if (!source)
      return source.takeError();
    if (!sources.empty() && source->size() != sources.front().size())
      return makeError(llvm::formatv("{0} has {1} samples but {2} has {3}",
                                     path, source->size(), samplePaths.front(),
                                     sources.front().size()));
    sources.push_back(std::move(*source));
  }

  // The model lives only in this function, `module` longer.
  auto calibrating = CalibratingModel::compile(module, options);
  if (!calibrating)
    return calibrating.takeError();
  const CompiledModel &model = calibrating->getModel();
  if (samplePaths.size() != model.getInputs().size())
    return makeError(llvm::formatv("@{0} takes {1} inputs but {2} sample "
                                   "sources are given",
                                   model.getEntry(), model.getInputs().size(),
                                   samplePaths.size()));

  int64_t numSamples = sources.front().size();
  for (int64_t sample = 0; sample < numSamples; ++sample) {
    std::string sampleName = llvm::formatv("calibration sample {0}", sample);
    llvm::SmallVector<NpyArray> inputs;
    for (auto [argument, source] : llvm::enumerate(sources)) {
      auto array = source.get(sample);
      if (!array)
        return array.takeError();
      if (int64_t bad = countNonFinite(*array))
        return makeError(llvm::formatv("{0} of input {1} ({2}) has {3} NaN or "
                                       "infinite values",
                                       sampleName, argument,
                                       source.describe(sample), bad));
      inputs.push_back(std::move(*array));
    }
    if (llvm::Error err = model.checkInputs(inputs))
      return makeError(sampleName + ": " + llvm::toString(std::move(err)));
    if (auto outputs = calibrating->run(inputs, sampleName); !outputs)
      return outputs.takeError();
    if (options.progress)
      options.progress(sample + 1, numSamples);
  }
  calibrating->writeStatistics();
  return llvm::Error::success();
}
